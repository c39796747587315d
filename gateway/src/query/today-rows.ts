// Today's raw rows of each site, kept in DuckDB between queries and brought up to date by each query instead
// of copied whole: a busy site's day (333,000 rows at 10M a month) took ~1.3 s to COPY and parse, a query's
// whole budget. Each refresh copies only the rows from the last watermark on, after checking that PostgreSQL
// holds exactly as many rows before the watermark as the copy does — a batch committed late (a retry after an
// outage) or an import into today makes them differ, and the day is then copied whole again. The watermark
// trails the clock by a minute, so rows still in flight at a refresh are fetched again by the next one.
import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import path from "node:path";
import { DAY_MS, utcDayStart } from "@svc/core";
import type { DuckDBConnection } from "@duckdb/node-api";
import type pg from "pg";
import { copyRawRows, readCsvSql } from "./rows.ts";

/** Rows younger than this may still be committing when a refresh runs (batches commit within ms; retries within seconds). */
const IN_FLIGHT_MS = 60_000;

interface Cached {
  readonly day: number;
  /** Rows with ts < watermark are in the table, and PostgreSQL had exactly that many at the last check. */
  watermark: number;
}

export class TodayRows {
  private readonly cached = new Map<number, Cached>();
  /** One refresh per site at a time; queries of a site wait for the one in progress. */
  private readonly running = new Map<number, Promise<void>>();

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

  /** Forgets a site (deleted) or every site. */
  async drop(connection: DuckDBConnection, siteId: number): Promise<void> {
    this.cached.delete(siteId);
    await connection.run(`drop table if exists ${TodayRows.table(siteId)}`);
  }

  private async update(connection: DuckDBConnection, siteId: number, now: number): Promise<void> {
    const day = utcDayStart(now);
    const table = TodayRows.table(siteId);
    const watermark = Math.max(day, now - IN_FLIGHT_MS);
    const state = this.cached.get(siteId);
    if (state !== undefined && state.day === day && (await this.unchangedBefore(connection, siteId, day, state.watermark))) {
      // One transaction: another query reading the table meanwhile (the site view asks several at once) sees
      // the rows before or after, never the minute deleted and not yet copied again (it read zero rows so).
      await connection.run("begin transaction");
      try {
        await connection.run(`delete from ${table} where ts >= ${state.watermark}`);
        await this.copyInto(connection, table, siteId, state.watermark, day + DAY_MS, "insert into");
        await connection.run("commit");
      } catch (error) {
        await connection.run("rollback").catch(() => undefined);
        throw error;
      }
    } else {
      this.cached.delete(siteId);
      await this.copyInto(connection, table, siteId, day, day + DAY_MS, "create or replace table");
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

  /** Copies the rows with from ≤ ts < to. */
  private async copyInto(connection: DuckDBConnection, table: string, siteId: number, from: number, to: number, verb: string): Promise<void> {
    const csv = path.join(this.tempDir, `today-${randomUUID()}.csv`);
    try {
      await copyRawRows(this.pool, siteId, from, to, csv);
      await connection.run(verb === "insert into" ? `insert into ${table} select * from ${readCsvSql(csv)}` : `${verb} ${table} as select * from ${readCsvSql(csv)}`);
    } finally {
      await rm(csv, { force: true });
    }
  }
}
