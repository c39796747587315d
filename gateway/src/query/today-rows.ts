// Today's rows of each site, kept in DuckDB between queries with their visit columns (rows.ts enrichSql) and
// brought up to date by each query instead of copied whole: a busy site's day (333,000 rows at 10M a month)
// took ~1.3 s to COPY and parse, a query's whole budget, and sessionizing it again for every visit query
// another ~1.8 s of CPU (DuckDB, 2 threads, window functions over 333,333 rows). Each refresh copies only the
// rows from the last watermark on; only the visitors with rows from the old watermark on are sessionized again
// (a visit never spans two visitor hashes, so the others' visit columns stand). The watermark trails the clock
// by a minute, so rows still in flight at a refresh are fetched again by the next one: a row acknowledged just
// before a query is in its answer.
//
// A row committed late with an older time stamp (a retry after an outage) or an import into today lands
// before the watermark, where copying from it misses it. So a refresh also checks that PostgreSQL holds exactly
// as many rows before the watermark as the copy does, and copies the day whole when they differ. That check
// counts every row of today in PostgreSQL (0.1–0.3 s at 333,000 rows, a BRIN range over the month's partition),
// so its verdict stands for TODAY_VERDICT_MS: the site view's dozen queries sent at once pay for one check, not
// twelve. A history import drops the verdict at once (`forget`, from QueryEngine.invalidateDays).
//
// The tables live in a DuckDB file of their own (TODAY_CATALOG, in the engine's temp directory), not in
// memory: stored compressed, a busy site's day holds ~13 MB of DuckDB's buffers instead of ~117 MB, and they may
// be evicted under the engine's memory limit. Its whole-day copy is staged there too (95 MB in memory before).
import { performance } from "node:perf_hooks";
import { randomUUID } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { DAY_MS, utcDayStart } from "@svc/core";
import type { DuckDBConnection } from "@duckdb/node-api";
import type pg from "pg";
import { RAW_COLUMNS, copyRawRows, enrichSql, readCsvSql } from "./rows.ts";
import { removeUntouchedFiles } from "./temp-files.ts";

/** Rows younger than this may still be committing when a refresh runs (batches commit within ms; retries within seconds). */
const IN_FLIGHT_MS = 60_000;

/**
 * A site's table is dropped once no query has read it for this long: a busy site's day (333,000 rows) held
 * ~180 MB of DuckDB's memory in bench:query, which a site nobody looks at (or a deleted one) should not keep.
 * Ten minutes spans a person's pauses over a dashboard; the next query after it copies the day again (~1.3 s).
 */
export const TODAY_IDLE_MS = 10 * 60_000;

/**
 * How long a check that the table holds every row of PostgreSQL before the watermark stands (wall-clock ms).
 * The site view sends ~12 queries at once, answered within 2–5 s over 10M rows; a row committed late is counted
 * at most this long after it is.
 */
export const TODAY_VERDICT_MS = 5_000;

/**
 * Another process's file untouched this long was left by a crash (a clean stop removes its own, QueryEngine.close;
 * a restart under another pid does not reuse it): a live gateway's file is written at each query that finds new
 * rows, and one nobody queried for a day holds only tables its next query copies whole anyway. Without this, each
 * crash outside a container (a new pid) would leave up to a busy day's tables per site on disk for good.
 */
const ABANDONED_FILE_MS = DAY_MS;
const TODAY_FILE = /^today-rows-(\d+)\.duckdb(\.wal)?$/;

/** Removes other processes' today files (and their WALs) untouched for ABANDONED_FILE_MS of real time. */
function removeAbandonedFiles(tempDir: string): Promise<void> {
  return removeUntouchedFiles(tempDir, (name) => {
    const m = TODAY_FILE.exec(name);
    return m !== null && Number(m[1]) !== process.pid;
  }, ABANDONED_FILE_MS);
}

/** The attached DuckDB database holding today's tables (TodayRows.file in the temp directory). */
export const TODAY_CATALOG = "svc_today";

interface Cached {
  readonly day: number;
  /** Rows with ts < watermark are in the table, and PostgreSQL had exactly that many at the last check. */
  readonly watermark: number;
  /** When (`elapsed`) PostgreSQL's rows before the watermark were last found equal to the table's. */
  readonly checkedAt: number;
}

export interface TodayRowsOptions {
  /** Wall-clock ms for the verdict's age (performance.now): the engine's clock may stand still in tests. */
  readonly elapsed?: () => number;
  readonly verdictMs?: number;
}

export class TodayRows {
  private readonly cached = new Map<number, Cached>();
  /** One refresh per site at a time; queries of a site wait for the one in progress. */
  private readonly running = new Map<number, Promise<void>>();
  /** When a query last asked for each site's table (ms). */
  private readonly lastRead = new Map<number, number>();

  /** TODAY_CATALOG attached (once: two first queries at once must not both clean the file). */
  private attaching: Promise<void> | null = null;
  private readonly elapsed: () => number;
  private readonly verdictMs: number;

  constructor(
    private readonly pool: pg.Pool,
    private readonly tempDir: string,
    options: TodayRowsOptions = {},
  ) {
    this.elapsed = options.elapsed ?? (() => performance.now());
    this.verdictMs = options.verdictMs ?? TODAY_VERDICT_MS;
  }

