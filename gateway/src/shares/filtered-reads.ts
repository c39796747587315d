// A filtered shared link's reads, answered by the query engine (the one behind POST /api/v2/query) with the
// link's filters and the read's actors, in the shapes of the rollup reads the shared view already draws
// (stats: totals, previous window, change, series; breakdown rows). The rollups keep no row-level dimensions
// to filter on; the engine does, so a filtered link's numbers are the API's numbers for the same filters.
// Windows map onto the engine's date ranges as the goals report's do (read/window.ts engineWindowRange).
import { addDays } from "@svc/core";
import type { ActorChoice } from "../api-schema/common.ts";
import type { AiResponse, BreakdownField, BreakdownResponse, StatsResponse } from "../api-schema/read.ts";
import { ApiError } from "../errors.ts";
import { isoInZone } from "../query/date-range.ts";
import type { QueryEngine } from "../query/engine.ts";
import { aiPanel, breakdownRow, statsGrain, statsResponse, windowEcho } from "../read/reports.ts";
import type { AiRow, AiSlice } from "../read/rollup-reads.ts";
import { type ReadWindow, engineWindowRange, windowBuckets } from "../read/window.ts";
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
  /** The request's client has left: the engine drops or interrupts what it still asks (query/admission.ts). */
  readonly gone?: () => boolean;
}

const run = ({ engine, site, filters, window, gone }: FilteredRead, rest: Record<string, unknown>, actors: readonly string[] = window.actors) =>
  engine.run(site, sharePlan(site.domain, filters, actors, rest), gone);

export async function filteredStats(read: FilteredRead): Promise<typeof StatsResponse.Type> {
  const { site, window: w } = read;
  const grain = statsGrain(w);
  // An hour bucket is a UTC hour, as the rollups key the owner's series: asked in UTC, the engine's hours are the
  // same (in a half-hour zone its local hours straddle them: Kolkata's 15:00–16:00 is 09:30–10:30 UTC).
  const hourly = grain === "hour";
  const [now, before, series] = await Promise.all([
    run(read, { date_range: engineWindowRange(w, "current"), metrics: METRICS }),
    run(read, { date_range: engineWindowRange(w, "prior"), metrics: METRICS }),
    run(hourly ? { ...read, site: { ...site, time_zone: "UTC" } as SiteRecord } : read, { date_range: engineWindowRange(w, "current"), metrics: METRICS, dimensions: [hourly ? "time:hour" : "time:day"] }),
  ]);
  // The engine labels buckets "YYYY-MM-DD HH:00:00" (UTC here) or "YYYY-MM-DD" (the site's zone); the series keys them by their instant.
  const byLabel = new Map(series.results.map((r) => [r.dimensions[0]!, r.metrics]));
  // A day bucket is the window's i-th local day (its start, the UTC hour holding a half-hour zone's midnight,
  // reads as the day before there).
  const label = (t: number, i: number) => (hourly ? `${isoInZone(t, "UTC").slice(0, 13).replace("T", " ")}:00:00` : addDays(w.from, i));
  const perBucket = new Map<number, Counts>();
  windowBuckets(w, grain).forEach((t, i) => perBucket.set(t, counts(byLabel.get(label(t, i)))));
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
    date_range: engineWindowRange(w, "current"),
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

// The AI panel's slices by (actor, engine dimension): the same slices the rollups keep (rollup-reads.ts
// AI_SLICES), each a dimension of the engine's rows of that actor. Every row of the link's segment is there but
// the HTTP status, which the engine's rows do not carry.
const AI_DIMENSIONS: ReadonlyArray<readonly [string, readonly (readonly [string, AiSlice])[]]> = [
  ["visit:assistant", [["human_via_ai", "assistants"]]],
  ["event:agent", [["ai_crawler", "crawlers"], ["ai_agent", "agents"]]],
  ["event:page", [["human_via_ai", "referred_pages"], ["ai_crawler", "crawled_pages"], ["ai_agent", "agent_pages"]]],
];
const AI_TOTALS: ReadonlyArray<readonly [string, AiSlice]> = [["human_via_ai", "assistant_total"], ["ai_crawler", "crawler_total"], ["ai_agent", "agent_total"]];
const AI_ACTORS = AI_TOTALS.map(([actor]) => actor);

/**
 * The AI panel of a filtered link: its rows are the engine's for the link's filters (one query per dimension,
 * every actor's rows at once), ranked and joined as the owner's panel is (reports.ts aiPanel). Each slice is
 * read whole — at most the engine's 10,000 rows — because the panel ranks agents by hits + pageviews, which
 * the engine cannot order by.
 */
export async function filteredAi(read: FilteredRead, limit: number): Promise<typeof AiResponse.Type> {
  const span = engineWindowRange(read.window, "current");
  const ask = (dimensions: string[]) => run(read, { date_range: span, metrics: METRICS, dimensions, pagination: { limit: 10_000 } }, AI_ACTORS);
  const [totals, ...sliced] = await Promise.all([ask(["visit:actor"]), ...AI_DIMENSIONS.map(([dimension]) => ask(["visit:actor", dimension]))]);
  const rows: AiRow[] = [];
  for (const r of totals!.results) {
    const slice = AI_TOTALS.find(([actor]) => actor === r.dimensions[0])?.[1];
    if (slice !== undefined) rows.push({ slice, value: "total", ...counts(r.metrics) });
  }
  AI_DIMENSIONS.forEach(([dimension, slices], i) => {
    for (const r of sliced[i]!.results) {
      const slice = slices.find(([actor]) => actor === r.dimensions[0])?.[1];
      // A row without a known assistant or agent name is "(not set)" to the engine; the rollups keep no such row.
      if (slice === undefined || (dimension !== "event:page" && r.dimensions[1] === "(not set)")) continue;
      rows.push({ slice, value: r.dimensions[1]!, ...counts(r.metrics) });
    }
  });
  return aiPanel(read.site.id, read.window, rows, limit, { statusKnown: false });
}

/**
 * "Visitors now" of a filtered link's counter: the distinct visitors of `actors` with at least one row matching
 * the link's filters in the last `windowMs` — the lanes' definition of visitors now (a row at most 5 minutes
 * old) restricted to the segment's rows. Rows are the engine's over the date-times [now − windowMs, now].
 */
export async function filteredRecentVisitors(engine: QueryEngine, site: SiteRecord, filters: readonly Filter[], actors: readonly string[], nowMs: number, windowMs: number): Promise<number> {
  const answer = await engine.run(site, sharePlan(site.domain, filters, actors, { date_range: [new Date(nowMs - windowMs).toISOString(), new Date(nowMs).toISOString()], metrics: ["visitors"] }));
  return answer.results[0]?.metrics[0] ?? 0;
}
