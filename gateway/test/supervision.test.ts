// Supervision: a fault injected into each long-lived loop (the test hook of the in-process gateway, not
// reachable over HTTP) crashes it the way a bug would. The crash is logged and counted in /healthz, the
// requests it held get a clear 503 with Retry-After, the loop restarts (a second fault is reached again),
// later requests are stored, and every rollup still equals the recount of its raw rows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, loginAsAdmin } from "./support/auth.ts";
import { type Harness, UA, post, startHarness } from "./support/harness.ts";
import { recomputedRollups, storedRollups } from "./support/recompute.ts";
import { subscribe } from "./support/sse.ts";
import type { Component } from "../src/supervision/supervisor.ts";

const event = (domain: string, page: string) => ({ d: domain, u: `https://${domain}${page}` });

// The details of /healthz are for a credential (issue 13); the public answer is only the status.
async function healthz(h: Harness): Promise<any> {
  const { token } = await loginAsAdmin(h.base);
  return (await fetch(`${h.base}/healthz`, { headers: { authorization: `Bearer ${token}` } })).json();
}

async function expectRollupsExact(h: Harness, domain: string): Promise<void> {
  await h.gateway.rollups.flushBeforeRead();
  const siteId = (await h.pool.query("select id from sites where domain = $1", [domain])).rows[0].id;
  for (const grain of ["day", "hour"] as const) expect(await storedRollups(h.pool, siteId, grain)).toEqual(await recomputedRollups(h.pool, siteId, grain));
}

describe("supervised loops", () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness({ sites: ["a.example", "b.example"], env: { SVC_ROLLUP_FLUSH_MS: "50" }, maintenanceIntervalMs: 50 });
    key = await createApiKey(h.base, (await loginAsAdmin(h.base)).token);
  });
  afterAll(async () => {
    await h?.close();
  });

  it("starts with no crash counted", async () => {
    const body = await healthz(h);
    expect(body.supervision.crashes).toEqual({ site_lane: 0, writer: 0, rollup_flusher: 0, maintenance: 0, live_hub: 0 });
  });

  // The loops that hold requests: their in-hand requests are answered 503, the next ones 202.
  it.each(["site_lane", "writer"] as const)("a crashed %s answers its pending request 503 and is restarted from the database state", async (component) => {
    const ua = { "user-agent": UA.chrome, "x-forwarded-for": "81.2.69.160" };
    expect((await post(h.base, "/api/event", event("a.example", `/${component}/before`), ua)).status).toBe(202);
    const siteId = h.gateway.sites.all().find((s) => s.domain === "a.example")!.id;
    const before = h.gateway.supervisor.crashes[component];
    const rebuilds = () => h.logs.filter((l) => l.includes('"msg":"site state rebuilt from today\'s rows"')).length;
    const rebuiltBefore = rebuilds();

    h.gateway.faults.arm(component, component === "site_lane" ? siteId : undefined);
    const crashed = await post(h.base, "/api/event", event("a.example", `/${component}/lost`), ua);
    expect(crashed.status).toBe(503);
    expect(crashed.headers.get("retry-after")).toBe("1");
    expect(crashed.json.error).toMatch(/not stored/);
    expect(h.gateway.supervisor.crashes[component]).toBe(before + 1);
    expect(h.logs.some((l) => l.includes(`"msg":"${component} crashed; restarting"`))).toBe(true);

    // Restarted: the same visitor again, another site, and the counts still exact.
    await expect.poll(async () => (await post(h.base, "/api/event", event("a.example", `/${component}/after`), ua)).status, { timeout: 5000 }).toBe(202);
    expect(rebuilds()).toBeGreaterThan(rebuiltBefore);
    expect((await post(h.base, "/api/event", event("b.example", `/${component}/other`), ua)).status).toBe(202);
    const { rows } = await h.pool.query("select page from events where page like $1 order by page", [`/${component}/%`]);
    expect(rows.map((r) => r.page)).not.toContain(`/${component}/lost`);
    expect((await healthz(h)).supervision.crashes[component]).toBe(before + 1);
    await expectRollupsExact(h, "a.example");
  });

  it("a crashed rollup flusher keeps the counts it held and writes them after its restart", async () => {
    const ua = { "user-agent": UA.iphone, "x-forwarded-for": "81.2.69.161" };
    h.gateway.faults.arm("rollup_flusher");
    for (let i = 0; i < 5; i++) expect((await post(h.base, "/api/event", event("a.example", `/flusher/${i}`), ua)).status).toBe(202);
    await expect.poll(() => h.gateway.supervisor.crashes.rollup_flusher, { timeout: 5000 }).toBe(1);
    // The restarted loop flushes by itself: the held counts drain without a read forcing them.
    await expect.poll(() => h.gateway.rollups.stats.held, { timeout: 5000 }).toBe(0);
    await expectRollupsExact(h, "a.example");
  });

  it("a crashed maintenance loop is restarted and reaches its next turn", async () => {
    h.gateway.faults.arm("maintenance");
    await expect.poll(() => h.gateway.supervisor.crashes.maintenance, { timeout: 5000 }).toBe(1);
    h.gateway.faults.arm("maintenance");
    await expect.poll(() => h.gateway.supervisor.crashes.maintenance, { timeout: 5000 }).toBe(2);
  });

  it("a crashed live hub tells its subscribers to resync, and new subscribers get deltas again", async () => {
    const first = subscribe(`${h.base}/api/sites/a.example/live`, { authorization: `Bearer ${key}` });
    await first.opened;
    await expect.poll(() => h.gateway.live.stats.subscribers, { timeout: 3000 }).toBe(1);
    h.gateway.faults.arm("live_hub");
    await expect.poll(() => first.events.map((e) => e.event), { timeout: 3000 }).toContain("resync");
    expect(h.gateway.supervisor.crashes.live_hub).toBe(1);
    first.close();

    const second = subscribe(`${h.base}/api/sites/a.example/live`, { authorization: `Bearer ${key}` });
    await second.opened;
    await expect.poll(() => second.events.find((e) => e.event === "snapshot"), { timeout: 3000 }).toBeTruthy();
    expect((await post(h.base, "/api/event", event("a.example", "/live/after"), { "user-agent": UA.chrome })).status).toBe(202);
    await expect.poll(() => second.events.find((e) => e.event === "delta"), { timeout: 3000 }).toBeTruthy();
    second.close();
  });

  it("counts every crash by component in /healthz", async () => {
    const crashes: Record<Component, number> = (await healthz(h)).supervision.crashes;
    expect(crashes).toEqual({ site_lane: 1, writer: 1, rollup_flusher: 1, maintenance: 2, live_hub: 1 });
  });
});
