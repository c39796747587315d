// The writer's connections between commits (writer/connection-hold.ts), on a real PostgreSQL: a commit takes the
// held connection back without a wait, a held one that breaks leaves the hold and the pool (the next commit takes a
// new one and stores its rows), a failed commit's connection is not held again, and once the hold is closed the
// pool can end.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConnectionHold } from "../../src/writer/connection-hold.ts";
import { commitRows } from "../../src/writer/commit-rows.ts";
import { copyBatch } from "../../src/writer/copy-batch.ts";
import type { CopyBytes } from "../../src/writer/copy-binary.ts";
import { guardPool } from "../../src/storage/database.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { eventRow } from "../support/sample-rows.ts";

const NOW = Date.UTC(2026, 10, 21, 9, 0, 0);
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase({ nowMs: NOW });
});
afterAll(async () => {
  await db.drop();
});

/** The writer's kind of pool: its own, guarded as openWritePool guards it. */
function writePool(): pg.Pool {
  const pool = new pg.Pool({ connectionString: db.url, max: 3 });
  guardPool(pool, () => undefined);
  return pool;
}

const backendPid = async (client: pg.PoolClient): Promise<number> => (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
const stored = async (page: string): Promise<number> => (await db.pool.query<{ n: number }>("select count(*)::int as n from events where page = $1", [page])).rows[0]!.n;

describe("the writer's connection hold", () => {
  it("hands back the connection of the last commit at once, and the pool ends once the hold is closed", async () => {
    const pool = writePool();
    const hold = new ConnectionHold(pool);
    await commitRows(hold, { events: [eventRow({ page: "/held-1", ts: NOW })], hits: [] });
    expect(hold.size).toBe(1);
    expect(pool.totalCount).toBe(1);
    const taken = hold.take();
    // No promise: the commit's write leaves in the same turn.
    expect(taken).not.toBeInstanceOf(Promise);
    const first = await backendPid(taken as pg.PoolClient);
    hold.keep(taken as pg.PoolClient);
    await commitRows(hold, { events: [eventRow({ page: "/held-2", ts: NOW })], hits: [] });
    const again = hold.take() as pg.PoolClient;
    expect(await backendPid(again)).toBe(first);
    hold.keep(again);
    expect(await stored("/held-1")).toBe(1);
    expect(await stored("/held-2")).toBe(1);
    hold.close();
    expect(hold.size).toBe(0);
    // pg-pool's end waits for every connection checked out: it resolves only because the hold gave its one back.
    await pool.end();
  });

  it("drops a held connection that breaks while it waits, and the next commit takes a new one and stores its rows", async () => {
    const pool = writePool();
    const hold = new ConnectionHold(pool);
    await commitRows(hold, { events: [eventRow({ page: "/before-cut", ts: NOW })], hits: [] });
    const held = hold.take() as pg.PoolClient;
    const pid = await backendPid(held);
    hold.keep(held);
    // The server ends that backend, as a restart of PostgreSQL would.
    await db.pool.query("select pg_terminate_backend($1)", [pid]);
    await expect.poll(() => hold.size, { timeout: 5_000 }).toBe(0);
    expect(pool.totalCount).toBe(0);
    await commitRows(hold, { events: [eventRow({ page: "/after-cut", ts: NOW })], hits: [] });
    expect(await stored("/after-cut")).toBe(1);
    const fresh = hold.take() as pg.PoolClient;
    expect(await backendPid(fresh)).not.toBe(pid);
    hold.keep(fresh);
    hold.close();
    await pool.end();
  });

  it("does not hold the connection of a commit that failed, and keeps none once closed", async () => {
    const pool = writePool();
    const hold = new ConnectionHold(pool);
    // Refused by the server once the connection is taken (a row the encoder refuses fails before that).
    const missingTable = { statement: "copy no_such_table (a) from stdin with (format binary)", rows: 1, encode: (out: CopyBytes) => (out.fields(1), out.int(1)) };
    await commitRows(hold, { events: [eventRow({ page: "/first", ts: NOW })], hits: [] });
    expect(hold.size).toBe(1);
    await expect(copyBatch(hold, [missingTable])).rejects.toThrow(/no_such_table/);
    expect(hold.size).toBe(0);
    expect(pool.totalCount).toBe(0);
    await commitRows(hold, { events: [eventRow({ page: "/good", ts: NOW })], hits: [] });
    expect(hold.size).toBe(1);
    hold.close();
    const late = await pool.connect();
    hold.keep(late);
    expect(hold.size).toBe(0);
    await pool.end();
  });
});
