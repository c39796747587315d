// Rollup writes: the counts the site lanes accumulated for committed rows, added to rollup_hourly and
// rollup_daily in one transaction together with the repair mark (sql/006_rollup_repair.sql).
//
// A key the database refuses (a value too long for an index entry, a count out of range) must not hold back
// every other key: when the one-statement upsert fails on data, the transaction is run again with the keys
// upserted in halves under savepoints (src/writer/bisect-write.ts), and the refused keys are left out and returned.
import { setImmediate as nextTurn } from "node:timers/promises";
import { DAY_MS, storedText } from "@svc/core";
import type pg from "pg";
import { bisectWrite, isRefusedData, type Refused } from "../writer/bisect-write.ts";
import { type Counts, addCounts, zeroCounts } from "./counts.ts";
import type { RollupDelta } from "../storage/rows.ts";
import { withTransaction } from "../storage/transaction.ts";
import { numberArray, textArray } from "../storage/array-literal.ts";

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


/** One rollup row to upsert: a delta's key and counts, its hour turned into the table's bucket, one visitor count. */
type MergedRollup = Pick<RollupDelta, "site_id" | "actor" | "dim" | "value"> & { bucket: number } & Counts;

/** The identity of one rollup row: site, bucket (ms), actor, dimension, value. */
export function rollupKey(siteId: number, bucket: number, actor: string, dim: string, value: string): string {
  return `${siteId}\u0000${bucket}\u0000${actor}\u0000${dim}\u0000${value}`;
}

/**
 * Sums the deltas that share a key (an upsert may touch a row only once), keyed by the value's stored form (two
 * values PostgreSQL stores alike, `/p` and `/p\u0000`, are one row: core's storedText), then sorts the keys so that any
 * two transactions touch rollup rows in the same order and wait for each other instead of deadlocking.
 */
export function mergeRollups(deltas: readonly RollupDelta[], granularity: "hour" | "day"): MergedRollup[] {
  const merged = new Map<string, MergedRollup>();
  addToMerge(merged, deltas, granularity, 0, deltas.length);
  return mergedRows(merged);
}

function addToMerge(merged: Map<string, MergedRollup>, deltas: readonly RollupDelta[], granularity: "hour" | "day", from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const d = deltas[i]!;
    const bucket = granularity === "hour" ? d.hour : d.hour - (((d.hour % DAY_MS) + DAY_MS) % DAY_MS);
    const visitors = granularity === "hour" ? d.visitors_hour : d.visitors_day;
    // Values arrive in stored form from core's decoders; this keeps one upsert from touching a row twice if
    // one ever does not (measured on an earlier build: the flush then failed on every try, for every site).
    const value = storedText(d.value);
    const key = rollupKey(d.site_id, bucket, d.actor, d.dim, value);
    let row = merged.get(key);
    if (row === undefined) merged.set(key, (row = { site_id: d.site_id, bucket, actor: d.actor, dim: d.dim, value, ...zeroCounts() }));
    addCounts(row, d, visitors);
  }
}

function mergedRows(merged: ReadonlyMap<string, MergedRollup>): MergedRollup[] {
  const rows: MergedRollup[] = [];
  for (const row of merged.values()) {
    if (row.pageviews !== 0 || row.events !== 0 || row.hits !== 0 || row.visitors !== 0) rows.push(row);
  }
  return rows.sort(compareRollupKeys);
}

/** Both rollup tables' rows of a set of deltas, each merged and sorted (mergeRollups). */
interface MergedTables {
  readonly hourly: readonly MergedRollup[];
  readonly daily: readonly MergedRollup[];
}

const mergeTables = (deltas: readonly RollupDelta[]): MergedTables => ({ hourly: mergeRollups(deltas, "hour"), daily: mergeRollups(deltas, "day") });

// A day's recount is merged before its transaction opens, MERGE_TURN deltas per turn of the event loop. A day of
// 1,000,000 rows over 24 hours is 167,781 deltas: merged in one go inside the transaction it held the loop 0.8 s
// at load average 4 and over 5 s at load 17, while the owner session sat idle in its transaction, which
// `idle_in_transaction_session_timeout` (SVC_OWNER_TIMEOUT_MS) ends: the site was lost and rebuilt again. 10,000
// deltas take ~25 ms at load 4. Sorting the merged keys (~25 ms for 168,000) stays in one piece.
const MERGE_TURN = 10_000;

async function mergeTablesInTurns(deltas: readonly RollupDelta[]): Promise<MergedTables> {
  const hourly = new Map<string, MergedRollup>();
  const daily = new Map<string, MergedRollup>();
  for (let at = 0; at < deltas.length; at += MERGE_TURN) {
    if (at > 0) await nextTurn();
    const to = Math.min(deltas.length, at + MERGE_TURN);
    addToMerge(hourly, deltas, "hour", at, to);
    addToMerge(daily, deltas, "day", at, to);
  }
  return { hourly: mergedRows(hourly), daily: mergedRows(daily) };
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

function upsertValues(rows: readonly MergedRollup[], bucketText: (ms: number) => string): string[] {
  const n = rows.length;
  const siteIds = new Array<number>(n), buckets = new Array<string>(n), actors = new Array<string>(n);
  const dims = new Array<string>(n), values = new Array<string>(n);
  const pageviews = new Array<number>(n), events = new Array<number>(n), hits = new Array<number>(n), visitors = new Array<number>(n);
  // Rows are sorted by site, then bucket: a bucket's text is made once per run of it, not per row.
  let lastBucket = Number.NaN;
  let lastText = "";
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    if (r.bucket !== lastBucket) lastText = bucketText((lastBucket = r.bucket));
    siteIds[i] = r.site_id;
    buckets[i] = lastText;
    actors[i] = r.actor;
    dims[i] = r.dim;
    values[i] = r.value;
    pageviews[i] = r.pageviews;
    events[i] = r.events;
    hits[i] = r.hits;
    visitors[i] = r.visitors;
  }
  return [numberArray(siteIds), textArray(buckets), textArray(actors), textArray(dims), textArray(values), numberArray(pageviews), numberArray(events), numberArray(hits), numberArray(visitors)];
}

