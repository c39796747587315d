// idle site lanes: one that received no rows for SVC_LANE_IDLE_MS (by the injected clock) is stopped
// and dropped with its visitor state; the next row of its site starts a new lane that rebuilds the state
// from the day's raw rows, so a returning visitor is still counted once.
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loginAsAdmin } from "./support/auth.ts";
import { type Harness, UA, post, startHarness } from "./support/harness.ts";
import { recomputedRollups, storedRollups } from "./support/recompute.ts";

const MINUTE = 60_000;
const visitor = { "user-agent": UA.chrome, "x-forwarded-for": "81.2.69.160" };
const send = (h: Harness, domain: string, page: string) => post(h.base, "/api/event", { d: domain, u: `https://${domain}${page}` }, visitor);

describe("idle site lanes", () => {
  let h: Harness;
  let a: number;
  let b: number;
  beforeAll(async () => {
    // The smallest idle time allowed (1 minute): the sweep then runs every 15 s of real time.
    h = await startHarness({ now: "2026-11-20T10:00:00Z", sites: ["a.example", "b.example"], env: { SVC_LANE_IDLE_MS: String(MINUTE), SVC_TRUST_PROXY: "1" } });
    const ids = (await h.pool.query("select id, domain from sites")).rows;
    a = ids.find((r) => r.domain === "a.example").id;
    b = ids.find((r) => r.domain === "b.example").id;
  });
  afterAll(async () => {
    await h?.close();
  });

  it("stops only the lanes idle for the configured time, and a returning visitor is counted once", async () => {
    expect((await send(h, "a.example", "/1")).status).toBe(202);
    expect((await send(h, "b.example", "/1")).status).toBe(202);
    h.clock.advance(40_000);
    expect((await send(h, "b.example", "/2")).status).toBe(202);
    h.clock.advance(30_000); // a: 70 s without rows, b: 30 s

    expect(await Effect.runPromise(h.gateway.lanes.stopIdle(h.clock.now()))).toBe(1);
    expect(h.gateway.lanes.find(a)).toBeUndefined();
    expect(h.gateway.lanes.find(b)).toBeDefined();
    const { token } = await loginAsAdmin(h.base);
    const health = (await (await fetch(`${h.base}/healthz`, { headers: { authorization: `Bearer ${token}` } })).json()) as any;
    expect(health.lanes).toMatchObject({ active: 1, stopped_idle: 1 });

    // The same visitor comes back to a: a new lane, state rebuilt from the day's rows, still one visitor.
    expect((await send(h, "a.example", "/3")).status).toBe(202);
    expect(h.logs.some((l) => l.includes("site state rebuilt") && l.includes(`"site":${a}`))).toBe(true);
    await h.gateway.rollups.flushBeforeRead();
    const total = await h.pool.query("select visitors::int, pageviews::int from rollup_daily where site_id = $1 and dim = 'total' and actor = 'human'", [a]);
    expect(total.rows).toEqual([{ visitors: 1, pageviews: 2 }]);
    for (const grain of ["day", "hour"] as const) expect(await storedRollups(h.pool, a, grain)).toEqual(await recomputedRollups(h.pool, a, grain));
  });

  it("the sweep runs by itself", async () => {
    h.clock.advance(2 * MINUTE);
    await expect.poll(() => h.gateway.lanes.stats().active, { timeout: 25_000, interval: 500 }).toBe(0);
    expect(h.logs.some((l) => l.includes("idle site lanes stopped"))).toBe(true);
    expect((await send(h, "b.example", "/4")).status).toBe(202);
    expect(h.gateway.lanes.stats().active).toBe(1);
  }, 30_000);
});
