// A filtered shared link's reads, answered by the query engine (the one behind POST /api/v2/query) with the
// link's filters and the read's actors, in the shapes of the rollup reads the shared view already draws
// (stats: totals, previous window, change, series; breakdown rows). The rollups keep no row-level dimensions
// to filter on; the engine does, so a filtered link's numbers are the API's numbers for the same filters.
// Windows map onto the engine's date ranges as the goals report's do (read/window.ts engineDateRange).
import type { ActorChoice } from "../api-schema/common.ts";
import type { BreakdownField, BreakdownResponse, StatsResponse } from "../api-schema/read.ts";
import { ApiError } from "../errors.ts";
import { isoInZone } from "../query/date-range.ts";
import { type QueryEngine, siteTimeZone } from "../query/engine.ts";
import { breakdownRow, statsGrain, statsResponse, windowEcho } from "../read/reports.ts";
import { type ReadWindow, engineDateRange, windowBuckets } from "../read/window.ts";
import { type Counts, zeroCounts } from "../rollups/counts.ts";
import type { SiteRecord } from "../storage/sites.ts";
import { type Filter, sharePlan } from "./share-filters.ts";

/** The engine dimension of each breakdown field; the bot rule has none (it is not a column of the engine's rows). */
const FIELD_DIMENSION: Readonly<Record<Exclude<BreakdownField, "rule">, string>> = {
  page: "event:page", source: "visit:source", channel: "visit:channel", country: "visit:country", device: "visit:device",
  browser: "visit:browser", os: "visit:os", utm_source: "visit:utm_source", utm_medium: "visit:utm_medium",
  utm_campaign: "visit:utm_campaign", event: "event:name",
};

// The engine's events are every script row; the rollups' are custom events beside pageviews.
const METRICS = ["visitors", "pageviews", "events", "hits"];
const counts = (m: readonly number[] | undefined): Counts =>
  m === undefined ? zeroCounts() : { visitors: m[0]!, pageviews: m[1]!, events: m[2]! - m[1]!, hits: m[3]! };

export interface FilteredRead {
  readonly engine: QueryEngine;
  readonly site: SiteRecord;
  readonly filters: readonly Filter[];
  readonly actor: ActorChoice;
  readonly window: ReadWindow;
}

const run = ({ engine, site, filters, window }: FilteredRead, rest: Record<string, unknown>) =>
  engine.run(site, sharePlan(site.domain, filters, window.actors, rest));

export async function filteredStats(read: FilteredRead): Promise<typeof StatsResponse.Type> {
  const { site, window: w } = read;
  const grain = statsGrain(w);
  const timeZone = siteTimeZone(site);
  const [now, before, series] = await Promise.all([
    run(read, { date_range: engineDateRange(w.current), metrics: METRICS }),
    run(read, { date_range: engineDateRange(w.prior), metrics: METRICS }),
    run(read, { date_range: engineDateRange(w.current), metrics: METRICS, dimensions: [grain === "hour" ? "time:hour" : "time:day"] }),
  ]);
  // The engine labels buckets in the site's zone ("YYYY-MM-DD HH:00:00" or "YYYY-MM-DD"); the series keys them by their instant.
  const byLabel = new Map(series.results.map((r) => [r.dimensions[0]!, r.metrics]));
  const label = (t: number) => (grain === "hour" ? `${isoInZone(t, timeZone).slice(0, 13).replace("T", " ")}:00:00` : isoInZone(t, timeZone).slice(0, 10));
  const perBucket = new Map<number, Counts>();
  for (const t of windowBuckets(w, grain)) perBucket.set(t, counts(byLabel.get(label(t))));
  return statsResponse(site.id, read.actor, w, {
    current: counts(now.results[0]?.metrics),
    previous: counts(before.results[0]?.metrics),
    grain,
    perBucket,
    // Visitors are distinct over each range and bucket: exact, whatever the actors or the zone.
    inferred: false,
    inferredDays: [],
  });
}

export async function filteredBreakdown(read: FilteredRead, field: BreakdownField, limit: number): Promise<typeof BreakdownResponse.Type> {
  if (field === "rule") throw new ApiError("conflict", "the bot rule breakdown cannot be limited to this shared link's fixed filters");
  const { site, window: w } = read;
  const answer = await run(read, {
    date_range: engineDateRange(w.current),
    metrics: METRICS,
    dimensions: [FIELD_DIMENSION[field]],
    order_by: [["visitors", "desc"], ["pageviews", "desc"]],
    pagination: { limit },
  });
  return {
    site_id: site.id,
    actor: read.actor,
    ...windowEcho(w),
    field,
    rows: answer.results.map((r) => breakdownRow(field, { value: r.dimensions[0]!, ...counts(r.metrics) })),
  };
}
