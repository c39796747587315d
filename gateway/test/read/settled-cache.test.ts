// The settled-days split and the cache's rules: TTL, shared loads, failures not cached, bounded size.
import { describe, expect, it } from "vitest";
import { SETTLED_TTL_MS, SettledCache, splitSettled } from "../../src/read/settled-cache.ts";

describe("splitSettled", () => {
  it.each([
    // now, window → settled, live
    ["2026-03-15T12:00:00Z", "2026-03-01", "2026-03-15", { from: "2026-03-01", to: "2026-03-14" }, { from: "2026-03-15", to: "2026-03-15" }],
    ["2026-03-15T00:14:59Z", "2026-03-01", "2026-03-15", { from: "2026-03-01", to: "2026-03-13" }, { from: "2026-03-14", to: "2026-03-15" }],
    ["2026-03-15T00:15:00Z", "2026-03-01", "2026-03-15", { from: "2026-03-01", to: "2026-03-14" }, { from: "2026-03-15", to: "2026-03-15" }],
    ["2026-03-15T12:00:00Z", "2026-03-15", "2026-03-15", null, { from: "2026-03-15", to: "2026-03-15" }],
    ["2026-03-15T00:05:00Z", "2026-03-14", "2026-03-15", null, { from: "2026-03-14", to: "2026-03-15" }],
    ["2026-03-15T12:00:00Z", "2026-02-01", "2026-02-28", { from: "2026-02-01", to: "2026-02-28" }, null],
  ] as const)("at %s, %s..%s", (now, from, to, settled, live) => {
    expect(splitSettled({ from, to }, Date.parse(now))).toEqual({ settled, live });
  });
});

describe("SettledCache", () => {
  const rows = (n: number) => new Map(Array.from({ length: n }, (_, i) => [String(i), i] as const));

  it("loads once per TTL and shares a load between concurrent callers", async () => {
    let t = 0;
    let loads = 0;
    const cache = new SettledCache(() => t);
    const load = async () => {
      loads++;
      return rows(3);
    };
    const [a, b] = await Promise.all([cache.get("k", load), cache.get("k", load)]);
    expect(a).toBe(b);
    expect(loads).toBe(1);
    t = SETTLED_TTL_MS - 1;
    await cache.get("k", load);
    expect(loads).toBe(1);
    t = SETTLED_TTL_MS;
    await cache.get("k", load);
    expect(loads).toBe(2);
  });

  it("does not keep a failed load", async () => {
    const cache = new SettledCache(() => 0);
    await expect(cache.get("k", async () => Promise.reject(new Error("db down")))).rejects.toThrow("db down");
    expect(cache.size).toBe(0);
    expect((await cache.get("k", async () => rows(1))).size).toBe(1);
  });

  it("never caches a result over 50,000 rows and evicts the least recently used beyond 500,000", async () => {
    const cache = new SettledCache(() => 0);
    await cache.get("huge", async () => rows(50_001));
    expect(cache.size).toBe(0);
    for (let i = 0; i < 10; i++) await cache.get(`k${i}`, async () => rows(50_000));
    expect(cache.size).toBe(10);
    await cache.get("k0", async () => rows(50_000)); // k0 becomes the most recent
    await cache.get("k10", async () => rows(1));
    expect(cache.size).toBe(10);
    let reloaded = 0;
    await cache.get("k0", async () => (reloaded++, rows(1)));
    await cache.get("k1", async () => (reloaded++, rows(1)));
    expect(reloaded).toBe(1); // k1 was evicted, k0 kept
  });
});
