// The live stream: a snapshot on connect, a delta within 1 s of an acknowledged event, credentials
// required, and a subscriber that stops reading never slows or blocks ingest.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, loginAsAdmin } from "./support/auth.ts";
import { type Harness, UA, post, startHarness } from "./support/harness.ts";
import { subscribe } from "./support/sse.ts";

describe("live stream", () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    // Its stalled-subscriber test needs thousands of distinct 2 KB pages to stay distinct in the deltas: past the
    // default value budget (20,000 a dimension) they would fold into "(other)" and the deltas stay small.
    h = await startHarness({ sites: ["example.com"], env: { SVC_VALUE_BUDGET: "10000000" } });
    const { token } = await loginAsAdmin(h.base);
    key = await createApiKey(h.base, token);
  });
  afterAll(async () => {
    await h?.close();
  });

  it("refuses a request without credentials", async () => {
    const res = await fetch(`${h.base}/api/sites/example.com/live`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error).toBeTruthy();
  });

  it("sends a snapshot, then the delta for an event within 1 s of its 202", async () => {
    expect((await post(h.base, "/api/event", { d: "example.com", u: "https://example.com/first" }, { "user-agent": UA.chrome })).status).toBe(202);
    const s = subscribe(`${h.base}/api/sites/example.com/live`, { authorization: `Bearer ${key}` });
    await s.opened;
    expect(s.status).toBe(200);
    expect(s.contentType).toContain("text/event-stream");
    await expect.poll(() => s.events.find((e) => e.event === "snapshot"), { timeout: 5000 }).toBeTruthy();
    const snapshot = s.events.find((e) => e.event === "snapshot")!.data;
    expect(snapshot.totals.human).toMatchObject({ pageviews: 1, visitors: 1 });
    expect(snapshot.visitors_last_5_minutes).toEqual({ human: 1 });

    const res = await post(h.base, "/api/event", { d: "example.com", n: "Signup", u: "https://example.com/signup" }, { "user-agent": UA.gptbot });
    const ackedAt = Date.now();
    expect(res.status).toBe(202);
    await expect.poll(() => s.events.find((e) => e.event === "delta"), { timeout: 3000 }).toBeTruthy();
    const delta = s.events.find((e) => e.event === "delta")!;
    expect(delta.receivedAt - ackedAt).toBeLessThan(1000);
    expect(delta.data.totals.ai_crawler).toMatchObject({ events: 1, visitors: 1 });
    expect(delta.data.dimensions).toContainEqual(expect.objectContaining({ actor: "ai_crawler", dim: "event", value: "Signup", events: 1 }));
    s.close();
  });

  it("has sent a row's delta by the time a read that counts the row answers (a reloading dashboard counts it once)", async () => {
    const s = subscribe(`${h.base}/api/sites/example.com/live`, { authorization: `Bearer ${key}` });
    await s.opened;
    await expect.poll(() => s.events.some((e) => e.event === "snapshot"), { timeout: 5000 }).toBe(true);
    // Three rounds: the hub's own 500 ms tick could send a delta in time by chance once, hardly three times.
    for (const round of [1, 2, 3]) {
      const deltasBefore = s.events.filter((e) => e.event === "delta").length;
      const page = `https://example.com/aligned-${round}`;
      expect((await post(h.base, "/api/event", { d: "example.com", u: page }, { "user-agent": UA.chrome })).status).toBe(202);
      const stats = await fetch(`${h.base}/api/sites/example.com/stats?days=1`, { headers: { authorization: `Bearer ${key}` } });
      expect(stats.status).toBe(200);
      await stats.json();
      // The read flushed the rollups, and the hub sent the same commits' deltas in that tick, before any SQL ran.
      await expect.poll(() => s.events.filter((e) => e.event === "delta").slice(deltasBefore).some((e) => e.data.totals.human?.pageviews >= 1), { timeout: 150, interval: 5 }).toBe(true);
    }
    s.close();
  });

  it("keeps ingesting while a subscriber stops reading, and tells that subscriber to resync", async () => {
    // A raw socket that sends the request and never reads: its receive window fills up.
    const net = await import("node:net");
    const stalled = net.connect(h.gateway.port, "127.0.0.1");
    stalled.on("error", () => undefined);
    await new Promise<void>((r) => stalled.once("connect", () => r()));
    stalled.write(`GET /api/sites/example.com/live HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    stalled.pause();
    await expect.poll(() => h.gateway.live.stats.subscribers, { timeout: 3000 }).toBeGreaterThanOrEqual(1);

    // Deltas carry at most 100 dimension entries; with distinct 2 KB paths each one is ~200 KB, so a few
    // dozen flushes outgrow what the kernel buffers of a loopback socket hold for a reader that never reads.
    const started = Date.now();
    const pad = "p".repeat(1990);
    let round = 0;
    while (h.gateway.live.stats.resyncs === 0 && Date.now() - started < 45_000) {
      const hits = Array.from({ length: 25 }, (_, i) => ({ domain: "example.com", method: "GET", path: `/${pad}/${round}/${i}`, status: 200, user_agent: UA.gptbot, referrer: null, ip: `81.${round % 250}.${i}.1` }));
      expect((await post(h.base, "/api/hit", hits)).status).toBe(202);
      round++;
    }
    expect(h.gateway.live.stats.resyncs).toBeGreaterThanOrEqual(1);
    // Ingest kept flowing the whole time: every batch above was acknowledged.
    expect(round).toBeGreaterThan(10);
    stalled.destroy();
  });
});
