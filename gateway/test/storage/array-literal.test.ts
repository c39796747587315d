// The array parameters the rollup upsert sends, read back by PostgreSQL's own array input: every value must come
// back as it went, whatever the array syntax would otherwise make of it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { numberArray, textArray } from "../../src/storage/array-literal.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

describe("textArray", () => {
  it.each([
    ["plain values", ["human", "page", "/pricing"]],
    ["empty string", [""]],
    ["NULL and null are text", ["NULL", "null"]],
    ["quotes and backslashes", ['say "hi"', "C:\\path\\", '\\"', '"']],
    ["array syntax inside values", ["{a,b}", "a,b", "}", "{"]],
    ["spaces kept, leading and trailing", [" a ", "\t", "a b"]],
    ["non-ASCII", ["/über", "日本語", "🚀"]],
    ["no values", []],
  ])("%s", async (_name, values) => {
    const { rows } = await db.pool.query<{ a: string[] }>("select $1::text[] as a", [textArray(values)]);
    expect(rows[0]!.a).toEqual(values);
  });
});

describe("numberArray", () => {
  it("reads back as bigint and int", async () => {
    const values = [0, 1, 42, 9_007_199_254_740_991];
    const { rows } = await db.pool.query<{ a: string[]; n: number }>("select $1::bigint[]::text[] as a, cardinality($1::int8[]) as n", [numberArray(values)]);
    expect(rows[0]!.a).toEqual(values.map(String));
    expect((await db.pool.query("select $1::int[] as a", [numberArray([1, 2, 3])])).rows[0].a).toEqual([1, 2, 3]);
  });

  it.each([
    ["a count past bigint", 2 ** 63, "22003"],
    ["NaN", Number.NaN, "22P02"],
  ])("%s is refused by the cast with its SQLSTATE (%s)", async (_name, value, code) => {
    await expect(db.pool.query("select $1::bigint[]", [numberArray([1, value])])).rejects.toMatchObject({ code });
  });
});
