// Runs a query plan: the site's range in its time zone, the rows of that range (settled UTC days from their
// Parquet files, the rest — today above all — copied from PostgreSQL), one DuckDB statement over them, and the
// answer in Plausible's shape ({results: [{dimensions, metrics, comparison?}], meta, query}).
//
// One in-process DuckDB instance for the gateway: 2 threads (the machine's cores; the ingest path runs on the
// event loop, so a query competes with it only for CPU) and a 160 MB memory limit. Distinct visitors are counted
// per arm of the union the rows are read from (today's table, the day files, rows copied from PostgreSQL; sql.ts
// perArm), where DuckDB's hash aggregates spill past the limit: through the union the site view's page card
// (distinct visitors per page over 3.4M "Direct / None" rows) ran out of memory at 160 and 192 MB and needed 256.
// Per arm, every query of bench:query and of the site view's bursts answers at 160 MB, for ~5–10 % more CPU on a
// filtered breakdown (two aggregates and their sum instead of one). Memory DuckDB frees goes back to the system
// within 100 ms (DUCKDB_ALLOCATOR_CONF): the gateway's RSS peaked +260 MB over its idle while querying, against
// +325–418 MB at 256 MB before. Past the limit DuckDB spills to its temp directory, and a statement that still
// does not fit answers 503 (after one try alone, admission.ts).
//
// Work reaches DuckDB through the admission queue (admission.ts), one query at a time by default
// (SVC_QUERY_RUNNING): the site view's 11 filtered queries sent at once over 10M rows (bench:query's burst,
// in-process, load average 4–8) answered their tiles after 1.4–2.5 s with one running and 2.3–13 s with two,
// the last of them after 11–26 s and 10–36 s, for the same CPU (16–20 s a burst). Rollup-served answers never
// wait in it.
//
// Memory: today's rows are sessionized the first time a query reads them (today-rows.ts; 333,333 rows: +250 MB
// RSS at that first query, DuckDB's opening included), then held in a DuckDB file of their own (~13 MB of
// buffers, evictable; ~117 MB in memory before) and refreshed in small steps. Figures: README "Benchmarks".
import { randomUUID } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { DAY_MS, utcDayStart, utcDay } from "@svc/core";
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import type pg from "pg";
import { ApiError } from "../errors.ts";
import type { SiteRecord } from "../storage/sites.ts";
import { listGoals } from "../storage/goals.ts";
import { type DayFiles, daysBetween } from "../parquet/day-files.ts";
import { type ResolvedRange, comparisonRange, isoInZone, resolveRange, timeGrain, timeLabels } from "./date-range.ts";
import { type Filter, type Metric, type QueryPlan, filterLeaves, isLeaf, isTimeDimension } from "./request.ts";
import { type FromRollups, type QueryGoal, type SqlContext, buildQuery, opensActors } from "./sql.ts";
import { copyRawRows, enrichSql, readCsvSql, withoutVisits } from "./rows.ts";
import { TodayRows, type TodayRowsOptions } from "./today-rows.ts";
import { removeUntouchedFiles } from "./temp-files.ts";
import { operatorOf } from "../read/reports.ts";
import { rollupRows, rollupServes } from "./rollup-path.ts";
import { SettledCache } from "../read/settled-cache.ts";
import { type AdmissionLimits, type AdmissionStats, AdmissionQueue, QUERY_QUEUED, QUERY_RUNNING, QUERY_WAIT_MS } from "./admission.ts";

export const DUCKDB_THREADS = 2;
export const DUCKDB_MEMORY_LIMIT = "160MB";
/** How often a running query checks that its client is still there. */
const INTERRUPT_POLL_MS = 100;

type MetricValue = number;
export interface ResultRow {
  dimensions: string[];
  metrics: MetricValue[];
  comparison?: { dimensions: string[]; metrics: MetricValue[]; change: (number | null)[] };
}

export interface QueryResponse {
  results: ResultRow[];
  meta: Record<string, unknown>;
  query: Record<string, unknown>;
}

/** The site's IANA zone: the `time_zone` column once sql/014 adds it, UTC before. */
export const siteTimeZone = (site: SiteRecord): string => (site as SiteRecord & { time_zone?: string | null }).time_zone ?? "UTC";

