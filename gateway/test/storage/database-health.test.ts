// Which errors mean "the database is gone" (and so a 503 and the probe), and what the probe concludes
// against a real server: a single killed connection on a healthy server marks nothing down; a server that
// refuses connections is marked down. The whole outage cycle is test/database-restart.test.ts.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.ts";
import { DatabaseHealth, isConnectionError } from "../../src/storage/database-health.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe("isConnectionError", () => {
  it.each([
    ["admin shutdown (pg_ctl stop -m fast)", withCode("terminating connection due to administrator command", "57P01"), true],
    ["crash shutdown", withCode("terminating connection due to unexpected postmaster exit", "57P02"), true],
    ["server starting or stopping", withCode("the database system is shutting down", "57P03"), true],
    ["connection exception class 08", withCode("connection failure", "08006"), true],
    ["refused", withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"), true],
    ["reset", withCode("read ECONNRESET", "ECONNRESET"), true],
    ["a Unix socket whose file is gone (the embedded server stopped)", Object.assign(withCode("connect ENOENT /srv/svc/pg/.s.PGSQL.5999", "ENOENT"), { syscall: "connect" }), true],
    ["a missing file, not a connection", Object.assign(withCode("ENOENT: no such file or directory, open 'x.csv'", "ENOENT"), { syscall: "open" }), false],
    ["socket ended", new Error("Connection terminated unexpectedly"), true],
    ["pool checkout timeout", new Error("timeout exceeded when trying to connect"), true],
    ["wrapped as a cause", new Error("rollup flush failed", { cause: withCode("connect ECONNREFUSED", "ECONNREFUSED") }), true],
    ["a constraint", withCode("duplicate key value violates unique constraint", "23505"), false],
    ["a wrong password", withCode("password authentication failed for user", "28P01"), false],
    ["a missing database", withCode('database "x" does not exist', "3D000"), false],
    ["not an Error", "ECONNREFUSED", false],
  ])("%s → %s", (_name, error, expected) => {
    expect(isConnectionError(error)).toBe(expected);
  });
});

describe("DatabaseHealth", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase({ migrate: false });
  });
  afterAll(async () => {
    await db?.drop();
  });

  async function settled(health: DatabaseHealth): Promise<void> {
    // The probe's first question is asked at once; its answer arrives within a round trip.
    await new Promise((r) => setTimeout(r, 300));
    await health.close();
  }

  it("ignores errors that are not about the connection", async () => {
    const health = new DatabaseHealth(db.pool, silentLogger);
    health.report(withCode("duplicate key", "23505"));
    await settled(health);
    expect(health.stats).toEqual({ state: "up", down_since: null, outages: 0 });
  });

  it("asks the server first: one killed connection on a healthy server marks nothing down", async () => {
    const health = new DatabaseHealth(db.pool, silentLogger);
    health.report(withCode("terminating connection due to administrator command", "57P01"));
    await settled(health);
    expect(health.up).toBe(true);
    expect(health.stats.outages).toBe(0);
  });

  it("marks a server that does not answer as down, with when it began", async () => {
    // Port 1 on loopback: nothing listens, every connect is refused at once.
    const pool = new pg.Pool({ host: "127.0.0.1", port: 1, user: "postgres", connectionTimeoutMillis: 1000 });
    pool.on("error", () => undefined);
    const lines: string[] = [];
    const health = new DatabaseHealth(pool, { ...silentLogger, warn: (msg) => lines.push(msg) });
    health.report(withCode("connect ECONNREFUSED 127.0.0.1:1", "ECONNREFUSED"));
    await expect.poll(() => health.up, { timeout: 3000 }).toBe(false);
    expect(health.stats.state).toBe("down");
    expect(Date.parse(health.stats.down_since!)).toBeGreaterThan(Date.now() - 5000);
    expect(health.stats.outages).toBe(1);
    expect(lines).toEqual(["database unreachable; ingest and reads answer 503 until it is back"]);
    health.report(withCode("connect ECONNREFUSED 127.0.0.1:1", "ECONNREFUSED")); // one outage, one probe
    expect(health.stats.outages).toBe(1);
    await health.close();
    await pool.end();
  });
});
