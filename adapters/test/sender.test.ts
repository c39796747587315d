// The sender's own contract, against the real capture server: size-limited bodies, failures counted and
// reported without visitor data, nothing accepted after close(), and the wrappers' 500-on-throw.
import { afterEach, describe, expect, it } from "vitest";
import { Hono } from "hono";
import { HitSender, type FinishedRequest, type SvcOptions } from "../src/index.ts";
import { withSvc as withNext } from "../src/next.ts";
import { withSvc as withWorker } from "../src/worker.ts";
import { svc as honoSvc } from "../src/hono.ts";
import { startCollector, type Collector, type CollectorMode } from "./capture-server.ts";
import { eventually } from "./eventually.ts";

const GPTBOT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";
const VISITOR_IP = "203.0.113.77";

function finished(overrides: Partial<FinishedRequest> = {}): FinishedRequest {
  return {
    method: "GET",
    url: "/blog",
    status: 200,
    userAgent: GPTBOT,
    referrer: null,
    peerAddress: VISITOR_IP,
    forwardedFor: null,
    ...overrides,
  };
}

const collectors: Collector[] = [];
const senders: HitSender[] = [];
afterEach(async () => {
  for (const c of collectors.splice(0)) await c.close();
  for (const s of senders.splice(0)) await s.close();
});

async function collector(mode: CollectorMode = "accept"): Promise<Collector> {
  const c = await startCollector(mode);
  collectors.push(c);
  return c;
}

function sender(options: SvcOptions): HitSender {
  const s = new HitSender({ flushOnExit: false, ...options });
  senders.push(s);
  return s;
}

describe("HitSender", () => {
  it.each(["record", "recordAndWait"] as const)("splits large hits into bodies under 64 KB (%s)", async (method) => {
    const c = await collector();
    const s = sender({ endpoint: c.endpoint, domain: "example.com", flushIntervalMs: 600_000 });
    const big = finished({ url: "/" + "p".repeat(3000), userAgent: GPTBOT + " " + "u".repeat(2000), referrer: "https://r.example/" + "é".repeat(3000) });
    const waits: unknown[] = [];
    for (let i = 0; i < 100; i++) waits.push(s[method](big));
    await Promise.all([...waits, s.flush()]);
    // The capture server answers 413 to anything over 64 KB, which would count as failed.
    expect(s.stats()).toMatchObject({ sent: 100, failed: 0 });
    expect(c.batches.length).toBeGreaterThan(1);
    expect(c.batches.flat()).toHaveLength(100);
  });

  it("puts the site's domain in the URL (?d=, what HAProxy routes by) and retries a 503 with the same body, stored once", async () => {
    const c = await collector({ unavailable: 2 });
    const s = sender({ endpoint: c.endpoint, domain: "example.com" });
    s.record(finished({ url: "/moving" }));
    await s.flush();
    expect(c.refused()).toBe(2);
    expect(c.hits().map((h) => h.path)).toEqual(["/moving"]);
    expect(s.stats()).toMatchObject({ sent: 1, failed: 0 });
  });

  it("gives a batch up after 3 retries of a 503 and reports it", async () => {
    const c = await collector({ unavailable: 10 });
    const errors: Error[] = [];
    const s = sender({ endpoint: c.endpoint, domain: "example.com", onError: (e) => errors.push(e) });
    s.record(finished());
    await s.flush();
    expect(c.refused()).toBe(4);
    expect(c.hits()).toEqual([]);
    expect(s.stats()).toMatchObject({ sent: 0, failed: 1 });
    expect(errors.map((e) => e.message)).toEqual(["svc: the collector answered 503 to a batch of 1 hits"]);
  });

  it("counts a non-2xx answer as failed and reports it without visitor data", async () => {
    const c = await collector();
    const errors: Error[] = [];
    const s = sender({ endpoint: c.endpoint.replace("/api/hit", "/elsewhere"), domain: "example.com", onError: (e) => errors.push(e) });
    s.record(finished());
    await s.flush();
    expect(s.stats()).toMatchObject({ sent: 0, failed: 1 });
    expect(errors.map((e) => e.message)).toEqual(["svc: the collector answered 404 to a batch of 1 hits"]);
  });

  it("a hand-made hit the collector refuses fails its whole batch (why buildHit checks every field)", async () => {
    const c = await collector();
    const errors: Error[] = [];
    const s = sender({ endpoint: c.endpoint, domain: "example.com", onError: (e) => errors.push(e) });
    s.record(finished());
    s.enqueue({ domain: "example.com", method: "GET", path: "/", status: 200, user_agent: "x", referrer: "", ip: "" });
    await s.flush();
    expect(s.stats()).toMatchObject({ sent: 0, failed: 2 });
    expect(errors.map((e) => e.message)).toEqual(["svc: the collector answered 400 to a batch of 2 hits"]);
  });

  it("gives up on a collector that does not answer within timeoutMs", async () => {
    const c = await collector("hang");
    const errors: Error[] = [];
    const s = sender({ endpoint: c.endpoint, domain: "example.com", timeoutMs: 200, onError: (e) => errors.push(e) });
    s.record(finished());
    const started = Date.now();
    await s.flush();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(s.stats()).toMatchObject({ failed: 1, inFlight: 0, queued: 0 });
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain("no answer within 200 ms");
    expect(errors[0]!.message).not.toContain(VISITOR_IP);
  });

  it("drops and counts hits beyond maxQueue while the collector is stuck", async () => {
    const c = await collector("hang");
    const s = sender({ endpoint: c.endpoint, domain: "example.com", maxQueue: 20, batchSize: 10, timeoutMs: 60_000 });
    for (let i = 0; i < 100; i++) s.record(finished());
    await eventually(async () => s.stats(), (st) => st.inFlight === 10);
    for (let i = 0; i < 100; i++) s.record(finished());
    // 10 in the stuck POST, 20 queued, the rest dropped.
    expect(s.stats()).toMatchObject({ sent: 0, inFlight: 10, queued: 20, dropped: 170 });
  });

  it("refuses hits after close() and counts them as dropped", async () => {
    const c = await collector();
    const s = sender({ endpoint: c.endpoint, domain: "example.com" });
    s.record(finished());
    await s.close();
    s.record(finished());
    await s.recordAndWait(finished());
    expect(s.enqueue({ domain: "example.com", method: "GET", path: "/", status: 200, user_agent: "x", referrer: "", ip: "" })).toBe(false);
    expect(s.stats()).toMatchObject({ sent: 1, dropped: 3 });
    expect(c.hits()).toHaveLength(1);
  });
});