/** Country code → English name (visit:country_name), from Node's ICU. */
function countryNames(): Array<[string, string]> {
  const names = new Intl.DisplayNames(["en"], { type: "region" });
  const out: Array<[string, string]> = [];
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      const name = names.of(code);
      if (name !== undefined && name !== code) out.push([code, name]);
    }
  }
  return out;
}

export interface QueryEngineOptions {
  readonly pool: pg.Pool;
  readonly now: () => number;
  /** Where CSV copies of PostgreSQL rows and DuckDB's spill files go (inside SVC_DATA_DIR). */
  readonly tempDir: string;
  readonly dayFiles: DayFiles;
  /** Resolves once every acknowledged row's counts are in the rollups (before a rollup-served answer). */
  readonly flushRollups: () => Promise<void>;
  /** How much work runs on DuckDB at once, how much may wait and how long (SVC_QUERY_*; admission.ts's defaults when absent). */
  readonly admission?: AdmissionLimits;
  /** How long the check of today's rows stands, and its clock (today-rows.ts's defaults when absent). */
  readonly todayRows?: TodayRowsOptions;
  /** DuckDB's memory_limit (DUCKDB_MEMORY_LIMIT when absent; a test's small data needs a small one to fill it). */
  readonly memoryLimit?: string;
}

/**
 * How DuckDB's allocator (the jemalloc built into its library) gives memory back: pages freed 100 ms ago, and
 * none left in jemalloc's lazily freed state (which still counts in RSS). With its default they went back 1–2 s
 * after a statement, so the site view's queries, run back to back, each came on top of the last one's freed
 * pages: bench:query's bursts peaked +325–418 MB over the gateway's idle RSS (DuckDB's own count of its memory
 * between statements: 16 MB). 100 ms: +260 MB (twice, load 2.3–2.9); at once (decay 0): +215–225 MB, but every
 * free became a syscall and every reuse a page fault: 16.8–20.2 s of CPU a burst against 14.6–16.1 s, ~250 ms
 * of system time a query against ~70 (in-process, bench:query's 10M rows).
 */
export const DUCKDB_ALLOCATOR_CONF = "dirty_decay_ms:100,muzzy_decay_ms:0";

let library: Promise<typeof import("@duckdb/node-api")> | null = null;

/**
 * DuckDB's library, loaded on first use: jemalloc reads DUCKDB_JE_MALLOC_CONF once, when the library loads, so
 * it is set before (an operator's own value stands). A static import would load it at the gateway's start.
 */
function duckdbLibrary(): Promise<typeof import("@duckdb/node-api")> {
  process.env["DUCKDB_JE_MALLOC_CONF"] ??= DUCKDB_ALLOCATOR_CONF;
  return (library ??= import("@duckdb/node-api"));
}

/**
 * A DuckDB with the engine's settings, and the country names visit:country_name reads: the engine's, or the
 * day files' writer's (query-layer.ts), opened per pass with one thread and closed after it.
 */
export async function openDuckDB(tempDir: string, { threads, memoryLimit }: { threads: number; memoryLimit: string } = { threads: DUCKDB_THREADS, memoryLimit: DUCKDB_MEMORY_LIMIT }): Promise<DuckDBInstance> {
  // DuckDB makes its spill folder when it first spills, but not the folders above it.
  await mkdir(tempDir, { recursive: true });
  const { DuckDBInstance } = await duckdbLibrary();
  const db = await DuckDBInstance.create(":memory:", {
    threads: String(threads),
    memory_limit: memoryLimit,
    temp_directory: path.join(tempDir, "duckdb-spill"),
    // Nothing is ever downloaded at run time: parquet, json and icu are built into the npm binary.
    autoinstall_known_extensions: "false",
    autoload_known_extensions: "false",
    // Results are ordered by the statements' ORDER BY, so scans need not keep file order: less memory.
    preserve_insertion_order: "false",
    // Memory DuckDB freed goes back to the system soon after a statement, not at the next big one: RSS 2 s after
    // a burst of the site view's 11 queries 264 MB against 281–383 MB, after 6 sequential ones 313–349 against
    // 435 MB (10M rows, load average 5–10), CPU per query the same within noise. The peak is not lower.
    allocator_flush_threshold: "8MB",
    allocator_background_threads: "true",
  });
  const connection = await db.connect();
  try {
    // Naive timestamps are UTC instants everywhere in the engine's SQL.
    await connection.run("set TimeZone = 'UTC'");
    const values = countryNames().map(([code, name]) => `('${code}', '${name.replaceAll("'", "''")}')`).join(", ");
    await connection.run(`create table country_names (code varchar primary key, name varchar); insert into country_names values ${values}`);
  } finally {
    connection.closeSync();
  }
  return db;
}

