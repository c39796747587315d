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

  it("keeps a UA used in the last generation, drops one unused for two (capacity 2: a generation of 1)", () => {
    const parse = createDeviceParser(2);
    const first = parse(a);
    parse(b); // young {b}, old {a}
    parse(a); // a promoted: young {a}, old {b}
    parse(c); // young {c}, old {a}: b dropped
    expect(parse(a)).toBe(first);
    const bAgain = parse(b); // re-parsed: a fresh object
    expect(bAgain).toEqual(parseDeviceUncached(b));
    expect(parse(a)).toBe(first);
  });

  it("never holds more than its capacity", () => {
    const parse = createDeviceParser(4);
    const uas = cases.slice(0, 7).map((x) => x.ua);
    const firsts = uas.map((ua) => parse(ua));
    // 7 distinct UAs through generations of 2: young {6}, old {4, 5}. Read back newest first (a read of an older
    // one promotes it and may drop others): those three are the cached objects, the first four are parsed anew.
    for (let i = uas.length - 1; i >= 0; i--) expect(parse(uas[i]!) === firsts[i]).toBe(i >= 4);
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
