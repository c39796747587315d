// Rollup writes: the counts the site actors accumulated for committed rows, added to rollup_hourly and
// rollup_daily in one transaction together with the repair mark (sql/006_rollup_repair.sql).
import type pg from "pg";
import type { RollupDelta } from "./rows.ts";
import { withTransaction } from "./transaction.ts";

const UPSERT_SET = `
  on conflict (site_id, bucket, actor, dim, value) do update set
    pageviews = t.pageviews + excluded.pageviews,
    events    = t.events    + excluded.events,
    hits      = t.hits      + excluded.hits,
    visitors  = t.visitors  + excluded.visitors`;

// One named statement upserts both rollup tables: one round trip instead of two. Parsed and planned once
// per connection.
const UPSERT_ROLLUPS = {
  name: "svc_rollup_upsert",
  text: `with hourly as (
      insert into rollup_hourly as t (site_id, bucket, actor, dim, value, pageviews, events, hits, visitors)
      select * from unnest($1::int[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[])
      ${UPSERT_SET}
    )
    insert into rollup_daily as t (site_id, bucket, actor, dim, value, pageviews, events, hits, visitors)
    select * from unnest($10::int[], $11::date[], $12::text[], $13::text[], $14::text[], $15::bigint[], $16::bigint[], $17::bigint[], $18::bigint[])
    ${UPSERT_SET}`,
};

const DAY_MS = 86_400_000;

interface MergedRollup {
  site_id: number;
  bucket: number;
  actor: string;
  dim: string;
  value: string;
  pageviews: number;
  events: number;
  hits: number;
  visitors: number;
}

/** The identity of one rollup row: site, bucket (ms), actor, dimension, value. */
export function rollupKey(siteId: number, bucket: number, actor: string, dim: string, value: string): string {
  return `${siteId}\u0000${bucket}\u0000${actor}\u0000${dim}\u0000${value}`;
}

/**
 * Sums the deltas that share a key (an upsert may touch a row only once), then sorts the keys so that any
 * two transactions touch rollup rows in the same order and wait for each other instead of deadlocking.
 */
export function mergeRollups(deltas: readonly RollupDelta[], granularity: "hour" | "day"): MergedRollup[] {
  const merged = new Map<string, MergedRollup>();
  for (const d of deltas) {
    const bucket = granularity === "hour" ? d.hour : d.hour - (((d.hour % DAY_MS) + DAY_MS) % DAY_MS);
    const visitors = granularity === "hour" ? d.visitors_hour : d.visitors_day;
    const key = rollupKey(d.site_id, bucket, d.actor, d.dim, d.value);
    const row = merged.get(key);
    if (row === undefined) {
      merged.set(key, { site_id: d.site_id, bucket, actor: d.actor, dim: d.dim, value: d.value, pageviews: d.pageviews, events: d.events, hits: d.hits, visitors });
    } else {
      row.pageviews += d.pageviews;
      row.events += d.events;
      row.hits += d.hits;
      row.visitors += visitors;
    }
  }
  const rows: MergedRollup[] = [];
  for (const row of merged.values()) {
    if (row.pageviews !== 0 || row.events !== 0 || row.hits !== 0 || row.visitors !== 0) rows.push(row);
  }
  return rows.sort(compareRollupKeys);
}

function compareRollupKeys(a: MergedRollup, b: MergedRollup): number {
  return (
    a.site_id - b.site_id ||
    a.bucket - b.bucket ||
    (a.actor < b.actor ? -1 : a.actor > b.actor ? 1 : 0) ||
    (a.dim < b.dim ? -1 : a.dim > b.dim ? 1 : 0) ||
    (a.value < b.value ? -1 : a.value > b.value ? 1 : 0)
  );
}

function upsertValues(rows: readonly MergedRollup[], bucket: (ms: number) => string): unknown[] {
  const n = rows.length;
  const siteIds = new Array<number>(n), buckets = new Array<string>(n), actors = new Array<string>(n);
  const dims = new Array<string>(n), values = new Array<string>(n);
  const pageviews = new Array<number>(n), events = new Array<number>(n), hits = new Array<number>(n), visitors = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    siteIds[i] = r.site_id;
    buckets[i] = bucket(r.bucket);
    actors[i] = r.actor;
    dims[i] = r.dim;
    // NUL cannot be stored in text (same rule as the COPY encoder, so raw rows and rollups agree).
    values[i] = r.value.includes("\0") ? r.value.replaceAll("\0", "") : r.value;
    pageviews[i] = r.pageviews;
    events[i] = r.events;
    hits[i] = r.hits;
    visitors[i] = r.visitors;
  }
  return [siteIds, buckets, actors, dims, values, pageviews, events, hits, visitors];
}

function upsertRollupValues(hourly: readonly MergedRollup[], daily: readonly MergedRollup[]): unknown[] {
  return [...upsertValues(hourly, (ms) => new Date(ms).toISOString()), ...upsertValues(daily, (ms) => new Date(ms).toISOString().slice(0, 10))];
}

/**
 * Adds `deltas` to both rollup tables and sets the repair mark to `lagFromHour` (ms; null once nothing is
 * held in memory any more), in one transaction.
 */
export async function writeRollups(pool: pg.Pool, deltas: readonly RollupDelta[], lagFromHour: number | null): Promise<void> {
  const hourly = mergeRollups(deltas, "hour");
  const daily = mergeRollups(deltas, "day");
  await withTransaction(pool, async (client) => {
    if (hourly.length > 0 || daily.length > 0) await client.query({ ...UPSERT_ROLLUPS, values: upsertRollupValues(hourly, daily) });
    await client.query("update rollup_repair set from_hour = $1", [lagFromHour === null ? null : new Date(lagFromHour)]);
  });
}

/**
 * Replaces one site's rollups of the UTC day starting at `dayStart` with `counts` (a recount of that day's
 * raw rows), in one transaction.
 */
export async function replaceDayRollups(pool: pg.Pool, siteId: number, dayStart: number, counts: readonly RollupDelta[]): Promise<void> {
  const from = new Date(dayStart);
  const hourly = mergeRollups(counts, "hour");
  const daily = mergeRollups(counts, "day");
  await withTransaction(pool, async (client) => {
    await client.query("delete from rollup_hourly where site_id = $1 and bucket >= $2 and bucket < $3", [siteId, from, new Date(dayStart + DAY_MS)]);
    await client.query("delete from rollup_daily where site_id = $1 and bucket = $2::date", [siteId, from.toISOString().slice(0, 10)]);
    if (hourly.length > 0 || daily.length > 0) await client.query({ ...UPSERT_ROLLUPS, values: upsertRollupValues(hourly, daily) });
  });
}

/** The hour (ms) from which rollups may lag the raw rows, or null when the last gateway stopped cleanly. */
export async function readRepairMark(pool: pg.Pool): Promise<number | null> {
  const { rows } = await pool.query<{ from_hour: Date | null }>("select from_hour from rollup_repair where id = 1");
  return rows[0]?.from_hour?.getTime() ?? null;
}

export async function setRepairMark(pool: pg.Pool, fromHour: number | null): Promise<void> {
  await pool.query("update rollup_repair set from_hour = $1", [fromHour === null ? null : new Date(fromHour)]);
}
