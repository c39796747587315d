// Shapes rollup sums into the read routes' responses: totals with their previous window and change, the
// zero-filled series, breakdown rows with readable labels, the AI panel and goal conversions.
import { aiAgents, aiCrawlers, assistants, automationMarkers, blankLabel, ruleLabel, webviews } from "@svc/core";
import type pg from "pg";
import type { ActorChoice, Derived } from "../api-schema/common.ts";
import type { AiResponse, BreakdownField, BreakdownResponse, StatsResponse } from "../api-schema/read.ts";
import { type AiRow, type ValueCounts, aiRollups, bucketTotals, eventCounts, valueSums } from "./rollup-reads.ts";
import { type Counts, addCounts, zeroCounts } from "../rollups/counts.ts";
import { type SettledCache, splitSettled } from "./settled-cache.ts";
import { visitorBudgetDays } from "../storage/budget-days.ts";
import { type ReadWindow, type Span, bothSpans, windowBuckets } from "./window.ts";

// Hourly series up to 2 days (≤ 48 points); beyond that a daily one (≤ 366 points).
const HOURLY_MAX_DAYS = 2;

const ratio = (num: number, den: number, basis: Derived["basis"]): Derived => ({ value: den === 0 ? null : round(num / den), basis });
const change = (cur: number | null, prev: number | null): Derived => ({
  value: cur === null || prev === null || prev === 0 ? null : round((cur - prev) / prev),
  basis: "observed",
});
// 4 decimals: a change of 0.01 % is the finest a dashboard shows; longer fractions are noise in JSON.
const round = (x: number): number => Math.round(x * 10_000) / 10_000;

function totals(counts: Counts, basis: Derived["basis"]): typeof StatsResponse.Type.current {
  return { ...counts, views_per_visitor: ratio(counts.pageviews, counts.visitors, basis) };
}

const isoStart = (span: Span) => (span.grain === "hour" ? { start: new Date(span.fromMs).toISOString() } : {});

/** The window a read answered for, as every read response echoes it (api-schema/common.ts WindowEcho). */
export const windowEcho = (w: ReadWindow) => ({
  days: w.days,
  from: w.from,
  to: w.to,
  ...(w.hours === null ? {} : { hours: w.hours, ...isoStart(w.current) }),
  ...(w.timeZone === undefined ? {} : { time_zone: w.timeZone, start: new Date(w.startMs).toISOString() }),
});

const echo = (siteId: number, actor: ActorChoice, w: ReadWindow) => ({ site_id: siteId, actor, ...windowEcho(w) });

export async function statsReport(pool: pg.Pool, siteId: number, actor: ActorChoice, w: ReadWindow): Promise<typeof StatsResponse.Type> {
  const grain = statsGrain(w);
  const buckets = windowBuckets(w, grain);
  const [both, hours, inferredDays] = await Promise.all([
    bucketTotals(pool, siteId, w.totalActors, bothSpans(w)),
    // A days window sums exact days, and draws its hourly series from a second read.
    grain === "hour" && w.hours === null ? bucketTotals(pool, siteId, w.totalActors, { grain: "hour", fromMs: w.startMs, toMs: w.currentHourMs }) : null,
    visitorBudgetDays(pool, siteId, { from: w.from, to: w.to }),
  ]);
  const current = zeroCounts();
  const previous = zeroCounts();
  for (const [bucket, counts] of both) addCounts(bucket >= w.startMs ? current : previous, counts, counts.visitors);
  // A zoned window read hours: a daily series folds them into its local days.
  const perBucket = hours ?? (grain === "day" && w.dayStarts !== undefined ? foldInto(both, buckets) : both);
  // Visitors are exact per day for one actor and for `all` alike (its own all-actor counter, rollup-state.ts),
  // except on days the site went past its visitor budget (lanes/state-budget.ts): an upper bound there. An
  // hours window sums visitors distinct per hour, so one visitor seen in two hours counts twice: an upper bound too;
  // so does `humans`, summed over its two actors.
  const inferred = inferredDays.length > 0 || w.hours !== null || actor === "humans" || w.timeZone !== undefined;
  return statsResponse(siteId, actor, w, { current, previous, grain, perBucket, inferred, inferredDays });
}

export const statsGrain = (w: ReadWindow): "hour" | "day" => (w.hours !== null || w.days <= HOURLY_MAX_DAYS ? "hour" : "day");

