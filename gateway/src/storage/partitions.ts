// Monthly partitions of events and hits, named events_YYYY_MM / hits_YYYY_MM, bounds in UTC.
import type pg from "pg";
import { withTransaction } from "./transaction.ts";

export const PARTITIONED_TABLES = ["events", "hits"] as const;
export type PartitionedTable = (typeof PARTITIONED_TABLES)[number];

// "svc" in ASCII followed by 02 (partition maintenance); serialises creators across processes.
const PARTITION_LOCK_KEY = 0x73766302;
const PARTITION_NAME = /^(events|hits)_(\d{4})_(\d{2})$/;

export interface MonthlyPartition {
  table: PartitionedTable;
  name: string;
  fromMs: number;
  toMs: number;
}

export function partitionFor(table: PartitionedTable, year: number, monthIndex: number): MonthlyPartition {
  const fromMs = Date.UTC(year, monthIndex, 1);
  const start = new Date(fromMs);
  const name = `${table}_${start.getUTCFullYear()}_${String(start.getUTCMonth() + 1).padStart(2, "0")}`;
  return { table, name, fromMs, toMs: Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1) };
}

/** Parses a partition name made by partitionFor; null for any other table (the default partitions). */
export function parsePartitionName(name: string): MonthlyPartition | null {
  const match = PARTITION_NAME.exec(name);
  if (match === null) return null;
  const month = Number(match[3]);
  if (month < 1 || month > 12) return null;
  return partitionFor(match[1] as PartitionedTable, Number(match[2]), month - 1);
}

/**
 * Makes sure the partitions of the current UTC month and the next `monthsAhead` months exist.
 * Returns the names created by this call. Idempotent, and safe when several processes run it at once.
 */
export async function ensureMonthlyPartitions(pool: pg.Pool, nowMs: number, monthsAhead = 1): Promise<string[]> {
  const now = new Date(nowMs);
  const created: string[] = [];
  for (let ahead = 0; ahead <= monthsAhead; ahead++) {
    for (const table of PARTITIONED_TABLES) {
      const partition = partitionFor(table, now.getUTCFullYear(), now.getUTCMonth() + ahead);
      if (await ensurePartition(pool, partition)) created.push(partition.name);
    }
  }
  return created;
}

/** Makes sure the partitions of every UTC month from `fromMs` to `toMs` exist (a history import's months). */
export async function ensurePartitionsBetween(pool: pg.Pool, fromMs: number, toMs: number): Promise<string[]> {
  const created: string[] = [];
  const from = new Date(fromMs);
  for (let p = partitionFor("events", from.getUTCFullYear(), from.getUTCMonth()); p.fromMs <= toMs; p = partitionFor("events", new Date(p.toMs).getUTCFullYear(), new Date(p.toMs).getUTCMonth())) {
    for (const table of PARTITIONED_TABLES) {
      const partition = partitionFor(table, new Date(p.fromMs).getUTCFullYear(), new Date(p.fromMs).getUTCMonth());
      if (await ensurePartition(pool, partition)) created.push(partition.name);
    }
  }
  return created;
}

/** Rows that fell outside every monthly partition (the maintenance fiber and /healthz report them). */
export async function countDefaultPartitionRows(pool: pg.Pool): Promise<{ events: number; hits: number }> {
  const result = await pool.query<{ events: number; hits: number }>(
    "select (select count(*) from events_default)::int as events, (select count(*) from hits_default)::int as hits",
  );
  const row = result.rows[0]!;
  return { events: row.events, hits: row.hits };
}

/** The monthly partitions that exist now, oldest first. */
export async function listMonthlyPartitions(pool: pg.Pool | pg.PoolClient): Promise<MonthlyPartition[]> {
  const result = await pool.query<{ name: string }>(`
    select c.relname as name
      from pg_inherits i
      join pg_class c on c.oid = i.inhrelid
      join pg_class p on p.oid = i.inhparent
     where p.relname in ('events', 'hits') and pg_table_is_visible(p.oid)`);
  return result.rows
    .map((row) => parsePartitionName(row.name))
    .filter((partition): partition is MonthlyPartition => partition !== null)
    .sort((a, b) => a.fromMs - b.fromMs || a.name.localeCompare(b.name));
}

// A plain query of pg_class, not to_regclass(): after waiting on the advisory lock, the backend's catalog
// cache can still hold "no such table" from before the other process committed; a query's fresh snapshot
// cannot.
async function exists(db: pg.Pool | pg.PoolClient, name: string): Promise<boolean> {
  const result = await db.query<{ present: boolean }>(
    "select exists (select 1 from pg_class where relname = $1 and pg_table_is_visible(oid)) as present",
    [name],
  );
  return result.rows[0]!.present;
}

async function ensurePartition(pool: pg.Pool, partition: MonthlyPartition): Promise<boolean> {
  if (await exists(pool, partition.name)) return false;
  const { table, name } = partition;
  const from = new Date(partition.fromMs).toISOString();
  const to = new Date(partition.toMs).toISOString();
  return withTransaction(pool, async (client) => {
    await client.query("select pg_advisory_xact_lock($1)", [PARTITION_LOCK_KEY]);
    if (await exists(client, name)) return false;
    // Taken up front, all at once (the lock recurses to every partition): writers wait a few ms, and no
    // lock upgrade later can deadlock with a COPY that already holds the parent.
    await client.query(`lock table ${table} in access exclusive mode`);
    const pending = await client.query<{ found: boolean }>(
      `select exists (select 1 from ${table}_default where ts >= $1 and ts < $2) as found`,
      [from, to],
    );
    const bounds = `for values from ('${from}') to ('${to}')`;
    if (!pending.rows[0]!.found) {
      await client.query(`create table ${name} partition of ${table} ${bounds}`);
    } else {
      // PostgreSQL refuses a new partition while the default partition holds rows of its range, so those
      // rows move into a standalone table first, which is then attached.
      await client.query(`create table ${name} (like ${table} including defaults)`);
      await client.query(
        `with moved as (delete from ${table}_default where ts >= $1 and ts < $2 returning *) insert into ${name} select * from moved`,
        [from, to],
      );
      await client.query(`alter table ${table} attach partition ${name} ${bounds}`);
    }
    return true;
  });
}
