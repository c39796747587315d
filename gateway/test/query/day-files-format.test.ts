// The day files' format marker (parquet/day-files.ts DAY_FILES_FORMAT): a root written before the marker (or by
// another format) is not read, and the next pass empties it and writes its days again with today's columns.
// Real PostgreSQL, real DuckDB.
import { randomBytes } from "node:crypto";
import { mkdir, readFile, readdir, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DAY_FILES_FORMAT, DayFiles } from "../../src/parquet/day-files.ts";
import { type Harness, startHarness } from "../support/harness.ts";

const NOW = Date.parse("2026-03-15T12:00:00Z");
let h: Harness;
let db: DuckDBInstance;
let siteId: number;

beforeAll(async () => {
  h = await startHarness({ now: "2026-03-15T12:00:00Z", sites: ["format.example"] });
  siteId = (await h.pool.query("select id from sites")).rows[0].id;
  await h.pool.query(
    "insert into events (site_id, ts, name, page, channel, device, actor, rule, visitor_hash) values ($1, '2026-03-14T10:00:00Z', 'pageview', '/a', 'Direct', 'Desktop', 'human', 'test', $2)",
    [siteId, randomBytes(32)],
  );
  await h.pool.query("insert into rollup_daily (site_id, bucket, actor, dim, value, visitors) values ($1, '2026-03-14', 'all', 'total', '', 1)", [siteId]);
  db = await DuckDBInstance.create(":memory:");
});
afterAll(async () => {
  db.closeSync();
  await h.close();
});

it("a root without the current marker is not read, then emptied and written again by the pass", async () => {
  const dataDir = path.join(h.dataDir, "format-test");
  const old = path.join(dataDir, "parquet", `site-${siteId}`);
  await mkdir(old, { recursive: true });
  // What the code before the marker left: a day file without v_first and v_human (its contents do not matter).
  await writeFile(path.join(old, "2026-03-14.parquet"), "format 1");
  await writeFile(path.join(old, "2026-03-13.parquet"), "format 1, a day without rows now");
  const files = new DayFiles(dataDir);
  expect(await files.fileFor(siteId, "2026-03-14", NOW)).toBeNull();

  const pass = await files.pass(h.pool, () => db.connect(), NOW);
  expect(pass).toEqual({ written: 1, removed: 1 });
  expect((await readFile(path.join(dataDir, "parquet", "format"), "utf8")).trim()).toBe(String(DAY_FILES_FORMAT));
  expect(await readdir(old)).toEqual(["2026-03-14.parquet"]);
  const file = await files.fileFor(siteId, "2026-03-14", NOW);
  expect(file).not.toBeNull();
  const connection = await db.connect();
  try {
    const rows = (await connection.runAndReadAll(`select page, v_first, v_human from read_parquet('${file}')`)).getRowsJS();
    expect(rows).toEqual([["/a", true, true]]);
  } finally {
    connection.closeSync();
  }
  // A root already of this format is left as it is.
  expect(await new DayFiles(dataDir).pass(h.pool, () => db.connect(), NOW)).toEqual({ written: 0, removed: 0 });
});

it("a pass removes the temporary files a crash left, not those another pass is writing", async () => {
  const dataDir = path.join(h.dataDir, "leftover-test");
  const files = new DayFiles(dataDir);
  expect((await files.pass(h.pool, () => db.connect(), NOW)).written).toBe(1);
  const dir = path.join(dataDir, "parquet", `site-${siteId}`);
  const crashed = ["2026-03-12.parquet.a1.tmp", "2026-03-12.parquet.a1.csv.tmp"];
  const writing = ["2026-03-13.parquet.b2.tmp", "2026-03-13.parquet.b2.csv.tmp"];
  const hourAgo = new Date(Date.now() - 3_600_000);
  for (const name of crashed) {
    await writeFile(path.join(dir, name), "half");
    await utimes(path.join(dir, name), hourAgo, hourAgo);
  }
  for (const name of writing) await writeFile(path.join(dir, name), "in progress");

  expect(await files.pass(h.pool, () => db.connect(), NOW)).toEqual({ written: 0, removed: 2 });
  expect((await readdir(dir)).sort()).toEqual(["2026-03-13.parquet.b2.csv.tmp", "2026-03-13.parquet.b2.tmp", "2026-03-14.parquet"]);
});