/** A stats response from a window's sums: totals, the previous window's, their change and the zero-filled series. */
export function statsResponse(
  siteId: number,
  actor: ActorChoice,
  w: ReadWindow,
  sums: { current: Counts; previous: Counts; grain: "hour" | "day"; perBucket: ReadonlyMap<number, Counts>; inferred: boolean; inferredDays: readonly string[] },
): typeof StatsResponse.Type {
  const { current, previous, grain, perBucket, inferred, inferredDays } = sums;
  const basis: Derived["basis"] = inferred ? "inferred" : "observed";
  const cur = totals(current, basis);
  const prev = totals(previous, basis);
  return {
    ...echo(siteId, actor, w),
    ...(inferred ? { visitors_basis: "inferred" as const } : {}),
    ...(inferredDays.length > 0 ? { visitors_inferred_days: [...inferredDays] } : {}),
    current: cur,
    previous: { from: w.previous.from, to: w.previous.to, ...isoStart(w.prior), totals: prev },
    change: {
      visitors: { ...change(cur.visitors, prev.visitors), basis },
      pageviews: change(cur.pageviews, prev.pageviews),
      events: change(cur.events, prev.events),
      hits: change(cur.hits, prev.hits),
      views_per_visitor: { ...change(cur.views_per_visitor.value, prev.views_per_visitor.value), basis },
    },
    granularity: grain,
    series: windowBuckets(w, grain).map((t) => ({ bucket: new Date(t).toISOString(), ...(perBucket.get(t) ?? zeroCounts()) })),
  };
}

/** Sums hour buckets into the buckets starting at `starts` (ascending); hours before the first are left out. */
function foldInto(hours: ReadonlyMap<number, Counts>, starts: readonly number[]): Map<number, Counts> {
  const out = new Map<number, Counts>();
  for (const [hour, counts] of hours) {
    let i = starts.length - 1;
    while (i >= 0 && starts[i]! > hour) i--;
    if (i < 0) continue;
    const into = out.get(starts[i]!) ?? zeroCounts();
    out.set(starts[i]!, addCounts(into, counts, counts.visitors));
  }
  return out;
}

/** Where a read gets its rollups: the pool, and the cache of settled days' sums (settled-cache.ts). */
export interface RollupSource {
  readonly pool: pg.Pool;
  readonly cache: SettledCache;
  readonly now: () => number;
}

/**
 * The sums of a window by `id`: for whole days, settled days from the cache (one load per TTL) and the live
 * days from the database, merged; an hours window (at most 48 hour buckets) is read whole. Cached rows are
 * never mutated: a merged row is a new object.
 */
export async function windowSums<T extends ValueCounts>(
  src: RollupSource,
  key: string,
  span: Span,
  load: (span: Span) => Promise<readonly T[]>,
  id: (row: T) => string,
): Promise<ReadonlyMap<string, T>> {
  const byId = (rows: readonly T[]) => new Map(rows.map((row) => [id(row), row] as const));
  if (span.grain === "hour") return byId(await load(span));
  const { settled, live } = splitSettled(span, src.now());
  const [old, recent] = await Promise.all([
    settled ? src.cache.get(`${key}|${settled.from}|${settled.to}`, async () => byId(await load({ grain: "day", ...settled }))) : null,
    live ? load({ grain: "day", ...live }) : null,
  ]);
  if (!recent) return old ?? new Map();
  const merged = new Map(old ?? []);
  for (const row of recent) {
    const k = id(row);
    const m = merged.get(k);
    merged.set(k, m ? addCounts({ ...m }, row, row.visitors) : row);
  }
  return merged;
}

const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
/** Visitors, then pageviews, then the other counts, then value: equal rows keep a stable order. */
const BY_VISITORS = (a: ValueCounts, b: ValueCounts) =>
  b.visitors - a.visitors || b.pageviews - a.pageviews || b.events + b.hits - (a.events + a.hits) || byCodePoint(a.value, b.value);
/** Fetches (middleware hits + script pageviews), then visitors, then value. */
const BY_FETCHES = (a: ValueCounts, b: ValueCounts) =>
  b.hits + b.pageviews - (a.hits + a.pageviews) || b.visitors - a.visitors || byCodePoint(a.value, b.value);

const top = <T extends ValueCounts>(rows: Iterable<T>, order: (a: T, b: T) => number, limit: number): T[] => [...rows].sort(order).slice(0, limit);

export async function breakdownReport(
  src: RollupSource,
  siteId: number,
  actor: ActorChoice,
  w: ReadWindow,
  field: BreakdownField,
  limit: number,
): Promise<typeof BreakdownResponse.Type> {
  const sums = await windowSums(src, `values|${siteId}|${field}|${w.actors.join(",")}|${w.visitorActors.join(",")}`, w.current, (span) => valueSums(src.pool, siteId, field, w.actors, span, w.visitorActors), (row) => row.value);
  return {
    ...echo(siteId, actor, w),
    field,
    rows: top(sums.values(), BY_VISITORS, limit).map((r) => breakdownRow(field, r)),
  };
}

/** One breakdown row of a value's counts, labelled (the rollups' and a filtered shared link's breakdowns). */
export function breakdownRow(field: BreakdownField, r: ValueCounts): (typeof BreakdownResponse.Type)["rows"][number] {
  // rollup-state.ts stores a missing value as "": labelled as the query API labels it (core's blankLabel).
  const label = r.value === "" ? blankLabel(field) : field === "rule" ? ruleLabel(r.value) : r.value;
  return field === "event"
    ? { value: r.value, label, visitors: r.visitors, events: r.pageviews + r.events, hits: r.hits }
    : { value: r.value, label, visitors: r.visitors, pageviews: r.pageviews, hits: r.hits };
}