describe("wrappers on web runtimes", () => {
  it("the worker wrapper reports 500 and rethrows when the handler throws", async () => {
    const c = await collector();
    const failure = new Error("handler broke");
    const worker = withWorker({ fetch: async () => Promise.reject(failure) }, { endpoint: c.endpoint, domain: "example.com", flushOnExit: false });
    const waits: Promise<unknown>[] = [];
    const request = new Request("https://example.com/api?x=1", { headers: { "user-agent": GPTBOT, "cf-connecting-ip": VISITOR_IP } });
    await expect(worker.fetch(request, {}, { waitUntil: (p) => waits.push(p) })).rejects.toBe(failure);
    await worker.svc()!.flush();
    await Promise.all(waits);
    expect(c.hits()).toEqual([{ domain: "example.com", method: "GET", path: "/api", status: 500, user_agent: GPTBOT, referrer: "", ip: VISITOR_IP }]);
  });

  it("the Next-style wrapper reports a redirect's status, and 500 when the middleware throws", async () => {
    const c = await collector();
    const middleware = withNext(
      (request) => {
        if (new URL(request.url).pathname === "/old") return Response.redirect("https://example.com/new", 308);
        throw new Error("middleware broke");
      },
      { endpoint: c.endpoint, domain: "example.com", getIp: () => VISITOR_IP, flushOnExit: false },
    );
    const waits: Promise<unknown>[] = [];
    const event = { waitUntil: (p: Promise<unknown>) => void waits.push(p) };
    const headers = { "user-agent": GPTBOT };
    expect((await middleware(new Request("https://example.com/old", { headers }), event))?.status).toBe(308);
    await expect(middleware(new Request("https://example.com/boom", { headers }), event)).rejects.toThrow("middleware broke");
    await middleware.svc.flush();
    await Promise.all(waits);
    expect(c.hits().map((h) => [h.path, h.status, h.ip])).toEqual([
      ["/old", 308, VISITOR_IP],
      ["/boom", 500, VISITOR_IP],
    ]);
  });

  it("Hono under a worker-style execution context hands the POST to waitUntil", async () => {
    const c = await collector();
    const app = new Hono();
    app.use(honoSvc({ endpoint: c.endpoint, domain: "example.com", flushIntervalMs: 10, flushOnExit: false, getConnInfo: () => ({ remote: { address: VISITOR_IP } }) }));
    app.get("/blog", (ctx) => ctx.text("blog"));
    const waits: Promise<unknown>[] = [];
    const ctx = { waitUntil: (p: Promise<unknown>) => void waits.push(p), passThroughOnException: () => undefined, props: {} };
    const response = await app.fetch(new Request("https://example.com/blog", { headers: { "user-agent": GPTBOT } }), {}, ctx);
    expect(response.status).toBe(200);
    expect(waits).toHaveLength(1);
    await Promise.all(waits);
    expect(c.hits()).toMatchObject([{ path: "/blog", status: 200, ip: VISITOR_IP }]);
  });
});
