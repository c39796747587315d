// The binary COPY encoder, field by field against the format's bytes, then each codec read back by a real
// PostgreSQL (the time stamps on both sides of 2000-01-01, where the format's epoch lies, among them).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CopyBytes } from "../../src/writer/copy-binary.ts";
import { copyBatch } from "../../src/writer/copy-batch.ts";
import type { PropValue } from "../../src/storage/rows.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";

const written = (write: (out: CopyBytes) => void, capacity?: number): string => {
  const out = new CopyBytes(capacity);
  write(out);
  return out.written().toString("hex");
};

/** A field: its 32-bit length, then its bytes. */
const field = (hex: string): string => (hex.length / 2).toString(16).padStart(8, "0") + hex;
const utf8 = (text: string): string => Buffer.from(text, "utf8").toString("hex");

describe("CopyBytes.text", () => {
  it.each([
    ["plain ASCII", "/docs/getting-started?x=1", "/docs/getting-started?x=1"],
    ["empty", "", ""],
    ["COPY text's special characters, as they are", "a\tb\nc\rd\\e", "a\tb\nc\rd\\e"],
    ["a NUL, removed (text cannot hold it)", "a\0b", "ab"],
    ["other control characters, as they are", "a\u000bb\u000cc\u0001", "a\u000bb\u000cc\u0001"],
    ["DEL and tilde, ASCII", "~\u007f", "~\u007f"],
    ["non-ASCII after ASCII", "/über/straße", "/über/straße"],
    ["a NUL after non-ASCII", "ü\0ß", "üß"],
    ["a lone surrogate, as U+FFFD", "a\ud800b", "a\ufffdb"],
    ["a pair, as its code point", "😀", "😀"],
  ])("%s", (_name, value, expected) => {
    expect(written((out) => out.text(value))).toBe(field(utf8(expected)));
  });

  it("grows its buffer across many values, keeping what it wrote", () => {
    const values = Array.from({ length: 500 }, (_, i) => (i % 7 === 0 ? `ü${i}\t` : `/page/${i}`));
    expect(written((out) => values.forEach((v) => out.text(v)), 8)).toBe(values.map((v) => field(utf8(v))).join(""));
  });
});

describe("CopyBytes fields", () => {
  const us = (ms: number) => BigInt(ms - Date.UTC(2000, 0, 1)) * 1000n;
  const int64 = (value: bigint) => BigInt.asUintN(64, value).toString(16).padStart(16, "0");
  const ms2026 = Date.UTC(2026, 10, 26, 9, 3, 7, 12);
  it.each([
    ["a tuple's field count", (o: CopyBytes) => o.fields(26), "001a"],
    ["null text", (o: CopyBytes) => o.nullableText(null), "ffffffff"],
    ["nullable text with a value", (o: CopyBytes) => o.nullableText("/a"), field(utf8("/a"))],
    ["an int", (o: CopyBytes) => o.int(1920), field("00000780")],
    ["a negative int", (o: CopyBytes) => o.int(-2), field("fffffffe")],
    ["the largest int", (o: CopyBytes) => o.int(2 ** 31 - 1), field("7fffffff")],
    ["a null int", (o: CopyBytes) => o.int(null), "ffffffff"],
    ["a smallint", (o: CopyBytes) => o.smallint(404), field("0194")],
    ["the smallest smallint", (o: CopyBytes) => o.smallint(-32768), field("8000")],
    ["2000-01-01, the format's epoch", (o: CopyBytes) => o.timestamp(Date.UTC(2000, 0, 1)), field("0".repeat(16))],
    ["a millisecond before it", (o: CopyBytes) => o.timestamp(Date.UTC(2000, 0, 1) - 1), field(int64(-1000n))],
    ["1970-01-01", (o: CopyBytes) => o.timestamp(0), field(int64(us(0)))],
    ["a time of 2026", (o: CopyBytes) => o.timestamp(ms2026), field(int64(us(ms2026)))],
    ["bytea, its bytes as they are", (o: CopyBytes) => o.bytea(Buffer.from([0, 0x0f, 0xa5, 0xff])), field("000fa5ff")],
    ["null props", (o: CopyBytes) => o.jsonb(null), "ffffffff"],
    ["props: jsonb's version 1, then the JSON", (o: CopyBytes) => o.jsonb({ plan: "pro\tplus", seats: 3 }), field("01" + utf8('{"plan":"pro\\tplus","seats":3}'))],
    ["props with a NUL and a lone surrogate, in stored form", (o: CopyBytes) => o.jsonb({ "a\0": "x\ud800" }), field("01" + utf8('{"a":"x\ufffd"}'))],
  ])("%s", (_name, write, expected) => {
    expect(written(write)).toBe(expected);
  });

  it.each([
    ["a fractional int", (o: CopyBytes) => o.int(1.5), /not an integer/],
    ["an int past int4", (o: CopyBytes) => o.int(2 ** 31), /out of range for type integer/],
    ["an int below int4", (o: CopyBytes) => o.int(-(2 ** 31) - 1), /out of range for type integer/],
    ["a smallint past int2", (o: CopyBytes) => o.smallint(32768), /out of range for type smallint/],
    ["a fractional smallint", (o: CopyBytes) => o.smallint(200.5), /not an integer/],
  ])("refuses %s", (_name, write, error) => {
    expect(() => written(write)).toThrow(error);
  });
});

describe("read back by PostgreSQL", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase({ migrate: false });
    await db.pool.query("create table codecs (n integer, i integer, s smallint, t timestamptz, b bytea, j jsonb, x text)");
  });
  afterAll(async () => {
    await db.drop();
  });

  interface Row {
    readonly i: number | null;
    readonly s: number | null;
    readonly t: number;
    readonly b: Buffer;
    readonly j: Record<string, PropValue> | null;
    readonly x: string | null;
  }
  const ROWS: Row[] = [
    { i: 0, s: 0, t: 0, b: Buffer.alloc(0), j: {}, x: "" },
    { i: -(2 ** 31), s: -32768, t: Date.UTC(1999, 11, 31, 23, 59, 59, 999), b: Buffer.alloc(32, 0xff), j: { a: "ü\t\\" }, x: "tab\there \\N ü 😀" },
    { i: 2 ** 31 - 1, s: 32767, t: Date.UTC(2000, 0, 1), b: Buffer.from([0, 1, 2]), j: { n: 1.5, ok: true }, x: "a\0b" },
    { i: 1920, s: 404, t: Date.UTC(2026, 10, 26, 9, 3, 7, 12), b: Buffer.from("0f", "hex"), j: { plan: "pro" }, x: "/über" },
    { i: null, s: null, t: Date.UTC(2199, 11, 31, 23, 59, 59, 999), b: Buffer.alloc(1), j: null, x: null },
  ];

  it("stores each value as written: integers at their limits, time stamps on both sides of 2000, bytes, props, text", async () => {
    await copyBatch(db.pool, [{
      statement: "copy codecs (n, i, s, t, b, j, x) from stdin with (format binary)",
      rows: ROWS.length,
      encode: (out) => ROWS.forEach((r, n) => {
        out.fields(7);
        out.int(n);
        out.int(r.i);
        out.smallint(r.s);
        out.timestamp(r.t);
        out.bytea(r.b);
        out.jsonb(r.j);
        out.nullableText(r.x);
      }),
    }]);
    const { rows } = await db.pool.query("select i, s, (extract(epoch from t) * 1000)::bigint::text as t, b, j, x from codecs order by n");
    expect(rows).toEqual(ROWS.map((r) => ({ ...r, t: String(r.t), x: r.x === null ? null : r.x.replace("\0", "") })));
  });
});
