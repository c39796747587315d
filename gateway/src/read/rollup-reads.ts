// Every read of the dashboards and the MCP server, answered from rollup_daily / rollup_hourly only; raw rows
// are never scanned. Each function is one SQL statement on the (site_id, dim, actor, bucket) indexes, named
// so PostgreSQL plans it once per connection.
//
// Sums are taken over int8 casts of the bigint columns: sum(bigint) accumulates in numeric, which made the
// aggregation of a 30-day page breakdown (60,000 rows) about 20 % slower; sum(int8::int4) is not safe for
// large sites, so the cast is to float8, exact for counts below 2^53.
import type pg from "pg";
import type { ActorLabel } from "../api-schema/common.ts";
import type { DayRange } from "./window.ts";
import type { Counts } from "../rollups/counts.ts";

interface CountRow extends Counts {
  bucket: Date;
}

const toCounts = (r: CountRow): Counts => ({ visitors: r.visitors, pageviews: r.pageviews, events: r.events, hits: r.hits });

const SUMS = "sum(visitors::float8) as visitors, sum(pageviews::float8) as pageviews, sum(events::float8) as events, sum(hits::float8) as hits";

/** dim 'total' per UTC day over [from, to] for the rollup actors given (`all` included), keyed by ms at 00:00 UTC. Days without rows are absent. */
export async function dailyTotals(pool: pg.Pool, siteId: number, actors: readonly string[], range: DayRange): Promise<Map<number, Counts>> {
  const { rows } = await pool.query<CountRow>({
    name: "svc_read_daily_totals",
    text: `select bucket::timestamp at time zone 'UTC' as bucket, ${SUMS}
             from rollup_daily
            where site_id = $1 and dim = 'total' and actor = any($2::text[]) and bucket between $3::date and $4::date
            group by bucket`,
    values: [siteId, actors, range.from, range.to],
  });
  return new Map(rows.map((r) => [r.bucket.getTime(), toCounts(r)]));
}

/** dim 'total' per UTC hour over [fromMs, toMs], keyed by ms. Visitors are distinct within each hour. */
export async function hourlyTotals(pool: pg.Pool, siteId: number, actors: readonly string[], fromMs: number, toMs: number): Promise<Map<number, Counts>> {
  const { rows } = await pool.query<CountRow>({
    name: "svc_read_hourly_totals",
    text: `select bucket, ${SUMS}
             from rollup_hourly
            where site_id = $1 and dim = 'total' and actor = any($2::text[]) and bucket between $3 and $4
            group by bucket`,
    values: [siteId, actors, new Date(fromMs), new Date(toMs)],
  });
  return new Map(rows.map((r) => [r.bucket.getTime(), toCounts(r)]));
}

/** One UTC day's totals (dim 'total') per rollup actor, `all` included: the live stream's opening snapshot. */
export async function actorTotalsOfDay(pool: pg.Pool, siteId: number, day: string): Promise<Array<{ actor: string } & Counts>> {
  const { rows } = await pool.query<{ actor: string } & Counts>({
    name: "svc_read_actor_totals_of_day",
    text: `select actor, pageviews::int, events::int, hits::int, visitors::int from rollup_daily
            where site_id = $1 and bucket = $2 and dim = 'total' and value = ''`,
    values: [siteId, day],
  });
  return rows;
}

export interface ValueCounts extends Counts {
  value: string;
}

/** Every value of one dimension over a window with its sums (unordered: the caller ranks after merging). */
export async function valueSums(pool: pg.Pool, siteId: number, dim: string, actors: readonly ActorLabel[], range: DayRange): Promise<ValueCounts[]> {
  const { rows } = await pool.query<ValueCounts>({
    name: "svc_read_value_sums",
    text: `select value, ${SUMS}
             from rollup_daily
            where site_id = $1 and dim = $2 and actor = any($3::text[]) and bucket between $4::date and $5::date
            group by value`,
    values: [siteId, dim, actors, range.from, range.to],
  });
  return rows;
}

/** Counts of the given event names (dim 'event'), for goals. Names without events are absent. */
export async function eventCounts(pool: pg.Pool, siteId: number, actors: readonly ActorLabel[], range: DayRange, names: readonly string[]): Promise<Map<string, Counts>> {
  if (names.length === 0) return new Map();
  const { rows } = await pool.query<ValueCounts>({
    name: "svc_read_event_counts",
    text: `select value, ${SUMS}
             from rollup_daily
            where site_id = $1 and dim = 'event' and actor = any($2::text[]) and bucket between $3::date and $4::date
              and value = any($5::text[])
            group by value`,
    values: [siteId, actors, range.from, range.to, names],
  });
  return new Map(rows.map((r) => [r.value, r]));
}

/** One (actor, dimension) slice of the AI panel. */
export type AiSlice =
  | "assistant_total" | "assistants" | "referred_pages"
  | "crawler_total" | "crawlers" | "crawled_pages"
  | "agent_total" | "agents" | "agent_status" | "agent_pages";

export interface AiRow extends ValueCounts {
  slice: AiSlice;
}

// Which rollup (actor, dim) feeds each slice of the AI panel.
const AI_SLICES: ReadonlyArray<readonly [AiSlice, ActorLabel, string]> = [
  ["assistant_total", "human_via_ai", "total"],
  ["assistants", "human_via_ai", "ai_name"],
  ["referred_pages", "human_via_ai", "page"],
  ["crawler_total", "ai_crawler", "total"],
  ["crawlers", "ai_crawler", "ai_name"],
  ["crawled_pages", "ai_crawler", "page"],
  ["agent_total", "ai_agent", "total"],
  ["agents", "ai_agent", "ai_name"],
  ["agent_status", "ai_agent", "status_class"],
  ["agent_pages", "ai_agent", "page"],
];

// One branch per slice (UNION ALL) rather than one OR-ed filter, so each branch is an index range scan.
const AI_SQL = AI_SLICES.map(
  ([slice, actor, dim]) =>
    `select '${slice}' as slice, value, ${SUMS}
       from rollup_daily
      where site_id = $1 and dim = '${dim}' and actor = '${actor}' and bucket between $2::date and $3::date
      group by value`,
).join("\nunion all\n");

/** Every row the AI panel needs, in one round trip, fully aggregated (the panel ranks and joins them). */
export async function aiRollups(pool: pg.Pool, siteId: number, range: DayRange): Promise<AiRow[]> {
  const { rows } = await pool.query<AiRow>({ name: "svc_read_ai", text: AI_SQL, values: [siteId, range.from, range.to] });
  return rows;
}
