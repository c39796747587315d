// The queries the rollups answer exactly, without reading a row: no filter, no comparison, metrics among
// visitors, pageviews, events and hits, and no dimension, a day series, or one dimension the rollups keep with
// the same blank values (page, source, channel, country, device, browser, os) — over whole UTC days of a UTC site,
// for the default actor. Visitors summed over days are exact: hashes rotate at 00:00 UTC, so no visitor is in two
// days. Measured at 10M rows (README "Benchmarks"): these answer in tens of ms, where DuckDB needs hundreds.
import { blankLabel } from "@svc/core";
import { type RollupSource, windowSums } from "../read/reports.ts";
import { bucketTotals, valueSums } from "../read/rollup-reads.ts";
import type { ResolvedRange } from "./date-range.ts";
import type { ResultRow } from "./engine.ts";
import { type Metric, type QueryPlan, isTimeDimension } from "./request.ts";

/** The query dimensions the rollups keep, by their rollup column. */
const DIMS: Readonly<Record<string, string>> = {
  "event:page": "page",
  "visit:source": "source",
  "visit:channel": "channel",
  "visit:country": "country",
  "visit:device": "device",
  "visit:browser": "browser",
  "visit:os": "os",
};
const METRICS: ReadonlySet<Metric> = new Set(["visitors", "pageviews", "events", "hits"]);

export function rollupServes(plan: QueryPlan, range: ResolvedRange, timeZone: string, grain: string | null): boolean {
  if (plan.filters.length > 0 || plan.include.comparisons !== null || timeZone !== "UTC" || !range.wholeDays) return false;
  if (!plan.metrics.every((m) => METRICS.has(m))) return false;
  if (plan.dimensions.length === 0) return true;
  if (plan.dimensions.length > 1) return false;
  const d = plan.dimensions[0]!;
  return isTimeDimension(d) ? grain === "time:day" : d in DIMS;
}

interface Sums {
  visitors: number;
  pageviews: number;
  events: number;
  hits: number;
}
const metricOf = (m: Metric, s: Sums): number => (m === "events" ? s.pageviews + s.events : s[m as keyof Sums]);

/** The rows before ordering and pagination. */
export async function rollupRows(src: RollupSource, siteId: number, plan: QueryPlan, range: ResolvedRange): Promise<ResultRow[]> {
  const { pool } = src;
  const span = { grain: "day" as const, from: range.firstDay, to: range.lastDay };
  const actors = ["human" as const];
  const dim = plan.dimensions[0];
  if (dim === undefined || isTimeDimension(dim)) {
    const buckets = await bucketTotals(pool, siteId, actors, span);
    if (dim === undefined) {
      const total: Sums = { visitors: 0, pageviews: 0, events: 0, hits: 0 };
      for (const s of buckets.values()) for (const k of Object.keys(total) as (keyof Sums)[]) total[k] += s[k];
      return [{ dimensions: [], metrics: plan.metrics.map((m) => metricOf(m, total)) }];
    }
    return [...buckets.entries()].map(([ms, s]) => ({ dimensions: [new Date(ms).toISOString().slice(0, 10)], metrics: plan.metrics.map((m) => metricOf(m, s)) }));
  }
  const column = DIMS[dim]!;
  const blank = blankLabel(column);
  // Settled days' sums are cached as the breakdown route's are (read/settled-cache.ts): a 30-day page breakdown
  // sums 60,000 rollup rows otherwise.
  const sums = await windowSums(src, `query|${siteId}|${column}`, span, (s) => valueSums(pool, siteId, column, actors, s), (r) => r.value);
  return [...sums.values()].map((s) => ({ dimensions: [s.value === "" ? blank : s.value], metrics: plan.metrics.map((m) => metricOf(m, s)) }));
}
