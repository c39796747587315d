// Today's rows kept in DuckDB between queries (query/today-rows.ts): a refresh copies only what is new, and a
// row committed late with an older time stamp (or an import into today) makes the counts differ, so the day is
// copied whole again. Real PostgreSQL, real DuckDB.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DayFiles } from "../../src/parquet/day-files.ts";
import { QueryEngine } from "../../src/query/engine.ts";
import { parseQuery } from "../../src/query/request.ts";
import { findSiteById } from "../../src/storage/sites.ts";
import { TODAY_CATALOG, TODAY_IDLE_MS, TODAY_VERDICT_MS, TodayRows } from "../../src/query/today-rows.ts";
import { type Harness, startHarness } from "../support/harness.ts";

const NOW = Date.parse("2026-03-15T12:00:00Z");
let h: Harness;
let db: DuckDBInstance;
let connection: DuckDBConnection;
let siteId: number;

beforeAll(async () => {
  h = await startHarness({ now: "2026-03-15T12:00:00Z", sites: ["today.example"] });
  siteId = (await h.pool.query("select id from sites")).rows[0].id;
  db = await DuckDBInstance.create(":memory:");
  connection = await db.connect();
});
afterAll(async () => {
  connection.closeSync();
  db.closeSync();
  await h.close();
});

const insert = (atMs: number, page: string, visitor = randomBytes(32)) =>
  h.pool.query(
    "insert into events (site_id, ts, name, page, channel, device, actor, rule, visitor_hash) values ($1, $2, 'pageview', $3, 'Direct', 'Desktop', 'human', 'test', $4)",
    [siteId, new Date(atMs), page, visitor],
  );
const pages = async (table: string) => (await connection.runAndReadAll(`select page from ${table} order by ts, page`)).getRowsJS().map((r) => r[0]);

it("copies the day once, then only what is new; a late row before the watermark reloads the day once the check's verdict is due", async () => {
  // The verdict's age is wall-clock time, here a clock of the test's own.
  let wall = 0;
  const today = new TodayRows(h.pool, path.join(h.dataDir, "today-tmp"), { elapsed: () => wall });
  await insert(NOW - 3_600_000, "/a");
  await insert(NOW - 10_000, "/b");
  const table = await today.refresh(connection, siteId, NOW);
  expect(await pages(table)).toEqual(["/a", "/b"]);

  // New rows, one inside the minute the watermark trails by: both come with the next refresh, once each.
  await insert(NOW + 5_000, "/c");
  await today.refresh(connection, siteId, NOW + 30_000);
  expect(await pages(table)).toEqual(["/a", "/b", "/c"]);
  await today.refresh(connection, siteId, NOW + 40_000);
  expect(await pages(table)).toEqual(["/a", "/b", "/c"]);

  // A row committed late, two hours in the past: while the last check's verdict stands it is not looked for
  // (rows from the watermark on still come, "/d")…
  await insert(NOW - 7_200_000, "/late");
  await insert(NOW + 45_000, "/d");
  wall += TODAY_VERDICT_MS - 1;
  await today.refresh(connection, siteId, NOW + 50_000);
  expect(await pages(table)).toEqual(["/a", "/b", "/c", "/d"]);
  // …then the count before the watermark differs, and the day is reloaded.
  wall += 1;
  await today.refresh(connection, siteId, NOW + 51_000);
  expect(await pages(table)).toEqual(["/late", "/a", "/b", "/c", "/d"]);
  // `forget` (an import into today) reloads the day at once, verdict or not.
  await insert(NOW - 7_100_000, "/imported");
  await today.refresh(connection, siteId, NOW + 52_000);
  expect(await pages(table)).not.toContain("/imported");
  today.forget(siteId);
  await today.refresh(connection, siteId, NOW + 53_000);
  expect(await pages(table)).toEqual(["/late", "/imported", "/a", "/b", "/c", "/d"]);

  // The next day starts empty.
  await today.refresh(connection, siteId, NOW + 86_400_000);
  expect(await pages(table)).toEqual([]);
});

