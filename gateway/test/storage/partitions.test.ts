import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countDefaultPartitionRows, ensureMonthlyPartitions, listMonthlyPartitions, parsePartitionName } from "../../src/storage/partitions.ts";
import { commitRows } from "../../src/writer/commit-rows.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { eventRow, hitRow } from "../support/sample-rows.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

async function partitionOf(table: string, where: string): Promise<string[]> {
  const result = await db.pool.query(`select distinct tableoid::regclass::text as p from ${table} where ${where} order by 1`);
  return result.rows.map((r) => r.p);
}

describe("monthly partitions", () => {
  it.each([
    { label: "mid-month", now: Date.UTC(2026, 10, 21, 9), created: ["events_2026_11", "hits_2026_11", "events_2026_12", "hits_2026_12"] },
    { label: "across the year end, last ms of December", now: Date.UTC(2027, 0, 1) - 1, created: ["events_2027_01", "hits_2027_01"] },
    { label: "same month again: nothing to do", now: Date.UTC(2026, 10, 1), created: [] },
  ])("creates the current and next month ($label)", async ({ now, created }) => {
    expect(await ensureMonthlyPartitions(db.pool, now)).toEqual(created);
  });

  it("creates further months ahead on request", async () => {
    expect(await ensureMonthlyPartitions(db.pool, Date.UTC(2027, 0, 10), 3)).toEqual(["events_2027_02", "hits_2027_02", "events_2027_03", "hits_2027_03", "events_2027_04", "hits_2027_04"]);
  });

  it("bounds are UTC months: the last ms of a month and the first of the next land apart", async () => {
    const boundary = Date.UTC(2026, 11, 1);
    await commitRows(db.pool, { events: [eventRow({ ts: boundary - 1, page: "/before" }), eventRow({ ts: boundary, page: "/after" })], hits: [] });
    expect(await partitionOf("events", "page = '/before'")).toEqual(["events_2026_11"]);
    expect(await partitionOf("events", "page = '/after'")).toEqual(["events_2026_12"]);
  });

  it("moves rows that landed in the default partition into the month's new partition", async () => {
    const may = Date.UTC(2027, 4, 12, 10);
    await commitRows(db.pool, {
      events: [eventRow({ ts: may, page: "/may-1" }), eventRow({ ts: may + 1, page: "/may-2" }), eventRow({ ts: Date.UTC(2030, 0, 1), page: "/far" })],
      hits: [hitRow({ ts: may, page: "/may-hit" })],
    });
    expect(await countDefaultPartitionRows(db.pool)).toEqual({ events: 3, hits: 1 });
    expect(await ensureMonthlyPartitions(db.pool, may)).toEqual(["events_2027_05", "hits_2027_05", "events_2027_06", "hits_2027_06"]);
    expect(await partitionOf("events", "page like '/may-%'")).toEqual(["events_2027_05"]);
    expect(await partitionOf("hits", "page = '/may-hit'")).toEqual(["hits_2027_05"]);
    // The 2030 row stays in the default partition, still reported.
    expect(await countDefaultPartitionRows(db.pool)).toEqual({ events: 1, hits: 0 });
    const moved = await db.pool.query("select count(*)::int as n from events where page like '/may-%'");
    expect(moved.rows[0].n).toBe(2);
    // A partition attached after a move takes new rows like any other.
    await commitRows(db.pool, { events: [eventRow({ ts: may + 2, page: "/may-3" })], hits: [] });
    expect(await partitionOf("events", "page = '/may-3'")).toEqual(["events_2027_05"]);
  });

  it("a batch is copied into its month's partition; with that partition gone it is stored through the parent, not refused", async () => {
    const march = Date.UTC(2029, 2, 14, 8);
    await ensureMonthlyPartitions(db.pool, march, 0);
    await commitRows(db.pool, { events: [eventRow({ ts: march, page: "/direct" })], hits: [hitRow({ ts: march, page: "/direct-hit" })] });
    expect(await partitionOf("events", "page = '/direct'")).toEqual(["events_2029_03"]);
    expect(await partitionOf("hits", "page = '/direct-hit'")).toEqual(["hits_2029_03"]);
    // Dropped by hand (commit-rows.ts: SQLSTATE 42P01): the same batch again through the parent, into the default
    // partition where the maintenance fiber reports it; the next batch of that month goes the same way.
    await db.pool.query("drop table events_2029_03");
    await commitRows(db.pool, { events: [eventRow({ ts: march + 1, page: "/dropped" })], hits: [hitRow({ ts: march + 1, page: "/kept-hit" })] });
    await commitRows(db.pool, { events: [eventRow({ ts: march + 2, page: "/dropped" })], hits: [] });
    expect(await partitionOf("events", "page = '/dropped'")).toEqual(["events_default"]);
    expect(await partitionOf("hits", "page = '/kept-hit'")).toEqual(["hits_2029_03"]);
    await db.pool.query("delete from events_default where page = '/dropped'");
  });

  it("batches of different months, one after the other, each go to their own month (the writer keeps the last month's partition at hand)", async () => {
    const february = Date.UTC(2030, 1, 10);
    const january = Date.UTC(2030, 0, 10);
    await ensureMonthlyPartitions(db.pool, january, 1);
    for (const [ts, page] of [[february, "/feb"], [january, "/jan"], [february + 1, "/feb-again"]] as const) {
      await commitRows(db.pool, { events: [eventRow({ ts, page })], hits: [hitRow({ ts, page })] });
    }
    expect(await partitionOf("events", "page = '/jan'")).toEqual(["events_2030_01"]);
    expect(await partitionOf("hits", "page = '/jan'")).toEqual(["hits_2030_01"]);
    expect(await partitionOf("events", "page like '/feb%'")).toEqual(["events_2030_02"]);
  });

  it("is safe when several processes create the same months at once", async () => {
    const now = Date.UTC(2028, 2, 3);
    await commitRows(db.pool, { events: [eventRow({ ts: now })], hits: [] });
    const results = await Promise.all(Array.from({ length: 4 }, () => ensureMonthlyPartitions(db.pool, now)));
    expect(results.flat().sort()).toEqual(["events_2028_03", "events_2028_04", "hits_2028_03", "hits_2028_04"]);
    expect(await partitionOf("events", `ts = '${new Date(now).toISOString()}'`)).toEqual(["events_2028_03"]);
  });

  it("lists the monthly partitions oldest first, ignoring the default ones", async () => {
    const names = (await listMonthlyPartitions(db.pool)).map((p) => p.name);
    expect(names.slice(0, 4)).toEqual(["events_2026_11", "hits_2026_11", "events_2026_12", "hits_2026_12"]);
    expect(names).not.toContain("events_default");
  });

  it.each([
    ["events_2026_11", { table: "events", fromMs: Date.UTC(2026, 10, 1), toMs: Date.UTC(2026, 11, 1) }],
    ["hits_2026_12", { table: "hits", fromMs: Date.UTC(2026, 11, 1), toMs: Date.UTC(2027, 0, 1) }],
    ["events_default", null],
    ["events_2026_13", null],
    ["sessions_2026_01", null],
  ])("parses partition name %s", (name, expected) => {
    const parsed = parsePartitionName(name);
    expect(parsed === null ? null : { table: parsed.table, fromMs: parsed.fromMs, toMs: parsed.toMs }).toEqual(expected);
  });
});
