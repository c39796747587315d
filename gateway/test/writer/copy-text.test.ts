// The byte encoder against COPY's text rules, value by value: the ASCII path copies characters as it checks
// them and hands anything else to the string path, so each case below sits on one side of that split or on it.
import { describe, expect, it } from "vitest";
import { CopyBytes, copyText, NEWLINE, TAB } from "../../src/writer/copy-text.ts";

const written = (write: (out: CopyBytes) => void, capacity?: number): string => {
  const out = new CopyBytes(capacity);
  write(out);
  return out.written().toString("utf8");
};

describe("CopyBytes.text", () => {
  it.each([
    ["plain ASCII", "/docs/getting-started?x=1", "/docs/getting-started?x=1"],
    ["empty", "", ""],
    ["a tab", "a\tb", "a\\tb"],
    ["a newline and a carriage return", "a\nb\rc", "a\\nb\\rc"],
    ["a backslash", "C:\\path", "C:\\\\path"],
    ["a NUL, removed", "a\0b", "ab"],
    ["other control characters, as they are", "a\u000bb\u000cc\u0001", "a\u000bb\u000cc\u0001"],
    ["DEL and tilde, ASCII", "~\u007f", "~\u007f"],
    ["non-ASCII after ASCII", "/über/straße", "/über/straße"],
    ["non-ASCII and a tab", "ü\tß", "ü\\tß"],
    ["a lone surrogate, as U+FFFD", "a\ud800b", "a\ufffdb"],
    ["a pair, as its code point", "😀", "😀"],
  ])("%s", (_name, value, expected) => {
    expect(written((out) => out.text(value, NEWLINE))).toBe(`${expected}\n`);
    // The string path writes the same text.
    expect(Buffer.from(copyText(value), "utf8").toString("utf8")).toBe(expected);
  });

  it("grows its buffer across many values, keeping what it wrote", () => {
    const values = Array.from({ length: 500 }, (_, i) => (i % 7 === 0 ? `ü${i}\t` : `/page/${i}`));
    const text = written((out) => {
      for (const v of values) out.text(v, NEWLINE);
    }, 8);
    expect(text).toBe(values.map((v) => `${copyText(v)}\n`).join(""));
  });
});

describe("CopyBytes columns", () => {
  it.each([
    ["null text", (o: CopyBytes) => o.nullableText(null, TAB), "\\N\t"],
    ["text, then its tab", (o: CopyBytes) => o.nullableText("/a", TAB), "/a\t"],
    ["an int", (o: CopyBytes) => o.int(1920, TAB), "1920\t"],
    ["a null int", (o: CopyBytes) => o.int(null, NEWLINE), "\\N\n"],
    ["a time stamp", (o: CopyBytes) => o.timestamp(Date.UTC(2026, 10, 26, 9, 3, 7, 12), NEWLINE), "2026-11-26T09:03:07.012Z\n"],
    ["the same time stamp twice, then another", (o: CopyBytes) => (o.timestamp(0, TAB), o.timestamp(0, TAB), o.timestamp(1, NEWLINE)), "1970-01-01T00:00:00.000Z\t1970-01-01T00:00:00.000Z\t1970-01-01T00:00:00.001Z\n"],
    ["bytea as escaped hex", (o: CopyBytes) => o.bytea(Buffer.from([0, 0x0f, 0xa5, 0xff]), TAB), "\\\\x000fa5ff\t"],
    ["null props", (o: CopyBytes) => o.jsonb(null, NEWLINE), "\\N\n"],
    ["props with a tab", (o: CopyBytes) => o.jsonb({ plan: "pro\tplus", seats: 3 }, NEWLINE), '{"plan":"pro\\\\tplus","seats":3}\n'],
    ["props with a NUL and a lone surrogate, in stored form", (o: CopyBytes) => o.jsonb({ "a\0": "x\ud800" }, NEWLINE), '{"a":"x\ufffd"}\n'],
    ["a non-ASCII value, then its tab", (o: CopyBytes) => o.text("ü\tß", TAB), "ü\\tß\t"],
  ])("%s", (_name, write, expected) => {
    expect(written(write)).toBe(expected);
  });

  it("refuses a fractional int", () => {
    expect(() => written((o) => o.int(1.5, TAB))).toThrow(/not an integer/);
  });
});