export class QueryEngine {
  private readonly today: TodayRows;
  private readonly settled: SettledCache;
  private readonly queue: AdmissionQueue;
  /** Names the temp tables of rollup-answered parts (fromRollups) apart. */
  private parts = 0;
  /** DuckDB, opened by the first statement that needs it (see `instance`). */
  private db: Promise<DuckDBInstance> | null = null;
  private closed = false;

  private constructor(private readonly options: QueryEngineOptions) {
    this.today = new TodayRows(options.pool, options.tempDir, options.todayRows);
    this.settled = new SettledCache(options.now);
    this.queue = new AdmissionQueue(options.admission ?? { running: QUERY_RUNNING, queued: QUERY_QUEUED, waitMs: QUERY_WAIT_MS });
  }

  /** The engine; DuckDB itself opens on first use (a gateway whose reads the rollups answer never pays for it). */
  static async open(options: QueryEngineOptions): Promise<QueryEngine> {
    return new QueryEngine(options);
  }

  /**
   * The in-process DuckDB, opened once on first use: it costs ~65 MB RSS open and idle (README "Benchmarks",
   * ingest row), which a gateway that only ingests and reads rollups should not carry.
   */
  private instance(): Promise<DuckDBInstance> {
    if (this.closed) return Promise.reject(new Error("query engine closed"));
    const tempDir = this.options.tempDir;
    this.db ??= removeUntouchedFiles(tempDir, (name) => SCRATCH_FILE.test(name), ABANDONED_SCRATCH_MS).then(() => openDuckDB(tempDir, { threads: DUCKDB_THREADS, memoryLimit: this.memoryLimit })).catch((error: unknown) => {
      this.db = null;
      throw error;
    });
    return this.db;
  }

  private get memoryLimit(): string {
    return this.options.memoryLimit ?? DUCKDB_MEMORY_LIMIT;
  }

  close(): void {
    this.closed = true;
    const today = TodayRows.file(this.options.tempDir);
    void this.db?.then(
      (db) => {
        db.closeSync();
        // Today's tables are of no use to the next process (today-rows.ts).
        return Promise.all([today, `${today}.wal`].map((f) => rm(f, { force: true })));
      },
      () => undefined,
    );
    this.db = null;
  }

  /**
   * Drops today's tables no query has read for TODAY_IDLE_MS (today-rows.ts), in the admission queue's turn: each
   * minute from the query layer, so their memory goes back even when no other query comes. Nothing to do while
   * DuckDB has never opened.
   */
  dropIdleToday(): Promise<number[]> {
    if (this.db === null) return Promise.resolve([]);
    return this.onConnection((connection) => this.today.dropIdle(connection, this.options.now()));
  }

  /**
   * An import changed these UTC days of the site: their files go, and the next pass writes them again; today
   * among them, the next query copies today's rows whole (an import's rows land before the refresh's watermark).
   */
  invalidateDays(siteId: number, from: string, to: string): Promise<void> {
    const today = utcDay(this.options.now());
    if (from <= today && today <= to) this.today.forget(siteId);
    return this.options.dayFiles.invalidate(siteId, daysBetween(from, to));
  }

  /** A connection of the engine's DuckDB, closed by the caller. */
  private async connect(): Promise<DuckDBConnection> {
    return (await this.instance()).connect();
  }

  /** The plan's `matches` patterns compiled by DuckDB's RE2, as a run checks them: a 400 naming the bad one. */
  checkFilters(plan: QueryPlan): Promise<void> {
    return this.onConnection((connection) => checkPatterns(connection, plan));
  }

  /** `use` on a connection of the engine's DuckDB in the admission queue's turn, closed after. */
  private onConnection<T>(use: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    return this.admitted(async () => {
      const connection = await this.connect();
      try {
        return await use(connection);
      } finally {
        connection.closeSync();
      }
    });
  }