  /** The table name of a site's rows of today (in TODAY_CATALOG, seen by every connection). */
  static table(siteId: number): string {
    return `${TODAY_CATALOG}.today_site_${siteId}`;
  }

  /**
   * The file of TODAY_CATALOG: one per process, as gateways may share a data directory (DuckDB locks a file to
   * one process). A process of the same id (pid 1 in a container, restarted) empties it when it attaches it;
   * QueryEngine.close removes it.
   */
  static file(tempDir: string): string {
    return path.join(tempDir, `today-rows-${process.pid}.duckdb`);
  }

  /** The next refresh of the site copies its day whole (an import changed rows before the watermark). */
  forget(siteId: number): void {
    this.cached.delete(siteId);
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
      await this.attach(connection);
      await connection.run(`drop table if exists ${TodayRows.table(siteId)}`);
      dropped.push(siteId);
    }
    return dropped;
  }

  /**
   * Attaches TODAY_CATALOG once per DuckDB instance. What an earlier process left in the file is dropped (its
   * tables are of no use: every table is copied whole before it is read), and a file DuckDB cannot open (a crash
   * mid-write) is replaced.
   */
  private attach(connection: DuckDBConnection): Promise<void> {
    this.attaching ??= this.attachOnce(connection).catch((error: unknown) => {
      this.attaching = null;
      throw error;
    });
    return this.attaching;
  }

  private async attachOnce(connection: DuckDBConnection): Promise<void> {
    const attached = await connection.runAndReadAll(`select count(*)::int from duckdb_databases() where database_name = '${TODAY_CATALOG}'`);
    if (attached.getRowsJS()[0]![0] === 1) return;
    await mkdir(this.tempDir, { recursive: true });
    await removeAbandonedFiles(this.tempDir);
    const file = TodayRows.file(this.tempDir);
    const attach = () => connection.run(`attach if not exists '${file.replaceAll("'", "''")}' as ${TODAY_CATALOG}`);
    try {
      await attach();
    } catch {
      await Promise.all([file, `${file}.wal`].map((f) => rm(f, { force: true })));
      await attach();
    }
    const left = await connection.runAndReadAll(`select table_name from duckdb_tables() where database_name = '${TODAY_CATALOG}'`);
    for (const [name] of left.getRowsJS()) await connection.run(`drop table if exists ${TODAY_CATALOG}."${String(name)}"`);
  }

  private async update(connection: DuckDBConnection, siteId: number, now: number): Promise<void> {
    await this.attach(connection);
    const day = utcDayStart(now);
    const table = TodayRows.table(siteId);
    const watermark = Math.max(day, now - IN_FLIGHT_MS);
    const state = this.cached.get(siteId);
    const sameDay = state !== undefined && state.day === day;
    const verdictStands = sameDay && this.elapsed() - state.checkedAt < this.verdictMs;
    const checkedAt = verdictStands ? state.checkedAt : this.elapsed();
    try {
      if (sameDay && (verdictStands || (await this.unchangedBefore(connection, siteId, day, state.watermark)))) {
        await this.stage(connection, siteId, state.watermark, day + DAY_MS, "today_staged");
        const from = state.watermark;
        // As many rows from the old watermark on as the table holds there: nothing new (rows are only ever added),
        // and the table stands as it is, unwritten (a write to its file waits for the disk: 20–80 ms a query).
        const counts = await connection.runAndReadAll(`select (select count(*) from today_staged)::double, (select count(*) from ${table} where ts >= ${from})::double`);
        const [staged, held] = counts.getRowsJS()[0]!;
        if (staged === held) {
          this.cached.set(siteId, { day, watermark, checkedAt });
          return;
        }
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
        // Staged in the file, not in memory: the day's raw rows took 95 MB of DuckDB's memory as a temp table.
        await this.stage(connection, siteId, day, day + DAY_MS, stagedDay(siteId));
        await connection.run(`create or replace table ${table} as ${enrichSql(stagedDay(siteId))}`);
      }
    } catch (error) {
      // A refresh cut short may leave the table half updated: the next one copies the day whole.
      this.cached.delete(siteId);
      throw error;
    } finally {
      await connection.run(`drop table if exists today_staged; drop table if exists today_affected; drop table if exists today_redo; drop table if exists ${stagedDay(siteId)}`);
    }
    this.cached.set(siteId, { day, watermark, checkedAt });
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

  /** Copies the raw rows with from ≤ ts < to into the table `into` (a temp table unless qualified by a catalog). */
  private async stage(connection: DuckDBConnection, siteId: number, from: number, to: number, into: string): Promise<void> {
    const csv = path.join(this.tempDir, `today-${randomUUID()}.csv`);
    try {
      await copyRawRows(this.pool, siteId, from, to, csv);
      await connection.run(`create or replace ${into.includes(".") ? "" : "temp "}table ${into} as select * from ${readCsvSql(csv)}`);
    } finally {
      await rm(csv, { force: true });
    }
  }
}

/** The table a whole-day copy of the site's raw rows is staged in (one refresh per site at a time). */
const stagedDay = (siteId: number): string => `${TODAY_CATALOG}.staged_site_${siteId}`;
