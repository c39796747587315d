// The login limiter alone: the sliding window, retry-after, the shared bucket for unknown addresses and the
// bound on how many clients it remembers.
import { describe, expect, test } from "vitest";
import { LoginLimiter } from "../../src/auth/login-limiter.ts";

describe("LoginLimiter", () => {
  test.each([
    { name: "10 attempts pass, the 11th waits for the oldest to leave the window", at: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], last: { ok: false, retryAfterSeconds: 60 } },
    { name: "attempts spread over the minute: wait until the first is 60 s old", at: [0, 5_000, 10_000, 15_000, 20_000, 25_000, 30_000, 35_000, 40_000, 45_000, 50_000], last: { ok: false, retryAfterSeconds: 10 } },
    { name: "an attempt 60 s after the first is in a new window", at: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 60_000], last: { ok: true } },
    { name: "retry-after rounds up and is at least 1 s", at: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 59_999], last: { ok: false, retryAfterSeconds: 1 } },
  ])("$name", ({ at, last }) => {
    let now = 0;
    const limiter = new LoginLimiter(() => now);
    let decision: unknown = null;
    for (const t of at) {
      now = t;
      decision = limiter.attempt("192.0.2.1");
    }
    expect(decision).toEqual(last);
  });

  test("refused attempts do not extend the wait", () => {
    let now = 0;
    const limiter = new LoginLimiter(() => now);
    for (let i = 0; i < 10; i++) limiter.attempt("192.0.2.1");
    for (now = 1000; now < 60_000; now += 1000) expect(limiter.attempt("192.0.2.1").ok).toBe(false);
    now = 60_000;
    expect(limiter.attempt("192.0.2.1").ok).toBe(true);
  });

  test("clients are counted apart; requests without a known address share one bucket", () => {
    const limiter = new LoginLimiter(() => 0, 2);
    expect([limiter.attempt("192.0.2.1"), limiter.attempt("192.0.2.1"), limiter.attempt("192.0.2.1")].map((d) => d.ok)).toEqual([true, true, false]);
    expect(limiter.attempt("192.0.2.2").ok).toBe(true);
    expect([limiter.attempt(null), limiter.attempt(null), limiter.attempt(null)].map((d) => d.ok)).toEqual([true, true, false]);
  });

  test("memory is bounded: idle clients go first, then the least recently seen", () => {
    let now = 0;
    const limiter = new LoginLimiter(() => now, 10, 60_000, 3);
    for (const ip of ["192.0.2.1", "192.0.2.2", "192.0.2.3"]) limiter.attempt(ip);
    now = 61_000; // all three are idle now
    limiter.attempt("192.0.2.4");
    expect(limiter.size).toBe(1);
    for (const ip of ["192.0.2.5", "192.0.2.6", "192.0.2.7", "192.0.2.8"]) limiter.attempt(ip);
    expect(limiter.size).toBe(3);
  });

  test("a client at its limit is remembered while the map churns below the bound", () => {
    const limiter = new LoginLimiter(() => 0, 1, 60_000, 3);
    limiter.attempt("192.0.2.1");
    limiter.attempt("192.0.2.2");
    expect(limiter.attempt("192.0.2.1").ok).toBe(false); // refreshes 192.0.2.1 as recently seen
    limiter.attempt("192.0.2.3");
    limiter.attempt("192.0.2.4"); // evicts 192.0.2.2, the least recently seen
    expect(limiter.attempt("192.0.2.1").ok).toBe(false);
    expect(limiter.attempt("192.0.2.2").ok).toBe(true);
  });
});
