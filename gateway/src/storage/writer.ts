// The write path: one batch = one transaction holding the COPY of its raw rows and the upsert of its rollup
// deltas, so a row and its counts are committed together or not at all.
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { EVENT_COLUMNS, HIT_COLUMNS, encodeEvents, encodeHits } from "./copy-text.ts";
import type { RollupDelta, WriteBatch } from "./rows.ts";
import { withTransaction } from "./transaction.ts";

const COPY_EVENTS = `copy events (${EVENT_COLUMNS.join(", ")}) from stdin`;
const COPY_HITS = `copy hits (${HIT_COLUMNS.join(", ")}) from stdin`;

const UPSERT_SET = `
  on conflict (site_id, bucket, actor, dim, value) do update set
    pageviews = t.pageviews + excluded.pageviews,
    events    = t.events    + excluded.events,
    hits      = t.hits      + excluded.hits,
    visitors  = t.visitors  + excluded.visitors`;

// One named statement upserts both rollup tables (one round trip instead of two: the commit's latency is
// what bounds group-commit throughput). Parsed and planned once per connection.
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

/**
 * Sums the deltas that share a key, then sorts the keys. Every transaction therefore touches rollup rows
 * in the same order, so two concurrent batches wait for each other instead of deadlocking.
 */
export function mergeRollups(deltas: readonly RollupDelta[], granularity: "hour" | "day"): MergedRollup[] {
  const merged = new Map<string, MergedRollup>();
  for (const d of deltas) {
    const bucket = granularity === "hour" ? d.hour : d.hour - (((d.hour % DAY_MS) + DAY_MS) % DAY_MS);
    const visitors = granularity === "hour" ? d.visitors_hour : d.visitors_day;
    const key = `${d.site_id}\u0000${bucket}\u0000${d.actor}\u0000${d.dim}\u0000${d.value}`;
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

async function copyChunks(client: pg.PoolClient, statement: string, chunks: string[]): Promise<void> {
  if (chunks.length === 0) return;
  await pipeline(Readable.from(chunks, { objectMode: false }), client.query(copyFrom(statement)));
}

/**
 * Writes one batch in one transaction: COPY events, COPY hits, upsert rollup_hourly and rollup_daily.
 * On any error the transaction is rolled back, the connection discarded, and the error thrown: nothing of
 * the batch is stored, and the caller retries it or fails its requests.
 */
export async function commitBatch(pool: pg.Pool, batch: WriteBatch): Promise<void> {
  // Encoded before taking a connection: a row the encoder rejects costs no round trip.
  const eventChunks = encodeEvents(batch.events);
  const hitChunks = encodeHits(batch.hits);
  const hourly = mergeRollups(batch.rollups, "hour");
  const daily = mergeRollups(batch.rollups, "day");
  if (eventChunks.length === 0 && hitChunks.length === 0 && hourly.length === 0 && daily.length === 0) return;

  await withTransaction(
    pool,
    async (client) => {
      await copyChunks(client, COPY_EVENTS, eventChunks);
      await copyChunks(client, COPY_HITS, hitChunks);
      if (hourly.length > 0 || daily.length > 0) {
        const values = [...upsertValues(hourly, (ms) => new Date(ms).toISOString()), ...upsertValues(daily, (ms) => new Date(ms).toISOString().slice(0, 10))];
        await client.query({ ...UPSERT_ROLLUPS, values });
      }
    },
    { discardOnError: true },
  );
}