  /** Work waiting for and running on the engine's DuckDB now, and refused since boot (admission.ts). */
  get admission(): AdmissionStats {
    return this.queue.stats;
  }

  /**
   * `use` over the enriched rows (visit columns included) of the plan's date range, loaded as a query's are,
   * with the site's goals: for answers beside the query API's own (query/funnel.ts, read/prop-keys.ts). `gone`
   * as for `run`: dropped from the line, or `use`'s statements interrupted. `visits` false: the visit columns
   * are null on rows not yet in a day file (no sessionizing), for a `use` that reads none (readsVisits).
   */
  overRows<T>(site: SiteRecord, plan: QueryPlan, use: (connection: DuckDBConnection, ctx: SqlContext) => Promise<T>, gone?: () => boolean, visits = true): Promise<T> {
    return this.admitted(async () => {
      const timeZone = siteTimeZone(site);
      const now = this.options.now();
      const range = resolveRange(plan.dateRange, timeZone, now, site.retention_days);
      const goals = await siteGoals(this.options.pool, site.id);
      return this.withRows(site.id, plan, [range], now, visits, gone, (connection, rows) => use(connection, { plan, range, timeZone, grain: null, goals, ...rows }));
    }, gone);
  }

  /**
   * `use` on a connection of its own over the site's rows of `ranges` (day files and today's, loadChecked), the
   * plan's patterns checked first; the connection closed and the scratch files removed after.
   */
  private async withRows<T>(
    siteId: number,
    plan: QueryPlan,
    ranges: readonly ResolvedRange[],
    now: number,
    visits: boolean,
    gone: (() => boolean) | undefined,
    use: (connection: DuckDBConnection, rows: LoadedRows) => Promise<T>,
  ): Promise<T> {
    const connection = await this.connect();
    const scratch: string[] = [];
    let watch: NodeJS.Timeout | null = null;
    try {
      await checkPatterns(connection, plan);
      const rows = await this.loadChecked(connection, siteId, ranges, now, scratch, visits);
      // A statement whose client left stops within ~100 ms instead of holding the engine's one slot for the rest
      // of its 0.3–1.2 s (10M rows, quiet box). Not while today's rows are brought up to date above: a refresh
      // cut short is thrown away, and the next query copied the whole day again (the click's tiles then took
      // 1.7–3.1 s instead of 1.2 s in bench:explorer).
      if (gone !== undefined) watch = setInterval(() => gone() && connection.interrupt(), INTERRUPT_POLL_MS);
      return await use(connection, rows);
    } finally {
      if (watch !== null) clearInterval(watch);
      connection.closeSync();
      await Promise.all(scratch.map((f) => rm(f, { force: true })));
    }
  }

  /**
   * `work` on the engine's DuckDB, when the admission queue lets it run (admission.ts): out of memory beside
   * other work, it runs once more alone; out of memory alone, a 503 that says so, not a 500.
   */
  private async admitted<T>(work: () => Promise<T>, gone?: () => boolean): Promise<T> {
    try {
      return await this.queue.run(work, isOutOfMemory, gone);
    } catch (error) {
      // Interrupted because its client left (fromDuckDB), or any failure no one will read.
      if (gone?.() === true && !(error instanceof ApiError && error.reason === "client_closed")) throw new ApiError("client_closed");
      if (isOutOfMemory(error)) {
        throw new ApiError("overloaded", `the query needs more memory than the query engine's ${this.memoryLimit}; narrow its date range, filters or dimensions`);
      }
      throw error;
    }
  }