it("keeps the visit columns: a new row of a visit sessionizes that visitor again, the others stay", async () => {
  const today = new TodayRows(h.pool, path.join(h.dataDir, "today-tmp"));
  const at = NOW + 2 * 86_400_000;
  const visitor = randomBytes(32);
  await insert(at - 1_200_000, "/x", visitor);
  await insert(at - 3_000_000, "/other");
  const table = await today.refresh(connection, siteId, at);
  const visits = async () =>
    (await connection.runAndReadAll(`select page, v_entry, v_exit, v_pageviews, v_duration, v_bounce, v_first, v_human from ${table} order by ts`)).getRowsJS();
  expect(await visits()).toEqual([
    ["/other", "/other", "/other", 1n, 0, true, true, true],
    ["/x", "/x", "/x", 1n, 0, true, true, true],
  ]);
  // 20 minutes later in the same visit: its two rows carry the longer visit, its first row alone v_first.
  await insert(at + 5_000, "/y", visitor);
  await today.refresh(connection, siteId, at + 30_000);
  expect(await visits()).toEqual([
    ["/other", "/other", "/other", 1n, 0, true, true, true],
    ["/x", "/x", "/y", 2n, 1205, false, true, true],
    ["/y", "/x", "/y", 2n, 1205, false, false, true],
  ]);
});

it("a query reading the table while another refreshes it sees every row of the minute being copied again", async () => {
  const today = new TodayRows(h.pool, path.join(h.dataDir, "today-tmp-2"));
  // A day of its own: the tests before wrote rows into the day after tomorrow.
  const day = NOW + 3 * 86_400_000;
  for (let i = 0; i < 5; i++) await insert(day + 3_600_000 + i * 1000, `/recent-${i}`);
  const table = await today.refresh(connection, siteId, day + 3_600_000 + 10_000);
  // Every row is younger than the watermark's minute: each refresh deletes and copies all of them again. A
  // reader on its own connection, counting throughout, must never see fewer than five.
  const reader = await db.connect();
  try {
    const counts: number[] = [];
    let refreshing = true;
    const reading = (async () => {
      while (refreshing) counts.push(Number((await reader.runAndReadAll(`select count(*)::double from ${table}`)).getRowsJS()[0]![0]));
    })();
    // A new row before each refresh, so each one writes (a refresh that finds nothing new leaves the table be).
    for (let n = 0; n < 20; n++) {
      await insert(day + 3_600_000 + 15_000 + n, `/new-${n}`);
      await today.refresh(connection, siteId, day + 3_600_000 + 20_000 + n);
    }
    refreshing = false;
    await reading;
    expect(counts.length).toBeGreaterThan(0);
    expect(Math.min(...counts)).toBe(5);
    expect(Number((await reader.runAndReadAll(`select count(*)::double from ${table}`)).getRowsJS()[0]![0])).toBe(25);
  } finally {
    reader.closeSync();
  }
});

it("drops a site's table once no query read it for ten minutes, and copies the day again when asked", async () => {
  const today = new TodayRows(h.pool, path.join(h.dataDir, "today-tmp"));
  await insert(NOW - 1_800_000, "/idle");
  const table = await today.refresh(connection, siteId, NOW);
  const exists = async () => (await connection.runAndReadAll(`select count(*)::int from duckdb_tables() where database_name || '.' || table_name = '${table}'`)).getRowsJS()[0]![0] === 1;
  expect(await today.dropIdle(connection, NOW + TODAY_IDLE_MS)).toEqual([]);
  expect(await exists()).toBe(true);
  expect(await today.dropIdle(connection, NOW + TODAY_IDLE_MS + 1)).toEqual([siteId]);
  expect(await exists()).toBe(false);
  // Asked again: the day is copied whole (nothing of the dropped copy is trusted).
  await today.refresh(connection, siteId, NOW + TODAY_IDLE_MS + 2);
  expect(await pages(table)).toContain("/idle");
  expect(await today.dropIdle(connection, NOW + TODAY_IDLE_MS + 3)).toEqual([]);
});

it("keeps the tables in a DuckDB file of their own, and drops what an earlier process left in it", async () => {
  const dir = path.join(h.dataDir, "today-file");
  const earlier = await DuckDBInstance.create(":memory:");
  const before = await earlier.connect();
  await before.run(`attach '${TodayRows.file(dir)}' as left_over`).catch(async () => {
    const { mkdir } = await import("node:fs/promises");
    await mkdir(dir, { recursive: true });
    await before.run(`attach '${TodayRows.file(dir)}' as left_over`);
  });
  await before.run("create table left_over.today_site_999 as select 1 as x");
  before.closeSync();
  earlier.closeSync();

  const fresh = await DuckDBInstance.create(":memory:");
  const mine = await fresh.connect();
  try {
    await insert(NOW - 600_000, "/filed");
    const table = await new TodayRows(h.pool, dir).refresh(mine, siteId, NOW);
    expect(table.startsWith(`${TODAY_CATALOG}.`)).toBe(true);
    const tables = (await mine.runAndReadAll(`select database_name, table_name from duckdb_tables() where database_name = '${TODAY_CATALOG}' order by table_name`)).getRowsJS();
    expect(tables).toEqual([[TODAY_CATALOG, `today_site_${siteId}`]]);
    expect((await mine.runAndReadAll(`select page from ${table} where page = '/filed'`)).getRowsJS()).toEqual([["/filed"]]);
  } finally {
    mine.closeSync();
    fresh.closeSync();
  }
});

