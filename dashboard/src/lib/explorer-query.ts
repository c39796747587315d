// The site view's questions to POST /api/v2/query (gateway/src/query, Plausible's Stats API v2): the tiles'
// totals with their comparison, the chart's series with its ghost line, a card's rows — for the view's period,
// actor, filters and comparison. An unfiltered view compared with the previous period keeps the rollup reads
// (GET …/stats, …/breakdown) for what they know; everything else is asked here, so the numbers on screen are
// the query API's for the same filters.
import { addDays, zonedDay } from "@svc/core/time-zone";
import { api, queryPath } from "./api";
import { type QueryPriority, QueryQueue } from "./query-queue";
import { type ViewFilter, apiFilters } from "./filters";
import type { BreakdownRow, Stats } from "./types";
import type { ViewState } from "./view-state";

export interface QueryRow {
  dimensions: string[];
  metrics: number[];
  comparison?: { dimensions: string[]; metrics: number[]; change: (number | null)[] };
}
export interface QueryAnswer {
  results: QueryRow[];
  meta: Record<string, unknown>;
  query: { date_range?: [string, string]; comparison_date_range?: [string, string] } & Record<string, unknown>;
}

/** What a query is about: the site, its zone (periods are its local days) and the view. */
export interface QueryScope {
  domain: string;
  timeZone: string;
  view: Pick<ViewState, "period" | "days" | "hours" | "actor" | "comparison" | "compare" | "filters">;
}

// One queue for the page: the tiles before the chart before the cards (lib/query-queue.ts).
const queue = new QueryQueue<QueryAnswer>((body, signal) => api.post<QueryAnswer>(queryPath(), body, fetch, signal));

/** Asks POST /api/v2/query through the page's queue; `signal` withdraws the question (a newer view asks instead). */
export const runQuery = (body: Record<string, unknown>, priority: QueryPriority = "card", signal?: AbortSignal) => queue.run(body, priority, signal);

/** Resolves when the view's queries are answered: what the engine counts outside the queue waits for it. */
export const afterViewQueries = (): Promise<void> => queue.whenIdle();

/** Whether the view needs the query API for its tiles and chart: filters, or a comparison the rollups do not keep. */
export const needsEngine = (view: QueryScope["view"]): boolean =>
  view.filters.length > 0 || (view.compare && (view.comparison.mode !== "previous" || view.comparison.matchWeekday));

/** The view's period as a date_range: today, the rolling 24 hours, or the last N local days of the site. */
export function dateRange(view: QueryScope["view"], timeZone: string, now = Date.now()): string | [string, string] {
  if (view.hours !== null) return "24h";
  if (view.period === "today") return "day";
  const today = zonedDay(now, timeZone);
  return [addDays(today, -(view.days - 1)), today];
}

export function comparisonBody(view: QueryScope["view"]): Record<string, unknown> | null {
  const c = view.comparison;
  if (!view.compare || c.mode === "off") return null;
  if (c.mode === "custom") return { mode: "custom", date_range: [c.from, c.to], match_day_of_week: c.matchWeekday };
  return { mode: c.mode === "yoy" ? "year_over_year" : "previous_period", match_day_of_week: c.matchWeekday };
}

/** The body every query of the view shares (site, range, filters and actor); `extra` filters are added. */
export function scopeBody(scope: QueryScope, extra: readonly ViewFilter[] = []): Record<string, unknown> {
  return { site_id: scope.domain, date_range: dateRange(scope.view, scope.timeZone), filters: apiFilters([...scope.view.filters, ...extra], scope.view.actor) };
}

export const TILE_METRICS = ["visitors", "visits", "pageviews", "views_per_visit", "bounce_rate", "visit_duration", "events", "hits"] as const;
export type TileMetric = (typeof TILE_METRICS)[number];
/** The metrics only the query API counts (per visit). */
export const VISIT_TILES = ["visits", "views_per_visit", "bounce_rate", "visit_duration"] as const;

export interface TileValue {
  value: number | null;
  /** Against the comparison: a fraction (0.12 = +12 %), or points for the bounce rate; null when there was nothing before. */
  change: number | null;
  /** "inferred": an upper bound (visitors added up per hour); the rollups' word for it. */
  basis?: "observed" | "inferred";
}
export type Tiles = Partial<Record<TileMetric, TileValue>>;

/** A change as the tiles show it: a fraction of the value before (null from nothing), points for a rate. */
export function tileChange(metric: TileMetric, now: number, before: number | undefined): number | null {
  if (before === undefined) return null;
  if (metric === "bounce_rate") return now - before;
  return before === 0 ? null : (now - before) / before;
}