  /**
   * The answer: from the rollups at once when they serve the plan, else from DuckDB in the admission queue's
   * turn. `gone` (the HTTP request's client has left): the query is dropped from the line, or interrupted.
   */
  async run(site: SiteRecord, plan: QueryPlan, gone?: () => boolean): Promise<QueryResponse> {
    const timeZone = siteTimeZone(site);
    const now = this.options.now();
    const range = resolveRange(plan.dateRange, timeZone, now, site.retention_days);
    const time = plan.dimensions.find(isTimeDimension);
    const grain = time === undefined ? null : timeGrain(time, range);
    const compared = plan.include.comparisons === null ? null : comparisonRange(range, plan.include.comparisons, timeZone);
    // In line before anything is awaited, so queries that reach the engine together keep their order (the
    // goals' read, a round trip to PostgreSQL, came first before and could reorder them).
    if (!rollupServes(plan, range, timeZone, grain)) {
      return this.admitted(async () => this.fromDuckDB(site, plan, { range, timeZone, goals: await siteGoals(this.options.pool, site.id), time, grain, compared, now }, gone), gone);
    }
    await this.options.flushRollups();
    const all = sortRows(plan, await rollupRows({ pool: this.options.pool, cache: this.settled, now: this.options.now }, site.id, plan, range));
    const meta: Record<string, unknown> = {};
    if (plan.include.timeLabels && grain !== null) meta["time_labels"] = timeLabels(grain, range);
    if (plan.include.totalRows) meta["total_rows"] = all.length;
    return { results: all.slice(plan.offset, plan.offset + plan.limit), meta, query: echo(plan, site, range, null, timeZone, false) };
  }

  private async fromDuckDB(
    site: SiteRecord,
    plan: QueryPlan,
    { range, timeZone, goals, time, grain, compared, now }: { range: ResolvedRange; timeZone: string; goals: QueryGoal[]; time: string | undefined; grain: SqlContext["grain"]; compared: ResolvedRange | null; now: number },
    gone?: () => boolean,
  ): Promise<QueryResponse> {
    const ranges = [range, ...(compared ? [compared] : [])];
    return this.withRows(site.id, plan, ranges, now, readsVisits(plan), gone, async (connection, rows) => {
      const ctx = { plan, range, timeZone, grain, goals, ...rows };
      const main = await this.execute(connection, site.id, ctx, { paginate: compared === null || grain === null || plan.dimensions.length > 1 ? true : false });
      let results = main.rows;
      const labels = grain === null ? null : timeLabels(grain, range);
      if (compared !== null) {
        const other = await this.execute(connection, site.id, { ...ctx, range: compared, grain: time === undefined ? null : grain }, { paginate: false });
        results = attachComparison(plan, results, other.rows, grain !== null && plan.dimensions.length === 1 ? { main: labels!, other: timeLabels(grain, compared) } : null);
        if (grain !== null && plan.dimensions.length === 1) results = results.slice(plan.offset, plan.offset + plan.limit);
      }
      const meta: Record<string, unknown> = {};
      if (plan.include.timeLabels && labels !== null) meta["time_labels"] = labels;
      if (plan.include.totalRows) meta["total_rows"] = compared !== null && grain !== null && plan.dimensions.length === 1 ? labels!.length : main.total;
      const agentAt = plan.dimensions.indexOf("event:agent");
      if (agentAt >= 0) {
        meta["operators"] = Object.fromEntries(results.map((r) => [r.dimensions[agentAt]!, operatorOf(r.dimensions[agentAt]!)]).filter(([, o]) => o !== null));
      }
      return { results, meta, query: echo(plan, site, range, compared, timeZone, opensActors(plan)) };
    });
  }

  private async execute(connection: DuckDBConnection, siteId: number, ctx: SqlContext, options: { paginate: boolean }): Promise<{ rows: ResultRow[]; total: number }> {
    const built = buildQuery({ ...ctx, fromRollups: await this.fromRollups(connection, siteId, ctx) }, options);
    const reader = await connection.runAndReadAll(built.sql, built.values);
    const rows = reader.getRowsJS();
    const d = built.dimensionColumns.length;
    return {
      rows: rows.map((r) => ({ dimensions: r.slice(0, d).map(String), metrics: r.slice(d, d + ctx.plan.metrics.length).map(Number) })),
      total: rows.length === 0 ? 0 : Number(rows[0]![rows[0]!.length - 1]),
    };
  }

  /** `load`, and when a Parquet file of it cannot be read, the same rows again without the damaged files. */
  private async loadChecked(connection: DuckDBConnection, siteId: number, ranges: readonly ResolvedRange[], now: number, scratch: string[], visits: boolean): Promise<LoadedRows> {
    const loaded = await this.load(connection, siteId, ranges, now, scratch, true, visits);
    try {
      await connection.run(`select count(*) from ${loaded.relation}`);
      return loaded;
    } catch (error) {
      // A Parquet file DuckDB cannot read (truncated, damaged): drop the site's files of these days, so the
      // background job writes them again, and answer this query from PostgreSQL.
      if (loaded.files.length === 0) throw error;
      const damaged: string[] = [];
      for (const file of loaded.files) {
        await connection.run(`select count(*) from read_parquet('${file.replaceAll("'", "''")}')`).catch(() => damaged.push(file));
      }
      if (damaged.length === 0) throw error;
      await this.options.dayFiles.discard(damaged);
      await connection.run("drop view if exists src");
      return await this.load(connection, siteId, ranges, now, scratch, false, visits);
    }
  }

