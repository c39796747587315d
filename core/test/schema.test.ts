import { describe, expect, it } from "vitest";
import {
  decodeBrowserEvent,
  decodeBrowserEventWithSchema,
  decodeServerHits,
  decodeServerHitsWithSchema,
  formatPath,
  LIMITS,
  looksLikeEmail,
} from "../src/index.ts";
import * as events from "./fixtures/schema-browser-events.ts";
import * as hits from "./fixtures/schema-server-hits.ts";

describe("decodeBrowserEvent accepts", () => {
  it.each(events.accepted)("$name", ({ body, event, droppedProps }) => {
    expect(decodeBrowserEvent(body)).toEqual({ ok: true, value: event, droppedProps: droppedProps ?? 0 });
  });
});

describe("decodeBrowserEvent rejects", () => {
  it.each(events.rejected)("$name", ({ body, errors }) => {
    expect(decodeBrowserEvent(body)).toEqual({ ok: false, errors });
  });
});

describe("decodeServerHits accepts", () => {
  it.each(hits.accepted)("$name", ({ body, hits: expected }) => {
    expect(decodeServerHits(body)).toEqual({ ok: true, value: expected, droppedProps: 0 });
  });
});

describe("decodeServerHits rejects", () => {
  it.each(hits.rejected)("$name", ({ body, errors }) => {
    expect(decodeServerHits(body)).toEqual({ ok: false, errors });
  });
});

// The fast path may only short-cut what the Schema decides; on every fixture both must give the same answer.
describe("fast path agrees with the Schema", () => {
  it.each([...events.accepted, ...events.rejected])("event: $name", ({ body }) => {
    expect(decodeBrowserEvent(body)).toEqual(decodeBrowserEventWithSchema(body));
  });
  it.each([...hits.accepted, ...hits.rejected])("hit: $name", ({ body }) => {
    expect(decodeServerHits(body)).toEqual(decodeServerHitsWithSchema(body));
  });
});

describe("error messages never echo the input", () => {
  it.each([
    { name: "bad ip", decode: () => decodeServerHits({ ...hits.hit, ip: "203.0.113.999" }), secret: "203.0.113.999" },
    { name: "bad prop value", decode: () => decodeBrowserEvent({ d: "a.com", u: "https://a.com/", p: { v: "secret-value".repeat(30) } }), secret: "secret-value" },
    { name: "bad user agent", decode: () => decodeServerHits({ ...hits.hit, user_agent: "secret-ua".repeat(200) }), secret: "secret-ua" },
  ])("$name", ({ decode, secret }) => {
    const result = decode();
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toContain(secret);
  });
});

describe("formatPath", () => {
  it.each([
    { path: [], text: "" },
    { path: ["p", "plan"], text: "p.plan" },
    { path: [3, "status"], text: "[3].status" },
    { path: ["p", "plan name"], text: 'p["plan name"]' },
    { path: ["p", 'a"b'], text: 'p["a\\"b"]' },
    { path: ["p", "2fa"], text: 'p["2fa"]' },
  ])("$text", ({ path, text }) => {
    expect(formatPath(path)).toBe(text);
  });
});

describe("looksLikeEmail", () => {
  it.each([
    { text: "jane@example.com", email: true },
    { text: "JANE.DOE+tag@sub.example.co.uk", email: true },
    { text: "see jane_doe@example.org.", email: true },
    { text: "jane%40example.com", email: true },
    { text: "@jane", email: false },
    { text: "root@localhost", email: false },
    { text: "a @ b.com", email: false },
    { text: "plain text", email: false },
    { text: "v1.2@3", email: false },
  ])("$text → $email", ({ text, email }) => {
    expect(looksLikeEmail(text)).toBe(email);
  });
});

it("LIMITS are the documented values", () => {
  expect(LIMITS).toMatchObject({ eventName: 120, url: 2048, referrer: 2048, props: 30, propKey: 64, propValue: 256, hitBatch: 100 });
});
