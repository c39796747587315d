// The engine counts distinct visitors per arm of the union it reads rows from (sql.ts perArm): over a UNION ALL,
// DuckDB's grouped count(distinct) keeps what it has grouped in memory, where over one scan it spills past the
// memory limit. A settled day's file of 3M generated rows (5,000 pages, 400,000 visitors, 1,500,000 visits of two
// rows) beside a few of today's rows, under a 64 MB limit (of which today's CSV reader takes 30.5 MB): counted
// through the union, the page breakdown runs out of memory (503); per arm it answers, exact. Visits grouped under
// an event filter spill through the union and answer too. Real PostgreSQL, real DuckDB.
import { randomBytes } from "node:crypto";
import { rename } from "node:fs/promises";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DayFiles } from "../../src/parquet/day-files.ts";
import { QueryEngine } from "../../src/query/engine.ts";
import { parseQuery } from "../../src/query/request.ts";
import { findSiteById } from "../../src/storage/sites.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { writeDayFiles } from "../support/query-engine.ts";

const NOW = "2026-03-15T12:00:00Z";
const SETTLED = "2026-03-14";
const ROWS = 3_000_000;
/** Today's rows: one-row visits of their own visitors, on pages the file also has. */
const TODAY_PAGES = ["/p/1", "/p/1", "/p/2", "/p/10", "/q"];

let h: Harness;
let engine: QueryEngine;
let siteId: number;
let file: string;

beforeAll(async () => {
  h = await startHarness({ now: NOW, sites: ["spill.example"] });
  siteId = (await h.pool.query("select id from sites")).rows[0].id;
  const insert = (at: string, page: string) =>
    h.pool.query(
      "insert into events (site_id, ts, name, page, channel, device, actor, rule, visitor_hash) values ($1, $2, 'pageview', $3, 'Direct', 'Desktop', 'human', 'test', $4)",
      [siteId, new Date(at), page, randomBytes(32)],
    );
  await insert(`${SETTLED}T10:00:00Z`, "/p/0");
  for (const [i, page] of TODAY_PAGES.entries()) await insert(`2026-03-15T0${i}:00:00Z`, page);
  await h.pool.query("insert into rollup_daily (site_id, bucket, actor, dim, value, visitors) values ($1, $2, 'all', 'total', '', 1)", [siteId, SETTLED]);
  expect(await writeDayFiles(h, NOW)).toBe(1);
  file = (await new DayFiles(h.dataDir).fileFor(siteId, SETTLED, Date.parse(NOW)))!;

  // The written file's one row, made 3M: its columns and types as the writer made them.
  const db = await DuckDBInstance.create(":memory:");
  try {
    const connection = await db.connect();
    await connection.run(`copy (
      select t.* replace ('/p/' || (i % 5000) as page, (hash(i) % 400000)::bigint as visitor, ts + i % 1000 as ts,
        hash(i % 1500000) as visit, 2::bigint as v_events, false as v_bounce)
      from read_parquet('${file}') t, range(${ROWS}) r(i)) to '${file}.big' (format parquet)`);
    connection.closeSync();
  } finally {
    db.closeSync();
  }
  await rename(`${file}.big`, file);
  engine = await QueryEngine.open({
    pool: h.pool, now: h.clock.now, tempDir: path.join(h.dataDir, "spill-tmp"), dayFiles: new DayFiles(h.dataDir),
    flushRollups: () => h.gateway.rollups.flushBeforeRead(), memoryLimit: "64MB",
  });
}, 120_000);
afterAll(async () => {
  engine.close();
  await h.close();
});

/** The same numbers from the file alone (DuckDB, no limit to speak of), plus today's rows counted here. */
async function expected(sql: string): Promise<Array<[string, number]>> {
  const db = await DuckDBInstance.create(":memory:");
  try {
    const connection = await db.connect();
    const rows = (await connection.runAndReadAll(sql.replace("$file", `read_parquet('${file}')`))).getRowsJS();
    connection.closeSync();
    return rows.map((r) => [String(r[0]), Number(r[1])]);
  } finally {
    db.closeSync();
  }
}

const run = async (body: Record<string, unknown>) =>
  engine.run((await findSiteById(h.pool, siteId))!, parseQuery({ site_id: "spill.example", date_range: [SETTLED, "2026-03-15"], ...body }));

it("distinct visitors by page over 3M rows answer in 64 MB, each page's file and today's visitors added up", async () => {
  // A filter, so DuckDB answers (the rollups hold an unfiltered page breakdown).
  const answer = await run({ metrics: ["visitors", "pageviews"], dimensions: ["event:page"], filters: [["contains", "event:page", ["/"]]], pagination: { limit: 5 } });
  const fromFile = new Map(await expected("select page, count(distinct visitor) from $file group by page"));
  for (const page of TODAY_PAGES) fromFile.set(page, (fromFile.get(page) ?? 0) + 1);
  const top = [...fromFile].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5);
  expect(answer.results.map((r) => [r.dimensions[0], r.metrics[0]])).toEqual(top);
  // 600 rows a page in the file, each its own pageview.
  expect(answer.results[0]!.metrics[1]).toBe(600 + TODAY_PAGES.filter((p) => p === top[0]![0]).length);
}, 60_000);

it("visits under an event filter (grouped by visit) answer in 64 MB: the file's visits and today's one-row visits", async () => {
  const answer = await run({ metrics: ["visits", "bounce_rate"], filters: [["contains", "event:page", ["/p/"]]] });
  const fileVisits = (await expected("select 'all', count(distinct visit) from $file where page like '%/p/%'"))[0]![1];
  const todayVisits = TODAY_PAGES.filter((p) => p.includes("/p/")).length;
  expect(answer.results[0]!.metrics[0]).toBe(fileVisits + todayVisits);
  expect(answer.results[0]!.metrics[1]).toBe(Math.round((100 * todayVisits) / (fileVisits + todayVisits)));
}, 60_000);
