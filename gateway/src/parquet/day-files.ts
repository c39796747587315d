// Per-site daily Parquet files of settled UTC days: what the query engine (query/engine.ts) reads instead of
// PostgreSQL's raw partitions, which carry no index (each would cost ingest more than its budget).
//
// Layout: <SVC_DATA_DIR>/parquet/site-<id>/<YYYY-MM-DD>.parquet, the day's enriched rows (query/rows.ts),
// zstd-compressed. A day is settled 10 minutes after its UTC end (the writer commits within
// seconds; the margin covers a lane draining at midnight). A background pass, every minute:
// - writes each settled day that has rows (rollup_daily knows which) and no file — idempotent: a file is
//   written to a temporary name and renamed, so a crash leaves no half file under the real name;
// - removes the files of days past the site's retention, the folders of deleted sites and the temporary files a
//   crash left.
// A file DuckDB cannot read is removed by the engine and written again by the next pass; a query meanwhile
// reads that day from PostgreSQL. Nothing here runs on the ingest path.
//
// The files' columns have a version, DAY_FILES_FORMAT, kept in <SVC_DATA_DIR>/parquet/format: a root written by
// another version (or by the code before the marker) is emptied by the next pass, which writes the days again,
// and until then no file of it is read (fileFor answers null, so the engine reads PostgreSQL). Gateways sharing
// a data directory run one version.
import { randomUUID } from "node:crypto";
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { DAY_MS, utcDay } from "@svc/core";
import type { DuckDBConnection } from "@duckdb/node-api";
import type pg from "pg";
import { retentionCutoffMs } from "../storage/retention.ts";
import { copyRawRows, enrichSql, readCsvSql } from "../query/rows.ts";

/** 10 minutes after 00:00 UTC a day's rows are all committed (batches commit within SVC_FLUSH_MS, ~ms). */
export const SETTLE_MS = 10 * 60_000;

/** 2: rows gained v_first and v_human (query/rows.ts), which visit metrics count by. 1: the files before the marker. */
export const DAY_FILES_FORMAT = 2;

const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.parquet$/;
const SITE_DIR = /^site-(\d+)$/;

/**
 * A temporary file this old was left by a crash; a younger one may be a day being written right now by another
 * pass — a gateway sharing the data directory, or a pass run by hand — which removing it would make fail. A busy
 * site's day (333,000 rows) is written in 2–4 s here, so ten minutes is far past any write in progress.
 */
const LEFTOVER_TMP_MS = 10 * 60_000;

/** Whether a temporary file is a crash's leftover. Its age is the file system's (real time), not the injected clock's. */
async function leftOver(file: string): Promise<boolean> {
  const written = await stat(file).then((s) => s.mtimeMs, () => null);
  return written !== null && Date.now() - written > LEFTOVER_TMP_MS;
}

export interface DayFilesPass {
  written: number;
  removed: number;
}