function upsertRollupValues(hourly: readonly MergedRollup[], daily: readonly MergedRollup[]): string[] {
  return [...upsertValues(hourly, (ms) => new Date(ms).toISOString()), ...upsertValues(daily, (ms) => new Date(ms).toISOString().slice(0, 10))];
}

/** A rollup delta the database refused, left out of the write. */
export type RefusedRollup = Refused<RollupDelta>;

// A day's recount of a busy site is tens of thousands of keys: upserted in slices, so that encoding the
// arrays never holds the event loop for seconds (a day of 100,000 rows in one statement held it ~4 s at load
// average 20, long enough for HAProxy's health check and the owner session's heartbeat to fail). A flush
// (~1,500 keys a second) is one slice.
const UPSERT_SLICE = 5_000;

async function upsert(client: pg.PoolClient, deltas: readonly RollupDelta[]): Promise<void> {
  await upsertMerged(client, mergeTables(deltas));
}

async function upsertMerged(client: pg.PoolClient, { hourly, daily }: MergedTables): Promise<void> {
  for (let at = 0; at < Math.max(hourly.length, daily.length); at += UPSERT_SLICE) {
    await client.query({ ...UPSERT_ROLLUPS, values: upsertRollupValues(hourly.slice(at, at + UPSERT_SLICE), daily.slice(at, at + UPSERT_SLICE)) });
  }
}

/** Adds `deltas` to both rollup tables inside the caller's transaction (the history import's). */
export function addRollups(client: pg.PoolClient, deltas: readonly RollupDelta[]): Promise<void> {
  return upsert(client, deltas);
}

/** Upserts `deltas` in halves, each under a savepoint, leaving out (and returning) the ones the database refuses. */
async function upsertIsolated(client: pg.PoolClient, deltas: readonly RollupDelta[]): Promise<RefusedRollup[]> {
  const result = await bisectWrite(deltas, async (part) => {
    await client.query("savepoint svc_rollup_part");
    try {
      await upsert(client, part);
    } catch (error) {
      await client.query("rollback to savepoint svc_rollup_part");
      throw error;
    }
    await client.query("release savepoint svc_rollup_part");
  });
  if (result.unfinished !== null) throw result.unfinished.error;
  return result.refused;
}

/**
 * Runs `work` in a transaction whose `upsertAll` upserts `merged` (the merge of `deltas`) in slices; if the database
 * refuses its data, runs `work` again in a new transaction whose `upsertAll` isolates each key. Returns the refused
 * deltas (usually none).
 */
async function withIsolatedRetry(
  pool: pg.Pool,
  deltas: readonly RollupDelta[],
  merged: MergedTables,
  work: (client: pg.PoolClient, upsertAll: () => Promise<void>) => Promise<void>,
): Promise<RefusedRollup[]> {
  try {
    await withTransaction(pool, (client) => work(client, () => upsertMerged(client, merged)));
    return [];
  } catch (error) {
    if (!isRefusedData(error)) throw error;
  }
  const refused: RefusedRollup[] = [];
  await withTransaction(pool, (client) =>
    work(client, async () => {
      refused.push(...(await upsertIsolated(client, deltas)));
    }),
  );
  return refused;
}

/**
 * Adds `deltas` to both rollup tables and sets the repair mark to `lagFromHour` (ms; null once nothing is
 * held in memory any more), in one transaction. Returns the deltas the database refused, which are not written.
 */
export function writeRollups(pool: pg.Pool, deltas: readonly RollupDelta[], lagFromHour: number | null): Promise<RefusedRollup[]> {
  return withIsolatedRetry(pool, deltas, mergeTables(deltas), async (client, upsertAll) => {
    await upsertAll();
    await client.query("update rollup_repair set from_hour = $1", [lagFromHour === null ? null : new Date(lagFromHour)]);
  });
}

/**
 * Replaces one site's rollups of the UTC day starting at `dayStart` with `counts` (a recount of that day's
 * raw rows), in one transaction. Returns the counts the database refused, which are not written.
 */
export async function replaceDayRollups(pool: pg.Pool, siteId: number, dayStart: number, counts: readonly RollupDelta[]): Promise<RefusedRollup[]> {
  const from = new Date(dayStart);
  return withIsolatedRetry(pool, counts, await mergeTablesInTurns(counts), async (client, upsertAll) => {
    await client.query("delete from rollup_hourly where site_id = $1 and bucket >= $2 and bucket < $3", [siteId, from, new Date(dayStart + DAY_MS)]);
    await client.query("delete from rollup_daily where site_id = $1 and bucket = $2::date", [siteId, from.toISOString().slice(0, 10)]);
    await upsertAll();
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
