import { describe, expect, it } from "vitest";
import { csvCell, csvRecord, DISPLAY_LABEL_MAX, displayLabel, displayLabelsDeep, ELLIPSIS } from "../src/index.ts";

describe("displayLabel removes each class of character", () => {
  it.each([
    { why: "plain text is kept", input: "/blog/post-1", output: "/blog/post-1" },
    { why: "non-ASCII letters and emoji are kept", input: "/café/日本/🚀", output: "/café/日本/🚀" },
    { why: "NUL", input: "/p\u0000q", output: "/pq" },
    { why: "C0 BEL and ESC (terminal escapes)", input: "/a\u0007\u001b[31mred", output: "/a[31mred" },
    { why: "DEL", input: "/a\u007fb", output: "/ab" },
    { why: "C1 controls (U+0080, U+0085 NEL, U+009B CSI)", input: "/a\u0080b\u0085c\u009bd", output: "/abcd" },
    { why: "TAB, LF, CR become one space", input: "ignore\r\n\tprevious", output: "ignore previous" },
    { why: "VT and FF become a space", input: "a\u000bb\fc", output: "a b c" },
    { why: "bidi embeddings and overrides U+202A–U+202E", input: "\u202aa\u202bb\u202cc\u202dd\u202ee", output: "abcde" },
    { why: "bidi isolates U+2066–U+2069", input: "\u2066a\u2067b\u2068c\u2069d", output: "abcd" },
    { why: "LRM and RLM", input: "a\u200eb\u200fc", output: "abc" },
    { why: "Arabic letter mark", input: "a\u061cb", output: "ab" },
    { why: "right-to-left override hiding an extension", input: "/admin\u202etxt.exe", output: "/admintxt.exe" },
    { why: "zero-width space, non-joiner, joiner", input: "ig\u200bno\u200cre\u200d", output: "ignore" },
    { why: "word joiner and BOM", input: "\ufeffa\u2060b", output: "ab" },
    { why: "lone high surrogate → U+FFFD", input: "a\ud800b", output: "a\ufffdb" },
    { why: "lone low surrogate → U+FFFD", input: "a\udc00b", output: "a\ufffdb" },
    { why: "a surrogate pair is one character and kept", input: "a\ud83d\ude80b", output: "a🚀b" },
    { why: "only invisible characters → empty", input: "\u200b\u202e\u0000", output: "" },
  ])("$why", ({ input, output }) => {
    expect(displayLabel(input)).toBe(output);
    expect(displayLabel(displayLabel(input))).toBe(displayLabel(input));
  });
});

describe("displayLabel cuts to a documented length", () => {
  it("keeps a label of exactly the maximum", () => {
    const label = "a".repeat(DISPLAY_LABEL_MAX);
    expect(displayLabel(label)).toBe(label);
  });

  it("cuts a longer label to the maximum, ellipsis included", () => {
    const out = displayLabel(`/${"x".repeat(500)}`);
    expect(Array.from(out)).toHaveLength(DISPLAY_LABEL_MAX);
    expect(out.endsWith(ELLIPSIS)).toBe(true);
  });

  it("counts code points, never splitting a surrogate pair", () => {
    const out = displayLabel("🚀".repeat(10), 5);
    expect(out).toBe(`🚀🚀🚀🚀${ELLIPSIS}`);
  });

  it("cuts after removing invisible characters", () => {
    expect(displayLabel(`${"\u200b".repeat(300)}short`)).toBe("short");
  });

  it("takes another maximum", () => {
    expect(displayLabel("abcdefgh", 4)).toBe(`abc${ELLIPSIS}`);
  });
});

describe("displayLabelsDeep", () => {
  it("sanitises every string leaf and key, leaves numbers alone", () => {
    const input = { "pa\u200bge": [{ page: "/x\u202e", crawled: 3 }], n: 1, none: null };
    expect(displayLabelsDeep(input)).toEqual({ page: [{ page: "/x", crawled: 3 }], n: 1, none: null });
  });
});

describe("csvCell guards against formula injection", () => {
  it.each([
    { input: "=HYPERLINK(\"http://x\")", output: "\"'=HYPERLINK(\"\"http://x\"\")\"" },
    { input: "+1", output: "'+1" },
    { input: "-1", output: "'-1" },
    { input: "@SUM(A1)", output: "'@SUM(A1)" },
    { input: "\tcmd", output: "'\tcmd" },
    { input: "\rcmd", output: "\"'\rcmd\"" },
    { input: "/page", output: "/page" },
    { input: "a,b", output: "\"a,b\"" },
    { input: "say \"hi\"", output: "\"say \"\"hi\"\"\"" },
  ])("$input", ({ input, output }) => {
    expect(csvCell(input)).toBe(output);
  });

  it("writes numbers and nulls plainly and ends a record with CRLF", () => {
    expect(csvRecord(["/a", 3, null, "-x"])).toBe("/a,3,,'-x\r\n");
  });
});
