// Every class of character PostgreSQL cannot store as sent, through every string field of both ingest bodies:
// free text comes out in its stored form (the same answer on the fast path and the Schema path), identifiers are
// a 400. `stored` is checked against a real PostgreSQL in gateway/test/writer/commit-rows.test.ts and poison.test.ts.
import { describe, expect, it } from "vitest";
import {
  decodeBrowserEvent,
  decodeBrowserEventWithSchema,
  decodeServerHits,
  decodeServerHitsWithSchema,
  isStoredText,
  STORED_TEXT_MESSAGE,
  storedText,
  utmFromUrl,
} from "../src/index.ts";

/** [class, as sent, as stored]. */
const CLASSES: ReadonlyArray<readonly [string, string, string]> = [
  ["NUL inside", "a\u0000b", "ab"],
  ["NUL at both ends", "\u0000ab\u0000", "ab"],
  ["lone high surrogate", "a\ud800b", "a\ufffdb"],
  ["lone low surrogate", "a\udc00b", "a\ufffdb"],
  ["high surrogate at the end", "ab\ud83d", "ab\ufffd"],
  ["reversed pair", "a\ude00\ud83d", "a\ufffd\ufffd"],
  ["NUL between the halves of a pair (never joined into 😀)", "a\ud83d\u0000\ude00", "a\ufffd\ufffd"],
  ["NUL and a lone surrogate", "\u0000a\udfff", "a\ufffd"],
];

/** Sent and stored alike. */
const KEPT: ReadonlyArray<readonly [string, string]> = [
  ["a surrogate pair (emoji)", "a😀b"],
  ["U+FFFD itself", "a\ufffdb"],
  ["other C0 controls and DEL", "a\u0001\u001f\u007fb"],
  ["BOM and the noncharacter U+FFFF", "\ufeffa\uffff"],
  ["plain ASCII", "ab"],
];

describe("storedText", () => {
  it.each(CLASSES)("%s → stored form", (_name, sent, stored) => {
    expect(isStoredText(sent)).toBe(false);
    expect(storedText(sent)).toBe(stored);
    expect(isStoredText(storedText(sent))).toBe(true);
    // What Node sends PostgreSQL (UTF-8) is the stored form's bytes, with NUL removed.
    expect(Buffer.from(stored, "utf8")).toEqual(Buffer.from(Buffer.from(sent, "utf8").toString("utf8").replaceAll("\u0000", ""), "utf8"));
  });
  it.each(KEPT)("%s is kept", (_name, text) => {
    expect(isStoredText(text)).toBe(true);
    expect(storedText(text)).toBe(text);
  });
  it("returns the same string when nothing changes (no copy on the hot path)", () => {
    const s = "https://example.com/" + "x".repeat(100);
    expect(storedText(s)).toBe(s);
  });
});

const EVENT = { d: "example.com", u: "https://example.com/p" };
const HIT = { domain: "example.com", method: "GET", path: "/p", status: 200, user_agent: "curl/8.5.0", referrer: null, ip: "203.0.113.7" };

/** A free-text field of the browser event: how to send a value and where its stored form appears. */
const EVENT_FIELDS: ReadonlyArray<{ field: string; body: (s: string) => object; read: (e: ReturnType<typeof okEvent>) => unknown; expect: (stored: string) => unknown }> = [
  { field: "n", body: (s) => ({ n: `n${s}` }), read: (e) => e.n, expect: (s) => `n${s}` },
  { field: "u", body: (s) => ({ u: `https://example.com/${s}` }), read: (e) => e.u, expect: (s) => `https://example.com/${s}` },
  { field: "r", body: (s) => ({ r: `https://ref.example/${s}` }), read: (e) => e.r, expect: (s) => `https://ref.example/${s}` },
  { field: "h", body: (s) => ({ h: `h${s}` }), read: (e) => e.h, expect: (s) => `h${s}`.toLowerCase() },
  { field: "utm_source", body: (s) => ({ utm_source: `x${s}` }), read: (e) => e.utm.utm_source, expect: (s) => `x${s}` },
  { field: "utm_content", body: (s) => ({ utm_content: `x${s}` }), read: (e) => e.utm.utm_content, expect: (s) => `x${s}` },
  { field: "p value", body: (s) => ({ p: { plan: `v${s}` } }), read: (e) => e.p, expect: (s) => ({ plan: `v${s}` }) },
];

function okEvent(body: object) {
  const result = decodeBrowserEvent({ ...EVENT, ...body });
  if (!result.ok) throw new Error(`rejected: ${JSON.stringify(result.errors)}`);
  expect(result).toEqual(decodeBrowserEventWithSchema({ ...EVENT, ...body }));
  return result.value;
}

