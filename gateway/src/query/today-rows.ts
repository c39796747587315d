// Today's rows of each site, kept in DuckDB between queries with their visit columns (rows.ts enrichSql) and
// brought up to date by each query instead of copied whole: a busy site's day (333,000 rows at 10M a month)
// took ~1.3 s to COPY and parse, a query's whole budget, and sessionizing it again for every visit query
// another ~1.8 s of CPU (DuckDB, 2 threads, window functions over 333,333 rows). Each refresh copies only the rows from the last watermark on, after checking that PostgreSQL
// holds exactly as many rows before the watermark as the copy does — a batch committed late (a retry after an
// outage) or an import into today makes them differ, and the day is then copied whole again. Only the visitors
// with rows from the old watermark on are sessionized again (a visit never spans two visitor hashes, so the
// others' visit columns stand). The watermark trails the clock by a minute, so rows still in flight at a
// refresh are fetched again by the next one.
import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import path from "node:path";
import { DAY_MS, utcDayStart } from "@svc/core";
import type { DuckDBConnection } from "@duckdb/node-api";
import type pg from "pg";
import { RAW_COLUMNS, copyRawRows, enrichSql, readCsvSql } from "./rows.ts";

/** Rows younger than this may still be committing when a refresh runs (batches commit within ms; retries within seconds). */
const IN_FLIGHT_MS = 60_000;

/**
 * A site's table is dropped once no query has read it for this long: a busy site's day (333,000 rows) held
 * ~180 MB of DuckDB's memory in bench:query, which a site nobody looks at (or a deleted one) should not keep.
 * Ten minutes spans a person's pauses over a dashboard; the next query after it copies the day again (~1.3 s).
 */
export const TODAY_IDLE_MS = 10 * 60_000;

interface Cached {
  readonly day: number;
  /** Rows with ts < watermark are in the table, and PostgreSQL had exactly that many at the last check. */
  watermark: number;
}

export class TodayRows {
  private readonly cached = new Map<number, Cached>();
  /** One refresh per site at a time; queries of a site wait for the one in progress. */
  private readonly running = new Map<number, Promise<void>>();
  /** When a query last asked for each site's table (ms). */
  private readonly lastRead = new Map<number, number>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly tempDir: string,
  ) {}

  /** The table name of a site's rows of today (in DuckDB's main catalog, seen by every connection). */
  static table(siteId: number): string {
    return `today_site_${siteId}`;
  }

  /** Brings the site's table up to date with PostgreSQL at `now`; returns its name. */
  async refresh(connection: DuckDBConnection, siteId: number, now: number): Promise<string> {
    this.lastRead.set(siteId, now);
    const before = this.running.get(siteId) ?? Promise.resolve();
    const mine = before.catch(() => undefined).then(() => this.update(connection, siteId, now));
    this.running.set(siteId, mine);
    try {
      await mine;
    } finally {
      if (this.running.get(siteId) === mine) this.running.delete(siteId);
    }
    return TodayRows.table(siteId);
  }

  /** Drops the tables no query has read for `idleMs` (none being refreshed); returns their sites. */
  async dropIdle(connection: DuckDBConnection, now: number, idleMs = TODAY_IDLE_MS): Promise<number[]> {
    const dropped: number[] = [];
    for (const [siteId, at] of this.lastRead) {
      if (now - at <= idleMs || this.running.has(siteId)) continue;
      this.lastRead.delete(siteId);
      this.cached.delete(siteId);
      await connection.run(`drop table if exists ${TodayRows.table(siteId)}`);
      dropped.push(siteId);
    }
    return dropped;
  }

  private async update(connection: DuckDBConnection, siteId: number, now: number): Promise<void> {
    const day = utcDayStart(now);
    const table = TodayRows.table(siteId);
    const watermark = Math.max(day, now - IN_FLIGHT_MS);
    const state = this.cached.get(siteId);
    try {
      if (state !== undefined && state.day === day && (await this.unchangedBefore(connection, siteId, day, state.watermark))) {
        await this.stage(connection, siteId, state.watermark, day + DAY_MS);
        const from = state.watermark;
        const raw = RAW_COLUMNS.map(([name]) => name).join(", ");
        await connection.run(`create or replace temp table today_affected as
            select distinct visitor from ${table} where ts >= ${from} and kind = 'e' union select distinct visitor from today_staged where kind = 'e'`);
        await connection.run(`create or replace temp table today_redo as
            select ${raw} from ${table} where ts < ${from} and kind = 'e' and visitor in (select visitor from today_affected)
            union all select * from today_staged`);
        // One transaction: another query reading the table meanwhile (the site view asks several at once) sees
        // the rows before or after, never the rows deleted and not yet written again (it read zero rows so).
        await connection.run("begin transaction");
        try {
          await connection.run(`delete from ${table} where ts >= ${from} or (kind = 'e' and visitor in (select visitor from today_affected))`);
          await connection.run(`insert into ${table} ${enrichSql("today_redo")}`);
          await connection.run("commit");
        } catch (error) {
          await connection.run("rollback").catch(() => undefined);
          throw error;
        }
      } else {
        this.cached.delete(siteId);
        await this.stage(connection, siteId, day, day + DAY_MS);
        await connection.run(`create or replace table ${table} as ${enrichSql("today_staged")}`);
      }
    } catch (error) {
      // A refresh cut short may leave the table half updated: the next one copies the day whole.
      this.cached.delete(siteId);
      throw error;
    } finally {
      await connection.run("drop table if exists today_staged; drop table if exists today_affected; drop table if exists today_redo");
    }
    this.cached.set(siteId, { day, watermark });
  }

  private async unchangedBefore(connection: DuckDBConnection, siteId: number, day: number, watermark: number): Promise<boolean> {
    const range = `site_id = $1 and ts >= to_timestamp($2::float8 / 1000) and ts < to_timestamp($3::float8 / 1000)`;
    const { rows } = await this.pool.query<{ n: string }>(
      `select (select count(*) from events where ${range}) + (select count(*) from hits where ${range}) as n`,
      [siteId, day, watermark],
    );
    const reader = await connection.runAndReadAll(`select count(*)::double from ${TodayRows.table(siteId)} where ts < ${watermark}`);
    return Number(rows[0]!.n) === Number(reader.getRowsJS()[0]![0]);
  }

  /** Copies the raw rows with from ≤ ts < to into the connection's temp table `today_staged`. */
  private async stage(connection: DuckDBConnection, siteId: number, from: number, to: number): Promise<void> {
    const csv = path.join(this.tempDir, `today-${randomUUID()}.csv`);
    try {
      await copyRawRows(this.pool, siteId, from, to, csv);
      await connection.run(`create or replace temp table today_staged as select * from ${readCsvSql(csv)}`);
    } finally {
      await rm(csv, { force: true });
    }
  }
}
