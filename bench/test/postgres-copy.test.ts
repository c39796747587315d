// The workload of `npm run bench:postgres-copy` commits the scenario's rows through the gateway's own writer and
// reads the CPU of the PostgreSQL backend that ran them: every row it reports is in the tables, and both figures
// are measured, not zero.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../gateway/test/support/database.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

describe("postgres copy workload", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    // The rows are stamped now: this month's partitions, as the gateway makes them at boot.
    db = await createTestDatabase({ nowMs: Date.now() });
  });
  afterAll(async () => {
    await db.drop();
  });

  it("commits the scenario's rows in lane-turn batches and reports the backend's and the writer's CPU a row", async () => {
    const out = spawnSync(process.execPath, ["--import", "tsx", "bench/src/postgres-copy.ts", "--commits", "40", "--warm-up", "5"], {
      cwd: root, encoding: "utf8", env: { ...process.env, DATABASE_URL: db.url },
    });
    expect(out.status, out.stderr).toBe(0);
    const figures = JSON.parse(out.stdout.trim().split("\n").at(-1)!) as { commits: number; rows: number; postgres_us_per_row: number; writer_us_per_row: number; postgres_us_per_commit: number };
    expect(figures.commits).toBe(40);
    // ~37 rows a lane turn of 32 requests (a hit array carries several).
    expect(figures.rows).toBeGreaterThan(40 * 32);
    const stored = (await db.pool.query<{ n: number }>("select (select count(*) from events) + (select count(*) from hits) as n")).rows[0]!;
    const warmUpRows = Number(stored.n) - figures.rows;
    expect(warmUpRows).toBeGreaterThanOrEqual(5 * 32);
    expect(warmUpRows).toBeLessThan(5 * 64);
    expect(figures.postgres_us_per_row).toBeGreaterThan(0);
    expect(figures.writer_us_per_row).toBeGreaterThan(0);
    expect(figures.postgres_us_per_commit).toBeCloseTo((figures.postgres_us_per_row * figures.rows) / 40, 0);
  });
});