const HIT_FIELDS: ReadonlyArray<{ field: "path" | "user_agent" | "referrer"; sent: (s: string) => string }> = [
  { field: "path", sent: (s) => `/p${s}` },
  { field: "user_agent", sent: (s) => `ua${s}` },
  { field: "referrer", sent: (s) => `https://ref.example/${s}` },
];

describe.each(CLASSES)("%s", (_name, sent, stored) => {
  it.each(EVENT_FIELDS)("browser event $field is stored form, on both decoders", ({ body, read, expect: expected }) => {
    expect(read(okEvent(body(sent)))).toEqual(expected(stored));
  });

  it.each(HIT_FIELDS)("server hit $field is stored form, on both decoders", ({ field, sent: make }) => {
    const body = [{ ...HIT, [field]: make(sent) }, HIT];
    const result = decodeServerHits(body);
    expect(result).toEqual(decodeServerHitsWithSchema(body));
    expect(result.ok && result.value[0]![field]).toBe(make(stored));
  });

  it("browser event d is a 400", () => {
    const body = { ...EVENT, d: `example${sent}.com` };
    expect(decodeBrowserEvent(body)).toEqual({ ok: false, errors: [{ path: "d", message: STORED_TEXT_MESSAGE }] });
    expect(decodeBrowserEventWithSchema(body)).toEqual(decodeBrowserEvent(body));
  });

  it("server hit domain is a 400, naming the hit", () => {
    const body = [HIT, { ...HIT, domain: `example${sent}.com` }];
    expect(decodeServerHits(body)).toEqual({ ok: false, errors: [{ path: "[1].domain", message: STORED_TEXT_MESSAGE }] });
    expect(decodeServerHitsWithSchema(body)).toEqual(decodeServerHits(body));
  });

  it("a prop name is a 400 (normalising could merge two names)", () => {
    const key = `k${sent}`;
    const body = { ...EVENT, p: { ok: 1, [key]: "v" } };
    expect(decodeBrowserEvent(body)).toEqual({ ok: false, errors: [{ path: `p[${JSON.stringify(key)}]`, message: `prop names ${STORED_TEXT_MESSAGE}` }] });
    expect(decodeBrowserEventWithSchema(body)).toEqual(decodeBrowserEvent(body));
  });
});

describe.each(KEPT)("%s", (_name, text) => {
  it.each(EVENT_FIELDS)("browser event $field is kept as sent", ({ body, read, expect: expected }) => {
    expect(read(okEvent(body(text)))).toEqual(expected(text));
  });
  it("is a valid domain and prop name as far as the text goes", () => {
    expect(decodeBrowserEvent({ ...EVENT, d: `example${text}.com`, p: { [`k${text}`]: 1 } }).ok).toBe(true);
  });
});

describe("edge cases of the stored form", () => {
  it("an event name of only NULs is blank, on both decoders", () => {
    const body = { ...EVENT, n: "\u0000\u0000" };
    expect(decodeBrowserEvent(body)).toEqual({ ok: false, errors: [{ path: "n", message: "must be a non-empty event name" }] });
    expect(decodeBrowserEventWithSchema(body)).toEqual(decodeBrowserEvent(body));
  });
  it("a referrer or hostname of only NULs is none", () => {
    expect(okEvent({ r: "\u0000", h: "\u0000" })).toMatchObject({ r: null, h: null });
    const hits = decodeServerHits({ ...HIT, referrer: "\u0000" });
    expect(hits.ok && hits.value[0]!.referrer).toBe(null);
  });
  it("utm values decoded from the page URL's %00 lose the NUL", () => {
    expect(utmFromUrl("https://example.com/?utm_source=a%00b&utm_term=%00").utm_source).toBe("ab");
    expect(utmFromUrl("https://example.com/?utm_term=%00").utm_term).toBe(null);
    expect(okEvent({ u: "https://example.com/?utm_campaign=x%00y" }).utm.utm_campaign).toBe("xy");
  });
  it("the two poison hits of issue 10 decode to one stored path each: /p and /p", () => {
    const result = decodeServerHits([{ ...HIT, path: "/p" }, { ...HIT, path: "/p\u0000" }, { ...HIT, path: "/q\ud800" }, { ...HIT, path: "/q\udc00" }]);
    expect(result.ok && result.value.map((h) => h.path)).toEqual(["/p", "/p", "/q\ufffd", "/q\ufffd"]);
  });
  it("the prop value \"\\ud800\" of issue 10 is stored as U+FFFD", () => {
    expect(okEvent({ p: { k: "\ud800" } }).p).toEqual({ k: "\ufffd" });
  });
});