/**
 * The query API's `events` counts every script row, pageviews included; the tiles and cards count custom
 * events beside pageviews, as the rollup reads do.
 */
const customEvents = (metrics: readonly string[], values: readonly number[]): number => values[metrics.indexOf("events")]! - values[metrics.indexOf("pageviews")]!;

/** The tiles' numbers (all of them, or `only` some) with their change against the view's comparison. */
export async function tileQuery(scope: QueryScope, only: readonly TileMetric[] = TILE_METRICS, signal?: AbortSignal): Promise<Tiles> {
  const metrics = [...new Set<string>([...only, ...(only.includes("events") ? ["pageviews"] : [])])];
  const comparisons = comparisonBody(scope.view);
  const answer = await runQuery({ ...scopeBody(scope), metrics, include: comparisons ? { comparisons } : {} }, "tiles", signal);
  const row = answer.results[0];
  const now = row?.metrics ?? metrics.map(() => 0);
  const before = row?.comparison?.metrics;
  const tiles: Tiles = {};
  for (const m of only) {
    const value = m === "events" ? customEvents(metrics, now) : now[metrics.indexOf(m)]!;
    const prior = before === undefined ? undefined : m === "events" ? customEvents(metrics, before) : before[metrics.indexOf(m)];
    tiles[m] = { value, change: comparisons ? tileChange(m, value, prior) : null };
  }
  return tiles;
}

/** The rollups' stats as tiles (visitors, pageviews, events, hits). */
export function tilesFromStats(stats: Stats): Tiles {
  const tiles: Tiles = {};
  for (const m of ["visitors", "pageviews", "events", "hits"] as const) tiles[m] = { value: stats.current[m], change: stats.change[m].value, basis: stats.change[m].basis };
  return tiles;
}

export interface SeriesBucket {
  /** The bucket's start as an ISO instant whose UTC wall time is the site's local time (how the chart labels it). */
  bucket: string;
  values: Record<"visitors" | "pageviews" | "events" | "hits", number>;
  previous: Record<"visitors" | "pageviews" | "events" | "hits", number> | null;
}

const SERIES_METRICS = ["visitors", "pageviews", "events", "hits"];
const seriesValues = (m: readonly number[]) => ({ visitors: m[0]!, pageviews: m[1]!, events: m[2]! - m[1]!, hits: m[3]! });

/**
 * The chart's buckets: hourly for today and the last 24 hours, daily otherwise (the chart adds days up into
 * weeks and months for long ranges, lib/series.ts), each with the comparison's bucket at the same place.
 */
export async function seriesQuery(scope: QueryScope, signal?: AbortSignal): Promise<{ granularity: "hour" | "day"; buckets: SeriesBucket[] }> {
  const hourly = scope.view.hours !== null || scope.view.period === "today";
  const comparisons = comparisonBody(scope.view);
  const answer = await runQuery({
    ...scopeBody(scope),
    metrics: SERIES_METRICS,
    dimensions: [hourly ? "time:hour" : "time:day"],
    include: { time_labels: true, ...(comparisons ? { comparisons } : {}) },
  }, "chart", signal);
  const byLabel = new Map(answer.results.map((r) => [r.dimensions[0]!, r]));
  let labels = (answer.meta["time_labels"] as string[] | undefined) ?? answer.results.map((r) => r.dimensions[0]!);
  // The rolling 24 hours: the engine labels both local days it touches; the chart shows the hours it holds.
  const [start, end] = (answer.query.date_range ?? []).map((iso) => iso.replace("T", " ").slice(0, 13));
  if (scope.view.hours !== null && start && end) labels = labels.filter((l) => l.slice(0, 13) >= start && l.slice(0, 13) <= end);
  const buckets = labels.map((label) => {
    const row = byLabel.get(label);
    return {
      bucket: `${label.slice(0, 10)}T${hourly ? label.slice(11, 19) : "00:00:00"}.000Z`,
      values: seriesValues(row?.metrics ?? [0, 0, 0, 0]),
      previous: comparisons ? seriesValues(row?.comparison?.metrics ?? [0, 0, 0, 0]) : null,
    };
  });
  return { granularity: hourly ? "hour" : "day", buckets };
}

export type Series = Awaited<ReturnType<typeof seriesQuery>>;

/** Where askViewNumbers's answers go; none is called once the signal aborted (a newer view withdrew them). */
export interface ViewNumbers {
  tiles(tiles: Tiles): void;
  series(series: Series): void;
  /** The per-visit tiles beside the rollups' reads; empty when they could not be read. */
  visitTiles(tiles: Tiles): void;
  failed(error: unknown, of: "tiles" | "series"): void;
}

