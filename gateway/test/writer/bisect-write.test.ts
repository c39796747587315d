// bisectWrite against a real PostgreSQL table that refuses some values (a CHECK constraint, SQLSTATE 23514):
// every other item is written, each refused one is found alone, and an error that is not about the data (here a
// statement against a table that does not exist: 42P01) stops the search with the rest left unfinished.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bisectWrite, isRefusedData } from "../../src/writer/bisect-write.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ migrate: false });
  await db.pool.query("create table items (n int not null check (n % 10 <> 7))");
});
afterAll(async () => {
  await db.drop();
});
beforeEach(async () => {
  await db.pool.query("truncate items");
});

/** One atomic insert of a part; counts the statements. */
function writer() {
  const calls = { n: 0 };
  const write = async (part: readonly number[]) => {
    calls.n++;
    await db.pool.query("insert into items (n) select unnest($1::int[])", [part]);
  };
  return { calls, write };
}

const stored = async () => (await db.pool.query<{ n: number }>("select n from items order by n")).rows.map((r) => r.n);
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe("bisectWrite", () => {
  it.each([
    { label: "nothing refused: one write", items: range(5), refused: [], maxCalls: 1 },
    { label: "one refused among 100: about 2·log2(100) writes", items: range(100).map((i) => i * 10 + (i === 42 ? 7 : 0)), refused: [427], maxCalls: 15 },
    { label: "every item refused", items: [7, 17, 27], refused: [7, 17, 27], maxCalls: 5 },
    { label: "three refused among 30, the rest written", items: range(30), refused: [7, 17, 27], maxCalls: 30 },
    { label: "a single refused item", items: [7], refused: [7], maxCalls: 1 },
    { label: "no items: no write", items: [], refused: [], maxCalls: 0 },
  ])("$label", async ({ items, refused, maxCalls }) => {
    const { calls, write } = writer();
    const result = await bisectWrite(items, write);
    expect(result.refused.map((r) => r.item)).toEqual(refused);
    for (const r of result.refused) expect((r.error as { code?: string }).code).toBe("23514");
    expect(result.unfinished).toBe(null);
    expect(result.written.sort((a, b) => a - b)).toEqual(items.filter((n) => !refused.includes(n)));
    expect(await stored()).toEqual(items.filter((n) => !refused.includes(n)).sort((a, b) => a - b));
    expect(calls.n).toBeLessThanOrEqual(maxCalls);
  });

  it("starts by splitting when the whole already failed (firstError), without writing it again", async () => {
    const { calls, write } = writer();
    const first = await write([1, 7]).catch((e: unknown) => e);
    calls.n = 0;
    const result = await bisectWrite([1, 7], write, first);
    expect(result.refused.map((r) => r.item)).toEqual([7]);
    expect(calls.n).toBe(2);
  });

  it("stops at an error that is not about the data and leaves the rest unfinished", async () => {
    let n = 0;
    const result = await bisectWrite(range(8).map((i) => i * 10 + 7 * Number(i === 0)), async (part) => {
      // The first write (everything) is refused on its data; the first half's write then meets a missing table.
      if (n++ === 0) await db.pool.query("insert into items (n) select unnest($1::int[])", [part]);
      else await db.pool.query("insert into no_such_table values (1)");
    });
    expect(result.written).toEqual([]);
    expect(result.refused).toEqual([]);
    expect(result.unfinished?.items.sort((a, b) => a - b)).toEqual([10, 20, 30, 40, 50, 60, 7, 70].sort((a, b) => a - b));
    expect((result.unfinished?.error as { code?: string }).code).toBe("42P01");
  });
});

describe("isRefusedData", () => {
  it.each([
    ["21000", true], // an upsert touching one row twice
    ["22021", true], // invalid byte sequence (a NUL)
    ["22P02", true], // invalid input syntax (a jsonb \ud800 escape)
    ["23514", true], // check violation
    ["54000", true], // index row too large
    ["57P01", false], // admin shutdown: the server restarts
    ["08006", false], // connection failure
    ["40001", false], // serialization failure: worth a retry
  ])("SQLSTATE %s → %s", (code, expected) => {
    expect(isRefusedData(Object.assign(new Error("x"), { code }))).toBe(expected);
  });
  it("an error without a SQLSTATE (a broken socket) is not about the data", () => {
    expect(isRefusedData(new Error("Connection terminated unexpectedly"))).toBe(false);
    expect(isRefusedData(null)).toBe(false);
    expect(isRefusedData(Object.assign(new Error("x"), { code: "ECONNRESET" }))).toBe(false);
  });
});