  /**
   * The part of a statement the rollups answer exactly (rollup-path.ts): over whole UTC days of a UTC site, the
   * visitors without the goal filters that conversion rates divide by, when every filter is a goal. It is a scan
   * of every row otherwise: count(distinct visitor) over 10M rows took ~0.8 s of CPU in all and ~2 s by source
   * (DuckDB, 2 threads), where the rollups take ms (goal conversion by source: 4.4 s of CPU → 0.6 s).
   */
  private async fromRollups(connection: DuckDBConnection, siteId: number, ctx: SqlContext): Promise<FromRollups> {
    const { plan, range, timeZone, grain } = ctx;
    const out: { ungoaled?: { groups: string | null; total: number } } = {};
    const alone = (over: Partial<QueryPlan>): QueryPlan => ({ ...plan, include: { ...plan.include, comparisons: null }, ...over });
    const rollups = { pool: this.options.pool, cache: this.settled, now: this.options.now };
    const table = async (dimensions: string[], metrics: string[], rows: ResultRow[]): Promise<string> => {
      const name = `rollup_part_${++this.parts}`;
      await connection.run(`create or replace temp table ${name} (${[...dimensions.map((d) => `${d} varchar`), ...metrics.map((m) => `${m} double`)].join(", ")})`);
      const appender = await connection.createAppender(name);
      for (const row of rows) {
        for (const d of row.dimensions) appender.appendVarchar(d);
        for (const m of row.metrics) appender.appendDouble(m);
        appender.endRow();
      }
      appender.closeSync();
      return name;
    };
    const goalOnly = plan.filters.length > 0 && plan.filters.every((f) => isLeaf(f) && f.dimension === "event:goal");
    if (goalOnly && (plan.metrics.includes("conversion_rate") || plan.metrics.includes("group_conversion_rate"))) {
      const nonGoal = plan.dimensions.map((d, i) => [d, i] as const).filter(([d]) => d !== "event:goal");
      const groupsPlan = alone({ metrics: ["visitors"], filters: [], dimensions: nonGoal.map(([d]) => d) });
      const totalPlan = alone({ metrics: ["visitors"], filters: [], dimensions: [] });
      if (rollupServes(groupsPlan, range, timeZone, grain) && rollupServes(totalPlan, range, timeZone, null)) {
        await this.options.flushRollups();
        const [total] = await rollupRows(rollups, siteId, totalPlan, range);
        const groups = nonGoal.length === 0 ? [] : await rollupRows(rollups, siteId, groupsPlan, range);
        out.ungoaled = { total: total?.metrics[0] ?? 0, groups: nonGoal.length === 0 ? null : await table(nonGoal.map(([, i]) => `d${i}`), ["gv"], groups) };
      }
    }
    return out;
  }

