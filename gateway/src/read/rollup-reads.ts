// Every read of the dashboards and the MCP server, answered from rollup_daily / rollup_hourly only; raw rows
// are never scanned. Each function is one SQL statement on the (site_id, dim, actor, bucket) indexes, named
// so PostgreSQL plans it once per connection. Sums come back as float8: exact up to 2^53 counts.
import type pg from "pg";
import type { ActorLabel } from "../api-schema/common.ts";
import type { DayRange } from "./window.ts";

export interface Counts {
  visitors: number;
  pageviews: number;
  events: number;
  hits: number;
}

export const zeroCounts = (): Counts => ({ visitors: 0, pageviews: 0, events: 0, hits: 0 });

interface CountRow {
  bucket: Date;
  visitors: number;
  pageviews: number;
  events: number;
  hits: number;
}

const toCounts = (r: CountRow): Counts => ({ visitors: r.visitors, pageviews: r.pageviews, events: r.events, hits: r.hits });

/** dim 'total' per UTC day over [from, to], keyed by ms at 00:00 UTC. Days without rows are absent. */
export async function dailyTotals(pool: pg.Pool, siteId: number, actors: readonly ActorLabel[], range: DayRange): Promise<Map<number, Counts>> {
  const { rows } = await pool.query<CountRow>({
    name: "svc_read_daily_totals",
    text: `select bucket::timestamp at time zone 'UTC' as bucket, sum(visitors)::float8 as visitors, sum(pageviews)::float8 as pageviews,
                  sum(events)::float8 as events, sum(hits)::float8 as hits
             from rollup_daily
            where site_id = $1 and dim = 'total' and actor = any($2::text[]) and bucket between $3::date and $4::date
            group by bucket`,
    values: [siteId, actors, range.from, range.to],
  });
  return new Map(rows.map((r) => [r.bucket.getTime(), toCounts(r)]));
}

/** dim 'total' per UTC hour over [fromMs, toMs], keyed by ms. Visitors are distinct within each hour. */
export async function hourlyTotals(pool: pg.Pool, siteId: number, actors: readonly ActorLabel[], fromMs: number, toMs: number): Promise<Map<number, Counts>> {
  const { rows } = await pool.query<CountRow>({
    name: "svc_read_hourly_totals",
    text: `select bucket, sum(visitors)::float8 as visitors, sum(pageviews)::float8 as pageviews,
                  sum(events)::float8 as events, sum(hits)::float8 as hits
             from rollup_hourly
            where site_id = $1 and dim = 'total' and actor = any($2::text[]) and bucket between $3 and $4
            group by bucket`,
    values: [siteId, actors, new Date(fromMs), new Date(toMs)],
  });
  return new Map(rows.map((r) => [r.bucket.getTime(), toCounts(r)]));
}

export interface ValueCounts extends Counts {
  value: string;
}

/**
 * The top `limit` values of one dimension over a window: by visitors, then pageviews, then the other counts,
 * then value, so equal rows keep a stable order.
 */
export async function topValues(
  pool: pg.Pool,
  siteId: number,
  dim: string,
  actors: readonly ActorLabel[],
  range: DayRange,
  limit: number,
): Promise<ValueCounts[]> {
  const { rows } = await pool.query<ValueCounts>({
    name: "svc_read_top_values",
    text: `select value, sum(visitors)::float8 as visitors, sum(pageviews)::float8 as pageviews,
                  sum(events)::float8 as events, sum(hits)::float8 as hits
             from rollup_daily
            where site_id = $1 and dim = $2 and actor = any($3::text[]) and bucket between $4::date and $5::date
            group by value
            order by 2 desc, 3 desc, sum(events + hits) desc, value
            limit $6`,
    values: [siteId, dim, actors, range.from, range.to, limit],
  });
  return rows;
}

