// The writer's own pool and the pools' timeouts, over real HTTP and PostgreSQL: with every connection of
// the shared pool held (a flood of look-ups, slow reads), events are still stored and acknowledged; a pool
// checkout gives up after the acquire timeout and a statement past the statement timeout is cancelled.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigInvalid, loadConfig } from "../src/config.ts";
import { openDatabase, openWritePool } from "../src/storage/database.ts";
import { DEFAULT_ACQUIRE_TIMEOUT_MS, DEFAULT_STATEMENT_TIMEOUT_MS, DEFAULT_WRITE_STATEMENT_TIMEOUT_MS } from "../src/storage/pool-limits.ts";
import { createTestDatabase, type TestDatabase } from "./support/database.ts";
import { type Harness, UA, post, startHarness } from "./support/harness.ts";

describe("configuration", () => {
  it("defaults to a 5 s acquire timeout, 60 s statements on the shared pool and 30 s on the writer's, and names each bad value", () => {
    expect(loadConfig({}).databasePools).toEqual({
      shared: { acquireTimeoutMs: DEFAULT_ACQUIRE_TIMEOUT_MS, statementTimeoutMs: DEFAULT_STATEMENT_TIMEOUT_MS },
      write: { acquireTimeoutMs: DEFAULT_ACQUIRE_TIMEOUT_MS, statementTimeoutMs: DEFAULT_WRITE_STATEMENT_TIMEOUT_MS },
    });
    expect([DEFAULT_ACQUIRE_TIMEOUT_MS, DEFAULT_STATEMENT_TIMEOUT_MS, DEFAULT_WRITE_STATEMENT_TIMEOUT_MS]).toEqual([5_000, 60_000, 30_000]);
    const bad = { SVC_DB_ACQUIRE_TIMEOUT_MS: "10", SVC_DB_STATEMENT_TIMEOUT_MS: "-1", SVC_DB_WRITE_STATEMENT_TIMEOUT_MS: "soon" };
    expect(() => loadConfig(bad)).toThrow(ConfigInvalid);
    try {
      loadConfig(bad);
    } catch (error) {
      expect((error as ConfigInvalid).problems).toEqual([
        `SVC_DB_ACQUIRE_TIMEOUT_MS="10" is invalid: expected an integer 100..600000 (milliseconds)`,
        `SVC_DB_STATEMENT_TIMEOUT_MS="-1" is invalid: expected an integer 0..3600000 (milliseconds; 0 = none)`,
        `SVC_DB_WRITE_STATEMENT_TIMEOUT_MS="soon" is invalid: expected an integer 0..3600000 (milliseconds; 0 = none)`,
      ]);
    }
  });
});

describe("the pools' timeouts", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("the writer's pool: one connection per commit in flight plus two, a bounded wait for one, statements cancelled", async () => {
    const pool = openWritePool(db.url, 1, { acquireTimeoutMs: 300, statementTimeoutMs: 200 }, () => undefined);
    try {
      await expect(pool.query("select pg_sleep(1)")).rejects.toThrow(/statement timeout/);
      const held = await Promise.all([pool.connect(), pool.connect(), pool.connect()]);
      const started = performance.now();
      await expect(pool.connect()).rejects.toThrow(/timeout/i);
      expect(performance.now() - started).toBeLessThan(3_000);
      for (const c of held) c.release();
      expect((await pool.query("select 1 as ok")).rows[0].ok).toBe(1);
    } finally {
      await pool.end();
    }
  });

  it("the shared pool takes its statement timeout from the configuration; migrations are not bound by it", async () => {
    // 1 s: long enough for the boot's partition statements on a busy 2-core box (150 ms was not).
    const opened = await openDatabase({ url: db.url, dataDir: "/nonexistent", log: () => undefined, limits: { acquireTimeoutMs: 5_000, statementTimeoutMs: 1_000 } });
    try {
      expect((await opened.pool.query("show statement_timeout")).rows[0].statement_timeout).toBe("1s");
      await expect(opened.pool.query("select pg_sleep(3)")).rejects.toThrow(/statement timeout/);
    } finally {
      await opened.close();
    }
  });
});

describe("events with the shared pool exhausted", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sites: ["pools.example"], env: { SVC_TRUST_PROXY: "1" } });
  });
  afterAll(async () => {
    await h?.close();
  });

  const event = (path: string) =>
    post(h.base, "/api/event", { d: "pools.example", u: `https://pools.example${path}` }, { "user-agent": UA.chrome, "x-forwarded-for": "81.2.69.142" });

  it("are still stored and acknowledged: the writer and the flusher have their own pool", async () => {
    expect((await event("/warm")).status).toBe(202); // the site and today's salt are now in memory
    // Every connection of the shared pool held, as a flood of look-ups or slow reads would hold them.
    const held: pg.PoolClient[] = [];
    for (let i = 0; i < h.pool.options.max; i++) held.push(await h.pool.connect());
    try {
      const acked = await Promise.race([event("/during"), new Promise<null>((r) => setTimeout(() => r(null), 5_000))]);
      expect(acked?.status).toBe(202);
      await h.gateway.rollups.flushBeforeRead();
      const stored = await held[0]!.query("select page from events where page = '/during'");
      expect(stored.rowCount).toBe(1);
      const rollup = await held[0]!.query("select pageviews::int from rollup_daily where dim = 'page' and value = '/during' and actor = 'human'");
      expect(rollup.rows).toEqual([{ pageviews: 1 }]);
    } finally {
      for (const c of held) c.release();
    }
  });
});