  /**
   * A temp view `src` of the enriched rows covering every range: whole UTC days (visits are cut by UTC day),
   * each from its Parquet file when it has one, else copied from PostgreSQL (consecutive such days in one COPY).
   */
  private async load(connection: DuckDBConnection, siteId: number, ranges: readonly ResolvedRange[], now: number, scratch: string[], useFiles: boolean, visits: boolean): Promise<LoadedRows & { files: string[] }> {
    const days = new Set<number>();
    for (const r of ranges) for (let d = utcDayStart(r.fromMs); d < r.toMs && d <= now; d += DAY_MS) days.add(d);
    const sorted = [...days].sort((a, b) => a - b);
    const files: string[] = [];
    const spans: Array<[number, number]> = [];
    const today = utcDayStart(now);
    for (const day of sorted) {
      const file = useFiles ? await this.options.dayFiles.fileFor(siteId, utcDay(day), now) : null;
      if (file !== null) files.push(file);
      else if (day === today) continue;
      else if (spans.length > 0 && spans[spans.length - 1]![1] === day) spans[spans.length - 1]![1] = day + DAY_MS;
      else spans.push([day, day + DAY_MS]);
    }
    // Rows of days without a file: today from the kept, sessionized copy (today-rows.ts), other days copied for
    // this query.
    const raws: string[] = [];
    const arms: string[] = [];
    if (days.has(today)) {
      await this.today.dropIdle(connection, now);
      arms.push(await this.today.refresh(connection, siteId, now));
    }
    for (const [i, [from, to]] of spans.entries()) {
      await connection.run(`drop table if exists raw${i}`);
      const csv = path.join(this.options.tempDir, `rows-${randomUUID()}.csv`);
      scratch.push(csv);
      await copyRawRows(this.options.pool, siteId, from, to, csv);
      await connection.run(`create temp table raw${i} as select * from ${readCsvSql(csv)}`);
      raws.push(`raw${i}`);
    }
    if (files.length > 0) arms.push(`read_parquet([${files.map((f) => `'${f.replaceAll("'", "''")}'`).join(", ")}])`);
    if (raws.length > 0) {
      const raw = raws.map((r) => `select * from ${r}`).join(" union all ");
      // Sessionized only when the query reads a visit column (rows.ts enrichSql); the files carry them already.
      await connection.run(`drop table if exists live; create temp table live as ${visits ? enrichSql(`(${raw})`) : withoutVisits(`(${raw})`)}`);
      arms.push("live");
    }
    if (arms.length === 0) return { relation: `(${emptyRelation()})`, arms: [], files };
    await connection.run(`create or replace temp view src as ${arms.map((a) => `select * from ${a}`).join(" union all ")}`);
    return { relation: "src", arms, files };
  }
}

/**
 * A query's CSV copy of PostgreSQL rows (`load`) is removed when the query ends; one untouched this long was left
 * by a crash (a copy is written in seconds: ~1.3 s for a busy day), and another gateway sharing the data directory
 * has none this old. Without this, each crash mid-query left up to a day's rows as CSV in the temp directory.
 */
const ABANDONED_SCRATCH_MS = 10 * 60_000;
const SCRATCH_FILE = /^rows-[0-9a-f-]+\.csv$/;


/** The rows a statement reads: the view `src` of them all, and the relations it is the union of (SqlContext.arms). */
interface LoadedRows {
  readonly relation: string;
  readonly arms: readonly string[];
}

const VISIT_READING: ReadonlySet<string> = new Set(["visits", "bounce_rate", "visit_duration", "views_per_visit", "visit:entry_page", "visit:exit_page"]);

const isOutOfMemory = (error: unknown): boolean => error instanceof Error && error.message.startsWith("Out of Memory Error");

/** Whether the query reads a visit column (visit metrics, entry or exit page), so today's rows need sessionizing. */
export function readsVisits(plan: QueryPlan): boolean {
  return [...plan.metrics, ...plan.dimensions, ...filterLeaves(plan.filters).map((l) => l.dimension)].some((x) => VISIT_READING.has(x));
}

/** Each `matches` pattern compiled once by DuckDB's RE2 first, so a bad one is a 400 naming it, not a 500. */
async function checkPatterns(connection: DuckDBConnection, plan: QueryPlan): Promise<void> {
  for (const leaf of filterLeaves(plan.filters)) {
    if (leaf.op !== "matches" && leaf.op !== "matches_not") continue;
    for (const [i, pattern] of leaf.clauses.entries()) {
      try {
        await connection.run("select regexp_matches('', $1)", [pattern]);
      } catch {
        throw new ApiError("invalid_body", `${leaf.path}[2][${i}]: not a valid regular expression (RE2 syntax)`, [{ path: `${leaf.path}[2][${i}]`, message: "not a valid regular expression (RE2 syntax)" }]);
      }
    }
  }
}

function emptyRelation(): string {
  return `${enrichSql(`(select * from ${readCsvSql("/dev/null")})`)}`;
}

async function siteGoals(pool: pg.Pool, siteId: number): Promise<QueryGoal[]> {
  return (await listGoals(pool, siteId)).map((g) => (g.page_path === null ? { name: g.name, kind: "event", match: g.name } : { name: g.name, kind: "page", match: g.page_path }));
}

/** Plausible's change: points for rates, a whole percent otherwise (100 from nothing, 0 for nothing to nothing). */
export function change(metric: Metric, now: number, before: number): number | null {
  if (metric === "bounce_rate" || metric === "conversion_rate" || metric === "group_conversion_rate" || metric === "percentage") return Math.round((now - before) * 10) / 10;
  if (before === 0) return now > 0 ? 100 : 0;
  return Math.round(((now - before) / before) * 100);
}

function attachComparison(plan: QueryPlan, main: ResultRow[], other: ResultRow[], series: { main: string[]; other: string[] } | null): ResultRow[] {
  const zeros = plan.metrics.map(() => 0);
  const withChange = (row: ResultRow, against: ResultRow): ResultRow => ({
    ...row,
    comparison: { dimensions: against.dimensions, metrics: against.metrics, change: plan.metrics.map((m, i) => change(m, row.metrics[i]!, against.metrics[i]!)) },
  });
  if (series !== null) {
    // A time series lists every bucket of the range, each beside the bucket at the same place in the other.
    const byLabel = (rows: ResultRow[]) => new Map(rows.map((r) => [r.dimensions[0]!, r]));
    const mine = byLabel(main);
    const theirs = byLabel(other);
    let rows = series.main.map((label, i) => {
      const row = mine.get(label) ?? { dimensions: [label], metrics: zeros };
      const otherLabel = series.other[i];
      const against = otherLabel === undefined ? { dimensions: [], metrics: zeros } : (theirs.get(otherLabel) ?? { dimensions: [otherLabel], metrics: zeros });
      return withChange(row, against);
    });
    if (plan.orderGiven) rows = sortRows(plan, rows);
    return rows;
  }
  const key = (r: ResultRow): string => JSON.stringify(r.dimensions);
  const theirs = new Map(other.map((r) => [key(r), r]));
  return main.map((row) => withChange(row, theirs.get(key(row)) ?? { dimensions: row.dimensions, metrics: zeros }));
}

/** The order of the SQL (sql.ts): the query's order_by, then every dimension ascending. */
function sortRows(plan: QueryPlan, rows: ResultRow[]): ResultRow[] {
  const terms = [...plan.orderBy, ...plan.dimensions.map((d) => [d, "asc"] as const)];
  return [...rows].sort((a, b) => {
    for (const [name, dir] of terms) {
      const di = plan.dimensions.indexOf(name);
      const x = di >= 0 ? a.dimensions[di]! : a.metrics[plan.metrics.indexOf(name as Metric)]!;
      const y = di >= 0 ? b.dimensions[di]! : b.metrics[plan.metrics.indexOf(name as Metric)]!;
      if (x !== y) return (x < y ? -1 : 1) * (dir === "asc" ? 1 : -1);
    }
    return 0;
  });
}

function filterEcho(f: Filter): unknown {
  if (!isLeaf(f)) return "children" in f ? [f.op, f.children.map(filterEcho)] : ["not", filterEcho(f.child)];
  return f.caseSensitive ? [f.op, f.dimension, f.clauses] : [f.op, f.dimension, f.clauses, { case_sensitive: false }];
}

function echo(plan: QueryPlan, site: SiteRecord, range: ResolvedRange, compared: ResolvedRange | null, timeZone: string, allActors: boolean): Record<string, unknown> {
  // The second of the first and of the last instant counted (a date-time end counts its whole second; "24h" ends now).
  const iso = (r: ResolvedRange) => [isoInZone(r.fromMs, timeZone), isoInZone(r.toMs - 1, timeZone)];
  const include: Record<string, unknown> = { time_labels: plan.include.timeLabels, total_rows: plan.include.totalRows };
  if (plan.include.comparisons !== null) {
    const c = plan.include.comparisons;
    include["comparisons"] = { mode: c.mode, match_day_of_week: c.matchDayOfWeek, ...(c.dateRange ? { date_range: c.dateRange } : {}) };
  }
  return {
    site_id: site.domain,
    metrics: plan.metrics,
    date_range: iso(range),
    ...(compared ? { comparison_date_range: iso(compared) } : {}),
    dimensions: plan.dimensions,
    filters: plan.filters.map(filterEcho),
    order_by: plan.orderBy,
    include,
    pagination: { limit: plan.limit, offset: plan.offset },
    time_zone: timeZone,
    actors: allActors ? "all" : "human",
  };
}
