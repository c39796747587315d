import { describe, expect, it } from "vitest";
import { createDeviceParser, DEVICE_CACHE_CAPACITY, parseDevice, parseDeviceUncached } from "../src/index.ts";
import cases from "./fixtures/device-user-agents.json" with { type: "json" };

describe("parseDevice", () => {
  it.each(cases)("$why", ({ ua, expect: expected }) => {
    expect(parseDevice(ua)).toEqual(expected);
    expect(parseDeviceUncached(ua)).toEqual(expected);
  });
});

describe("createDeviceParser cache", () => {
  const [a, b, c] = cases.map((x) => x.ua) as [string, string, string];

  it("returns the cached result for a repeated UA", () => {
    const parse = createDeviceParser(2);
    expect(parse(a)).toBe(parse(a));
  });

  it("evicts the least recently used UA when full", () => {
    const parse = createDeviceParser(2);
    const first = parse(a);
    parse(b);
    parse(a); // a is now the most recent, b the least
    parse(c); // evicts b
    expect(parse(a)).toBe(first);
    const bAgain = parse(b); // re-parsed: a fresh object, which evicts c
    expect(bAgain).toEqual(parseDeviceUncached(b));
    expect(parse(a)).toBe(first);
  });

  it("re-parses an evicted UA into an equal but new object", () => {
    const parse = createDeviceParser(1);
    const first = parse(a);
    parse(b);
    const again = parse(a);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses capacity %s", (capacity) => {
    expect(() => createDeviceParser(capacity)).toThrow(RangeError);
  });

  it("default capacity is documented", () => {
    expect(DEVICE_CACHE_CAPACITY).toBe(10_000);
  });
});
