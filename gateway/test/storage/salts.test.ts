import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteSaltsBefore, saltForDay, utcDay } from "../../src/storage/salts.ts";
import { addSite } from "../../src/storage/sites.ts";
import { StorageError } from "../../src/storage/storage-error.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";

let db: TestDatabase;
let siteA: number;
let siteB: number;
beforeAll(async () => {
  db = await createTestDatabase();
  siteA = (await addSite(db.pool, { domain: "a.example" })).id;
  siteB = (await addSite(db.pool, { domain: "b.example" })).id;
});
afterAll(async () => {
  await db.drop();
});

describe("daily salts", () => {
  it("creates 32 random bytes once and returns the same salt on every later call", async () => {
    const first = await saltForDay(db.pool, siteA, "2026-11-21");
    expect(first).toHaveLength(32);
    expect(await saltForDay(db.pool, siteA, "2026-11-21")).toEqual(first);
  });

  it("gives each site and each day its own salt", async () => {
    const a21 = await saltForDay(db.pool, siteA, "2026-11-21");
    const a22 = await saltForDay(db.pool, siteA, "2026-11-22");
    const b21 = await saltForDay(db.pool, siteB, "2026-11-21");
    expect(new Set([a21.toString("hex"), a22.toString("hex"), b21.toString("hex")]).size).toBe(3);
  });

  it("concurrent first callers (several gateways, one restart) all get the one stored salt", async () => {
    const salts = await Promise.all(Array.from({ length: 12 }, () => saltForDay(db.pool, siteB, "2026-12-01")));
    expect(new Set(salts.map((s) => s.toString("hex"))).size).toBe(1);
    const stored = await db.pool.query("select salt from salts where site_id = $1 and day = '2026-12-01'", [siteB]);
    expect(stored.rows).toEqual([{ salt: salts[0] }]);
  });

  it("deletes every salt of a day before the given day, and a deleted day gets a new salt", async () => {
    const old = await saltForDay(db.pool, siteA, "2026-11-01");
    await saltForDay(db.pool, siteA, "2026-11-30");
    const before = await db.pool.query<{ n: number }>("select count(*)::int as n from salts where day < '2026-11-30'");
    expect(await deleteSaltsBefore(db.pool, "2026-11-30")).toBe(before.rows[0]!.n);
    const left = await db.pool.query("select distinct day::text from salts order by 1");
    expect(left.rows.map((r) => r.day)).toEqual(["2026-11-30", "2026-12-01"]);
    expect(await deleteSaltsBefore(db.pool, "2026-11-30")).toBe(0);
    expect(await saltForDay(db.pool, siteA, "2026-11-01")).not.toEqual(old);
  });

  it("refuses an unknown site and a malformed day", async () => {
    await expect(saltForDay(db.pool, 999_999, "2026-11-21")).rejects.toMatchObject({ kind: "not_found" });
    await expect(saltForDay(db.pool, 999_999, "2026-11-21")).rejects.toBeInstanceOf(StorageError);
    for (const day of ["2026-1-01", "21.11.2026", "2026-13-01", ""]) {
      await expect(saltForDay(db.pool, siteA, day)).rejects.toThrow(RangeError);
      await expect(deleteSaltsBefore(db.pool, day)).rejects.toThrow(RangeError);
    }
  });

  it.each([
    [Date.UTC(2026, 10, 21, 23, 59, 59, 999), "2026-11-21"],
    [Date.UTC(2026, 10, 22, 0, 0, 0, 0), "2026-11-22"],
  ])("utcDay(%d) = %s", (ms, day) => {
    expect(utcDay(ms)).toBe(day);
  });
});