/** Counts of the given event names (dim 'event'), for goals. Names without events are absent. */
export async function eventCounts(pool: pg.Pool, siteId: number, actors: readonly ActorLabel[], range: DayRange, names: readonly string[]): Promise<Map<string, Counts>> {
  if (names.length === 0) return new Map();
  const { rows } = await pool.query<ValueCounts>({
    name: "svc_read_event_counts",
    text: `select value, sum(visitors)::float8 as visitors, sum(pageviews)::float8 as pageviews,
                  sum(events)::float8 as events, sum(hits)::float8 as hits
             from rollup_daily
            where site_id = $1 and dim = 'event' and actor = any($2::text[]) and bucket between $3::date and $4::date
              and value = any($5::text[])
            group by value`,
    values: [siteId, actors, range.from, range.to, names],
  });
  return new Map(rows.map((r) => [r.value, r]));
}

/** One (actor, dimension) slice of the AI panel. */
export type AiSlice = "assistant_total" | "assistants" | "crawler_total" | "crawlers" | "agent_total" | "agents" | "agent_status" | "agent_pages";

export interface AiRow extends ValueCounts {
  slice: AiSlice | "crawl_referral";
}

const BY_VISITORS = "sum(visitors) desc, sum(pageviews + events + hits) desc, value";
const BY_FETCHES = "sum(hits + pageviews) desc, sum(visitors) desc, value";

// Which rollup (actor, dim) feeds each slice of the AI panel, and how its top `limit` rows are chosen.
const AI_SLICES: ReadonlyArray<readonly [AiSlice, ActorLabel, string, string]> = [
  ["assistant_total", "human_via_ai", "total", "value"],
  ["assistants", "human_via_ai", "ai_name", BY_VISITORS],
  ["crawler_total", "ai_crawler", "total", "value"],
  ["crawlers", "ai_crawler", "ai_name", BY_FETCHES],
  ["agent_total", "ai_agent", "total", "value"],
  ["agents", "ai_agent", "ai_name", BY_FETCHES],
  ["agent_status", "ai_agent", "status_class", "value"],
  ["agent_pages", "ai_agent", "page", BY_FETCHES],
];

const SUMS = "sum(visitors)::float8 as visitors, sum(pageviews)::float8 as pageviews, sum(events)::float8 as events, sum(hits)::float8 as hits";
const slicePages = (actor: ActorLabel, having: string) =>
  `select value, sum(visitors) as visitors, sum(pageviews) as pageviews, sum(hits) as hits from rollup_daily
    where site_id = $1 and dim = 'page' and actor = '${actor}' and bucket between $2::date and $3::date
    group by value having ${having}`;

// One branch per slice (UNION ALL) rather than one OR-ed filter, so each branch is an index range scan.
// crawl_referral joins the crawler and assistant-visitor page slices: visitors = referred visitors,
// pageviews = referred pageviews, hits = crawler hits on the page.
const AI_SQL = [
  ...AI_SLICES.map(
    ([slice, actor, dim, order]) =>
      `(select '${slice}' as slice, value, ${SUMS}
          from rollup_daily
         where site_id = $1 and dim = '${dim}' and actor = '${actor}' and bucket between $2::date and $3::date
         group by value order by ${order} limit $4)`,
  ),
  `(select 'crawl_referral' as slice, coalesce(c.value, r.value) as value, coalesce(r.visitors, 0)::float8 as visitors,
           coalesce(r.pageviews, 0)::float8 as pageviews, 0::float8 as events, coalesce(c.hits, 0)::float8 as hits
      from (${slicePages("ai_crawler", "sum(hits) > 0")}) c full join (${slicePages("human_via_ai", "sum(visitors) > 0")}) r on r.value = c.value
     order by coalesce(c.hits, 0) desc, coalesce(r.visitors, 0) desc, 2 limit $4)`,
].join("\nunion all\n");

/** Every row the AI panel needs, in one round trip: each list's top `limit` rows. */
export async function aiRollups(pool: pg.Pool, siteId: number, range: DayRange, limit: number): Promise<AiRow[]> {
  const { rows } = await pool.query<AiRow>({ name: "svc_read_ai", text: AI_SQL, values: [siteId, range.from, range.to, limit] });
  return rows;
}