it("removes the today files crashed processes left (untouched for a day), never a live one's or its own", async () => {
  const dir = path.join(h.dataDir, "today-abandoned");
  await mkdir(dir, { recursive: true });
  const dayAgo = new Date(Date.now() - 25 * 3_600_000);
  const crashed = ["today-rows-4000001.duckdb", "today-rows-4000001.duckdb.wal"];
  const live = ["today-rows-4000002.duckdb", "rows-0b7d.csv"];
  for (const name of [...crashed, ...live]) await writeFile(path.join(dir, name), "x");
  for (const name of [...crashed, "rows-0b7d.csv"]) await utimes(path.join(dir, name), dayAgo, dayAgo);
  const fresh = await DuckDBInstance.create(":memory:");
  const mine = await fresh.connect();
  try {
    await new TodayRows(h.pool, dir).refresh(mine, siteId, NOW);
    expect((await readdir(dir)).filter((n) => !n.startsWith(`today-rows-${process.pid}`)).sort()).toEqual(["rows-0b7d.csv", "today-rows-4000002.duckdb"]);
    expect(existsSync(TodayRows.file(dir))).toBe(true);
  } finally {
    mine.closeSync();
    fresh.closeSync();
  }
});

it("the engine's first query removes the CSV copies a crashed query left (untouched for 10 minutes), never a running one's", async () => {
  const dir = path.join(h.dataDir, "scratch-abandoned");
  await mkdir(dir, { recursive: true });
  const crashed = "rows-6f1c0a52-1d7e-4c55-9a1e-3b0f2f8e0a11.csv";
  const running = "rows-0c9e7a10-5b2d-4f0a-8e77-1a2b3c4d5e6f.csv";
  const other = "notes.csv";
  for (const name of [crashed, running, other]) await writeFile(path.join(dir, name), "x");
  const elevenMinutesAgo = new Date(Date.now() - 11 * 60_000);
  for (const name of [crashed, other]) await utimes(path.join(dir, name), elevenMinutesAgo, elevenMinutesAgo);
  const engine = await QueryEngine.open({ pool: h.pool, now: h.clock.now, tempDir: dir, dayFiles: new DayFiles(h.dataDir), flushRollups: () => h.gateway.rollups.flushBeforeRead() });
  try {
    await engine.checkFilters(parseQuery({ site_id: "today.example", date_range: "day", metrics: ["visitors"] }));
    expect((await readdir(dir)).filter((n) => n.endsWith(".csv")).sort()).toEqual([other, running].sort());
  } finally {
    engine.close();
  }
});

it("the engine counts a row imported into today at the next query, though the last check's verdict still stands", async () => {
  // A verdict of 10 minutes: it stands throughout, however slow the box.
  // Queries of the engine at the harness's clock, on a day of their own (the tests above wrote other days).
  const day = NOW + 5 * 86_400_000;
  h.clock.set(new Date(day + 6 * 3_600_000).toISOString());
  const engine = await QueryEngine.open({ pool: h.pool, now: h.clock.now, tempDir: path.join(h.dataDir, "engine-tmp"), dayFiles: new DayFiles(h.dataDir), flushRollups: () => h.gateway.rollups.flushBeforeRead(), todayRows: { verdictMs: 600_000 } });
  try {
    const site = (await findSiteById(h.pool, siteId))!;
    const pageviews = async () =>
      (await engine.run(site, parseQuery({ site_id: site.domain, date_range: "day", metrics: ["pageviews", "visits"], filters: [["contains", "event:page", ["/engine-"]]] }))).results[0]!.metrics;
    await insert(day + 3_600_000, "/engine-a");
    expect(await pageviews()).toEqual([1, 1]);
    // Two hours before the clock, committed now: before the watermark, so the copy from it misses the row…
    await insert(day + 4 * 3_600_000, "/engine-late");
    expect(await pageviews()).toEqual([1, 1]);
    // …until an import names today: the next query copies the day whole.
    const today = new Date(day).toISOString().slice(0, 10);
    await engine.invalidateDays(siteId, today, today);
    expect(await pageviews()).toEqual([2, 2]);
    expect(existsSync(TodayRows.file(path.join(h.dataDir, "engine-tmp")))).toBe(true);
  } finally {
    engine.close();
  }
  // Closed, the engine removes its file of today's tables.
  await expect.poll(() => existsSync(TodayRows.file(path.join(h.dataDir, "engine-tmp")))).toBe(false);
});