/** Every UTC day from `from` to `to`, both included. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let ms = Date.parse(`${from}T00:00:00Z`), end = Date.parse(`${to}T00:00:00Z`); ms <= end; ms += DAY_MS) days.push(utcDay(ms));
  return days;
}

export class DayFiles {
  readonly root: string;
  /** The last import (imports.id) whose days were checked against their files' age. */
  private importsSeen = 0;
  /** The root's format marker read and found current (a marker never goes back). */
  private formatChecked = false;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, "parquet");
  }

  pathOf(siteId: number, day: string): string {
    return path.join(this.root, `site-${siteId}`, `${day}.parquet`);
  }

  /** Whether the UTC day is over long enough for its file to be final. */
  static settled(day: string, nowMs: number): boolean {
    return Date.parse(`${day}T00:00:00Z`) + DAY_MS + SETTLE_MS <= nowMs;
  }

  private get formatFile(): string {
    return path.join(this.root, "format");
  }

  /** Whether the root's files are of this code's format (checked until they are, then trusted). */
  private async current(): Promise<boolean> {
    if (this.formatChecked) return true;
    const found = await readFile(this.formatFile, "utf8").catch(() => "");
    this.formatChecked = found.trim() === String(DAY_FILES_FORMAT);
    return this.formatChecked;
  }

  /** Empties a root of another format and marks it as this one's; the pass then writes every day again. */
  private async upgrade(): Promise<number> {
    if (await this.current()) return 0;
    let removed = 0;
    for (const entry of await readdir(this.root).catch(() => [] as string[])) {
      if (!SITE_DIR.test(entry)) continue;
      await rm(path.join(this.root, entry), { recursive: true, force: true });
      removed++;
    }
    await mkdir(this.root, { recursive: true });
    const tmp = `${this.formatFile}.${randomUUID()}.tmp`;
    await writeFile(tmp, `${DAY_FILES_FORMAT}\n`);
    await rename(tmp, this.formatFile);
    this.formatChecked = true;
    return removed;
  }

  /** The day's file when it is settled and written; null sends the engine to PostgreSQL for that day. */
  async fileFor(siteId: number, day: string, nowMs: number): Promise<string | null> {
    if (!DayFiles.settled(day, nowMs) || !(await this.current())) return null;
    const file = this.pathOf(siteId, day);
    try {
      return (await stat(file)).size > 0 ? file : null;
    } catch {
      return null;
    }
  }

  /** Drops files (damaged ones, or days whose rows changed — an import); the next pass writes them again. */
  async discard(files: readonly string[]): Promise<void> {
    await Promise.all(files.map((f) => rm(f, { force: true })));
  }

  /** Drops a site's files of the given UTC days (an import into settled days calls this). */
  async invalidate(siteId: number, days: readonly string[]): Promise<void> {
    await this.discard(days.map((d) => this.pathOf(siteId, d)));
  }

  /** Writes one day's file from PostgreSQL (temporary name, then rename). */
  async write(pool: pg.Pool, connection: DuckDBConnection, siteId: number, day: string): Promise<void> {
    const file = this.pathOf(siteId, day);
    const dir = path.dirname(file);
    await mkdir(dir, { recursive: true });
    // Unique names: gateways sharing a data directory may write the same day at once; the last rename wins.
    const tag = randomUUID();
    const csv = `${file}.${tag}.csv.tmp`;
    const tmp = `${file}.${tag}.tmp`;
    const from = Date.parse(`${day}T00:00:00Z`);
    try {
      await copyRawRows(pool, siteId, from, from + DAY_MS, csv);
      // In the enrichment's order (by visitor), not sorted by time: the sort of every enriched row made the pass
      // need more than 224 MB for a 333,333-row day and 4.1 s of CPU; unsorted it runs within 160 MB in 1.7 s
      // (DAY_FILES_MEMORY_LIMIT). Queries read whole files and order their own answers.
      await connection.run(`copy (${enrichSql(`(select * from ${readCsvSql(csv)})`)}) to '${tmp.replaceAll("'", "''")}' (format parquet, compression zstd)`);
      await rename(tmp, file);
    } finally {
      await rm(csv, { force: true });
      await rm(tmp, { force: true });
    }
  }

  /** One pass of the background job: write what is missing, remove what retention or a deletion left. */
  async pass(pool: pg.Pool, connect: () => Promise<DuckDBConnection>, nowMs: number, budget = Number.POSITIVE_INFINITY): Promise<DayFilesPass> {
    const { rows: sites } = await pool.query<{ id: number; retention_days: number }>("select id, retention_days from sites");
    const keep = new Map(sites.map((s) => [s.id, utcDay(retentionCutoffMs(nowMs, s.retention_days))]));
    let removed = await this.upgrade();
    // Folders of deleted sites, and files older than the site's retention.
    for (const entry of await readdir(this.root).catch(() => [] as string[])) {
      const m = SITE_DIR.exec(entry);
      if (m === null) continue;
      const cutoff = keep.get(Number(m[1]));
      const dir = path.join(this.root, entry);
      if (cutoff === undefined) {
        await rm(dir, { recursive: true, force: true });
        removed++;
        continue;
      }
      for (const name of await readdir(dir)) {
        const f = DAY_FILE.exec(name);
        const file = path.join(dir, name);
        if ((f !== null && f[1]! < cutoff) || (name.endsWith(".tmp") && (await leftOver(file)))) {
          await rm(file, { force: true });
          removed++;
        }
      }
    }
    // Days an import changed after their file was written are written again: the HTTP route drops them at once,
    // but `npm run svc -- import` runs in another process and only leaves its row in `imports`.
    const { rows: imports } = await pool.query<{ id: number; site_id: number; first_day: string; last_day: string; at: Date }>(
      `select id, site_id, to_char(first_day, 'YYYY-MM-DD') as first_day, to_char(last_day, 'YYYY-MM-DD') as last_day, created_at as at
         from imports where id > $1 and first_day is not null order by id`,
      [this.importsSeen],
    );
    for (const imp of imports) {
      for (const day of daysBetween(imp.first_day, imp.last_day)) {
        const file = this.pathOf(imp.site_id, day);
        const written = await stat(file).then((s) => s.mtimeMs, () => null);
        if (written !== null && written < imp.at.getTime()) {
          await rm(file, { force: true });
          removed++;
        }
      }
      this.importsSeen = imp.id;
    }
    // Settled days with rows (their rollups say so) and no file yet, oldest first.
    const lastSettled = utcDay(nowMs - DAY_MS - SETTLE_MS);
    const { rows: days } = await pool.query<{ site_id: number; day: string }>(
      `select site_id, to_char(bucket, 'YYYY-MM-DD') as day from rollup_daily
        where dim = 'total' and actor = 'all' and bucket <= $1::date order by bucket, site_id`,
      [lastSettled],
    );
    let written = 0;
    let connection: DuckDBConnection | null = null;
    try {
      for (const { site_id, day } of days) {
        if (written >= budget) break;
        const cutoff = keep.get(site_id);
        if (cutoff === undefined || day < cutoff) continue;
        if ((await this.fileFor(site_id, day, nowMs)) !== null) continue;
        connection ??= await connect();
        await this.write(pool, connection, site_id, day);
        written++;
      }
    } finally {
      connection?.closeSync();
    }
    return { written, removed };
  }
}