// Name → operator for every named AI actor; the same name is never listed by two operators in the tables.
const OPERATORS: ReadonlyMap<string, string> = new Map(
  [...aiCrawlers, ...aiAgents, ...automationMarkers, ...webviews, ...assistants].map((t) => [t.name, t.operator] as const),
);
export const operatorOf = (name: string): string | null => OPERATORS.get(name) ?? null;

export async function aiReport(src: RollupSource, siteId: number, w: ReadWindow, limit: number): Promise<typeof AiResponse.Type> {
  const rows = await windowSums(src, `ai|${siteId}`, w.current, (span) => aiRollups(src.pool, siteId, span), (row) => `${row.slice}\u0000${row.value}`);
  return aiPanel(siteId, w, rows.values(), limit, { statusKnown: true });
}

/**
 * The AI panel made of its slices' rows (a slice's `total` row first), ranked and joined: the rollups' rows, or
 * the query engine's for a filtered shared link (shares/filtered-reads.ts), whose rows carry no HTTP status —
 * then `agent_tasks.status` is null and the error share unknown.
 */
export function aiPanel(siteId: number, w: ReadWindow, rows: Iterable<AiRow>, limit: number, options: { readonly statusKnown: boolean }): typeof AiResponse.Type {
  const slices = new Map<AiRow["slice"], AiRow[]>();
  for (const r of rows) {
    let list = slices.get(r.slice);
    if (!list) slices.set(r.slice, (list = []));
    list.push(r);
  }
  const slice = (name: AiRow["slice"]): readonly AiRow[] => slices.get(name) ?? [];
  const total = (name: AiRow["slice"]): Counts => slice(name)[0] ?? zeroCounts();
  const status = { "2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0 };
  for (const r of slice("agent_status")) if (r.value in status) status[r.value as keyof typeof status] = r.hits;
  const statusHits = status["2xx"] + status["3xx"] + status["4xx"] + status["5xx"];
  const assistantTotal = total("assistant_total");
  const agentTotal = total("agent_total");

  // Crawl-to-referral: pages with AI crawler hits, or with visitors referred by an assistant, joined on the page.
  const pages = new Map<string, { page: string; crawled: number; referred: number; referred_pageviews: number }>();
  const pageRow = (page: string) => {
    let row = pages.get(page);
    if (!row) pages.set(page, (row = { page, crawled: 0, referred: 0, referred_pageviews: 0 }));
    return row;
  };
  for (const r of slice("crawled_pages")) if (r.hits > 0) pageRow(r.value).crawled = r.hits;
  for (const r of slice("referred_pages")) {
    if (r.visitors === 0) continue;
    const row = pageRow(r.value);
    row.referred = r.visitors;
    row.referred_pageviews = r.pageviews;
  }
  const crawlToReferral = [...pages.values()]
    .sort((a, b) => b.crawled - a.crawled || b.referred - a.referred || byCodePoint(a.page, b.page))
    .slice(0, limit)
    .map((p) => ({ ...p, never_referred: p.crawled > 0 && p.referred === 0 }));

  return {
    site_id: siteId,
    ...windowEcho(w),
    assistants: {
      visitors: assistantTotal.visitors,
      pageviews: assistantTotal.pageviews,
      rows: top(slice("assistants"), BY_VISITORS, limit).map((r) => ({ name: r.value, operator: operatorOf(r.value), visitors: r.visitors, pageviews: r.pageviews })),
    },
    crawlers: {
      hits: total("crawler_total").hits,
      rows: top(slice("crawlers"), BY_FETCHES, limit).map((r) => ({ name: r.value, operator: operatorOf(r.value), hits: r.hits })),
    },
    agents: {
      fetches: agentTotal.hits + agentTotal.pageviews,
      rows: top(slice("agents"), BY_FETCHES, limit).map((r) => ({ name: r.value, operator: operatorOf(r.value), fetches: r.hits + r.pageviews, visitors: r.visitors })),
    },
    crawl_to_referral: crawlToReferral,
    agent_tasks: {
      fetches: agentTotal.hits + agentTotal.pageviews,
      status: options.statusKnown ? status : null,
      error_share: options.statusKnown ? ratio(status["4xx"] + status["5xx"], statusHits, "observed") : { value: null, basis: "observed" },
      top_paths: top(slice("agent_pages"), BY_FETCHES, limit).map((r) => ({ page: r.value, fetches: r.hits + r.pageviews })),
    },
  };
}

export interface GoalConversions {
  conversions: number;
  visitors: number;
}

/**
 * Conversions of each goal name: the events of that exact name (a goal named `pageview` counts pageviews),
 * with their visitors distinct per day (per hour for an hours window) and summed over the window.
 */
export async function goalConversions(pool: pg.Pool, siteId: number, w: ReadWindow, names: readonly string[]): Promise<Map<string, GoalConversions>> {
  const counts = await eventCounts(pool, siteId, w.actors, w.current, names);
  return new Map(names.map((n) => {
    const c = counts.get(n);
    return [n, { conversions: c ? c.pageviews + c.events : 0, visitors: c?.visitors ?? 0 }];
  }));
}
