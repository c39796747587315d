// The one suite every adapter passes, each on a real framework instance over real sockets, reporting to a
// real capture server (adapters/test/capture-server.ts) that stands in for the collector's POST /api/hit.
import { afterEach, describe, expect, it } from "vitest";
import { harnesses, type AppConfig, type RunningApp } from "./harnesses.ts";
import { refusedEndpoint, startCollector, type Collector } from "./capture-server.ts";
import { get, median } from "./http-client.ts";
import { eventually } from "./eventually.ts";

const GPTBOT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";
const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";
const DOMAIN = "example.com";

describe.each(harnesses)("$name", (harness) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    // Collectors first: a hanging collector's sockets are destroyed, so a final close() fails fast instead of timing out.
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function collector(mode: "accept" | "hang" = "accept"): Promise<Collector> {
    const c = await startCollector(mode);
    cleanups.push(() => c.close());
    return c;
  }

  async function app(config: AppConfig): Promise<RunningApp> {
    const running = await harness.start(config);
    cleanups.unshift(() => running.stop());
    return running;
  }

  it("reports a GPTBot GET /blog as one hit with status 200 and exactly the request's fields", async () => {
    const c = await collector();
    const site = await app({ svc: { endpoint: c.endpoint, domain: DOMAIN, flushIntervalMs: 20 } });
    const answer = await get(`${site.url}/blog?utm_source=chatgpt.com&page=2`, {
      "user-agent": GPTBOT,
      referer: "https://chatgpt.com/",
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe("blog");
    await c.waitForHits(1);
    await site.closeSender();
    expect(c.batches).toEqual([
      [{ domain: DOMAIN, method: "GET", path: "/blog", status: 200, user_agent: GPTBOT, referrer: "https://chatgpt.com/", ip: "127.0.0.1" }],
    ]);
    expect(await eventually(site.stats, (s) => s.sent === 1)).toMatchObject({ sent: 1, dropped: 0, failed: 0, queued: 0 });
  });

  it.each([
    { token: undefined, header: undefined },
    { token: `svc_hit_${"T".repeat(43)}`, header: `Bearer svc_hit_${"T".repeat(43)}` },
  ])("sends the site's hit token as Authorization only when given (token: $token)", async ({ token, header }) => {
    const c = await collector();
    const site = await app({ svc: { endpoint: c.endpoint, domain: DOMAIN, ...(token ? { token } : {}) } });
    await get(`${site.url}/blog`, { "user-agent": GPTBOT });
    await site.closeSender();
    expect(c.hits()).toHaveLength(1);
    expect(c.authorizations).toEqual([header]);
  });

  it("reports the status of the real response: a missing page is a 404", async () => {
    const c = await collector();
    const site = await app({ svc: { endpoint: c.endpoint, domain: DOMAIN } });
    expect((await get(`${site.url}/no-such-page`, { "user-agent": GPTBOT })).status).toBe(404);
    await site.closeSender();
    expect(c.hits()).toMatchObject([{ path: "/no-such-page", status: 404, referrer: "", user_agent: GPTBOT }]);
  });

  it("reports the status the host answered with after its handler failed: 500", async () => {
    const c = await collector();
    const site = await app({ svc: { endpoint: c.endpoint, domain: DOMAIN } });
    expect((await get(`${site.url}/boom`, { "user-agent": GPTBOT })).status).toBe(500);
    await site.closeSender();
    expect(c.hits()).toMatchObject([{ path: "/boom", status: 500 }]);
  });

  it.each([
    { keepQuery: false, path: "/blog" },
    { keepQuery: true, path: "/blog?utm_source=chatgpt.com&page=2" },
  ])("keepQuery: $keepQuery sends path $path", async ({ keepQuery, path }) => {
    const c = await collector();
    const site = await app({ svc: { endpoint: c.endpoint, domain: DOMAIN, keepQuery } });
    await get(`${site.url}/blog?utm_source=chatgpt.com&page=2`, { "user-agent": GPTBOT });
    await site.closeSender();
    expect(c.hits().map((h) => h.path)).toEqual([path]);
  });

  it.each([
    { humans: false, expected: [GPTBOT] },
    { humans: true, expected: [CHROME, GPTBOT] },
  ])("a browser is reported only when humans is true (humans: $humans)", async ({ humans, expected }) => {
    const c = await collector();
    const site = await app({ svc: { endpoint: c.endpoint, domain: DOMAIN, humans } });
    expect((await get(`${site.url}/blog`, { "user-agent": CHROME })).status).toBe(200);
    await get(`${site.url}/blog`, { "user-agent": GPTBOT });
    await site.closeSender();
    expect(c.hits().map((h) => h.user_agent)).toEqual(expected);
  });

  it.each([
    { trustProxy: false, ip: "127.0.0.1" },
    { trustProxy: true, ip: "203.0.113.9" },
    { trustProxy: 1, ip: "10.1.2.3" },
    { trustProxy: 2, ip: "198.51.100.4" },
  ])("takes the client address per trustProxy: $trustProxy → $ip", async ({ trustProxy, ip }) => {
    const c = await collector();
    const site = await app({ svc: { endpoint: c.endpoint, domain: DOMAIN, trustProxy } });
    await get(`${site.url}/blog`, { "user-agent": GPTBOT, "x-forwarded-for": "203.0.113.9, 198.51.100.4, 10.1.2.3" });
    await site.closeSender();
    expect(c.hits().map((h) => h.ip)).toEqual([ip]);
  });

  it("batches: 150 requests are one POST of 100 once full, and close() sends the other 50", async () => {
    const c = await collector();
    // An interval far beyond the test, so only the batch size and close() can trigger a POST.
    const site = await app({ svc: { endpoint: c.endpoint, domain: DOMAIN, flushIntervalMs: 600_000 } });
    for (let i = 0; i < 150; i++) await get(`${site.url}/blog?i=${i}`, { "user-agent": GPTBOT });
    await c.waitForHits(100);
    expect(c.batches.map((b) => b.length)).toEqual([100]);
    expect(await eventually(site.stats, (s) => s.sent === 100)).toMatchObject({ sent: 100, queued: 50 });
    await site.closeSender();
    await c.waitForHits(150);
    expect(c.batches.map((b) => b.length)).toEqual([100, 50]);
    expect(await eventually(site.stats, (s) => s.sent === 150)).toMatchObject({ sent: 150, queued: 0, dropped: 0, failed: 0 });
  });

  it("sends a partial batch flushIntervalMs (default 1 s) after its first hit", async () => {
    const c = await collector();
    const site = await app({ svc: { endpoint: c.endpoint, domain: DOMAIN } });
    // Warm the host (a browser is not reported) so three requests take far less than the interval.
    await get(`${site.url}/blog`, { "user-agent": CHROME });
    const started = Date.now();
    for (let i = 0; i < 3; i++) await get(`${site.url}/blog`, { "user-agent": GPTBOT });
    await c.waitForHits(3, 5000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(c.batches.map((b) => b.length)).toEqual([3]);
  });

  it.each(["hang", "refuse"] as const)(
    "a collector that %ss changes neither the host's answers nor its response time, and the queue stays bounded",
    async (failure) => {
      const svc = { domain: DOMAIN, maxQueue: 10, batchSize: 5, flushIntervalMs: 10, timeoutMs: 3000 };
      const requests = 40;
      const good = await collector();
      const healthy = await app({ svc: { ...svc, endpoint: good.endpoint } });
      const endpoint = failure === "hang" ? (await collector("hang")).endpoint : await refusedEndpoint();
      const broken = await app({ svc: { ...svc, endpoint } });

      const healthyMs: number[] = [];
      const brokenMs: number[] = [];
      let maxQueued = 0;
      for (let i = 0; i < requests; i++) {
        healthyMs.push((await get(`${healthy.url}/blog`, { "user-agent": GPTBOT })).ms);
        const answer = await get(`${broken.url}/blog`, { "user-agent": GPTBOT });
        expect(answer.status).toBe(200);
        brokenMs.push(answer.ms);
        maxQueued = Math.max(maxQueued, (await broken.stats()).queued);
      }
      // Generous bounds for a shared 2-core machine; a host that waited on the collector would take >= 3000 ms.
      expect(median(brokenMs)).toBeLessThan(median(healthyMs) + 25);
      expect(Math.max(...brokenMs)).toBeLessThan(2000);
      expect(maxQueued).toBeLessThanOrEqual(10);
      const stats = await broken.stats();
      expect(stats.sent).toBe(0);
      expect(stats.sent + stats.dropped + stats.failed + stats.queued + stats.inFlight).toBe(requests);
      if (failure === "hang") {
        // One batch of 5 stuck in flight for 3 s, 10 queued: everything else was dropped and counted.
        expect(stats.dropped).toBeGreaterThanOrEqual(requests - 5 - 10);
      } else {
        expect(stats.failed).toBeGreaterThan(0);
        expect(stats.errors).toBeGreaterThan(0);
      }
    },
  );

  it.each(["throw", "reject"] as const)("an onError that %ss never reaches the host", async (onError) => {
    const escaped: unknown[] = [];
    const record = (e: unknown): void => {
      escaped.push(e);
    };
    process.on("uncaughtException", record);
    process.on("unhandledRejection", record);
    try {
      const site = await app({ svc: { endpoint: await refusedEndpoint(), domain: DOMAIN, flushIntervalMs: 5, batchSize: 1 }, onError });
      for (let i = 0; i < 5; i++) expect((await get(`${site.url}/blog`, { "user-agent": GPTBOT })).status).toBe(200);
      await site.closeSender();
      const stats = await eventually(site.stats, (s) => s.failed === 5);
      expect(stats.errors).toBe(5);
      expect(stats.failed).toBe(5);
      expect(escaped).toEqual([]);
    } finally {
      process.off("uncaughtException", record);
      process.off("unhandledRejection", record);
    }
  });
});