/**
 * The tiles' and the chart's questions of a view (the owner's and a shared link's): a view the rollups cannot
 * answer (needsEngine) asks the query API for every tile and the chart, tiles first (lib/query-queue.ts), and
 * answers true; another asks only the per-visit tiles and answers false, its other numbers being the rollups'.
 */
export function askViewNumbers(scope: QueryScope, signal: AbortSignal, to: ViewNumbers): boolean {
  const current = () => !signal.aborted;
  if (needsEngine(scope.view)) {
    tileQuery(scope, undefined, signal).then((t) => current() && to.tiles(t), (e: unknown) => current() && to.failed(e, "tiles"));
    seriesQuery(scope, signal).then((r) => current() && to.series(r), (e: unknown) => current() && to.failed(e, "series"));
    return true;
  }
  tileQuery(scope, VISIT_TILES, signal).then((t) => current() && to.visitTiles(t), () => current() && to.visitTiles({}));
  return false;
}

/**
 * The rows of one query dimension, `limit` by visitors from `offset` (the full list's pages), in the rollup
 * breakdown's shape (`events` for event names).
 */
export async function breakdownQuery(scope: QueryScope, dimension: string, page: { limit: number; offset?: number; search?: string }, signal?: AbortSignal): Promise<BreakdownRow[]> {
  const comparisons = comparisonBody(scope.view);
  const body = scopeBody(scope);
  // The full list's search: the values that contain the text, in any case, asked of the engine (the list is paged).
  const search = page.search ? [["contains", dimension, [page.search], { case_sensitive: false }]] : [];
  const answer = await runQuery({
    ...body,
    filters: [...(body["filters"] as unknown[]), ...search],
    metrics: SERIES_METRICS,
    dimensions: [dimension],
    order_by: [["visitors", "desc"], ["pageviews", "desc"], ["hits", "desc"]],
    pagination: { limit: page.limit, offset: page.offset ?? 0 },
    include: comparisons ? { comparisons } : {},
  }, "card", signal);
  const isEvent = dimension === "event:name";
  return answer.results.map((r) => {
    const [visitors, pageviews, events, hits] = r.metrics as [number, number, number, number];
    const change = r.comparison ? tileChange("visitors", visitors, r.comparison.metrics[0]) : undefined;
    const base = { value: r.dimensions[0]!, label: r.dimensions[0]!, visitors, hits, ...(change !== undefined ? { change } : {}) };
    return isEvent ? { ...base, events } : { ...base, pageviews };
  });
}

/** The lanes' "visitors now": a visitor with a row in the last 5 minutes (gateway lanes, share counter). */
export const RECENT_MS = 300_000;

/**
 * "Visitors now" of a filtered view: the distinct visitors of the view's actor with at least one row passing
 * its filters in the last 5 minutes, counted by the query API over those date-times. The live stream's
 * snapshot and deltas count the whole site per actor (no dimension values together in one row), so only the
 * rows themselves can say who of the recent visitors matches; the shared link's counter counts a filtered
 * link's so (gateway shares/filtered-reads.ts filteredRecentVisitors).
 */
export async function recentVisitorsQuery(scope: QueryScope, signal?: AbortSignal, now = Date.now()): Promise<number> {
  const answer = await runQuery({ ...scopeBody(scope), date_range: [new Date(now - RECENT_MS).toISOString(), new Date(now).toISOString()], metrics: ["visitors"] }, "card", signal);
  return answer.results[0]?.metrics[0] ?? 0;
}

/**
 * 30 s: with no new matching row, visitors still leave the 5 minutes; recounted this often, the figure is
 * never more than 30 s behind (a matching row makes the view count again within 5 s, on its live tick).
 */
const RECOUNT_MS = 30_000;

/**
 * Counts the filtered view's visitors now once the view's own queries are answered (after its tiles, chart and
 * cards: never ahead of them in the queue), then every 30 s, to `onCount`; the function returned stops it.
 */
export function watchRecentVisitors(scope: QueryScope, onCount: (visitors: number) => void): () => void {
  const asked = new AbortController();
  const count = () =>
    void afterViewQueries()
      .then(() => (asked.signal.aborted ? null : recentVisitorsQuery(scope, asked.signal)))
      .then((n) => n !== null && !asked.signal.aborted && onCount(n), () => {});
  count();
  const timer = setInterval(count, RECOUNT_MS);
  return () => {
    asked.abort();
    clearInterval(timer);
  };
}
