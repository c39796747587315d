// Ingest over a real socket, against both HTTP transports (uWebSockets.js and node:http).
import { CLASSIFIER_DATA_VERSION } from "@svc/core";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateSite } from "../src/storage/sites.ts";
import { commitRows } from "../src/writer/commit-rows.ts";
import { type Harness, UA, post, startHarness } from "./support/harness.ts";
import { loginAsAdmin } from "./support/auth.ts";

const GB_IP = "81.2.69.142";
const US_IP = "8.8.8.8";

const actorCases = [
  { ua: UA.chrome, r: "https://www.google.com/", actor: "human", name: null, rule: "default", device: "desktop", source: "Google", channel: "search" },
  { ua: UA.iphone, r: "https://chatgpt.com/", actor: "human_via_ai", name: "ChatGPT", rule: "assistant_referrer", device: "mobile", source: "ChatGPT", channel: "ai_assistant" },
  { ua: UA.gptbot, r: null, actor: "ai_crawler", name: "GPTBot", rule: "ai_crawler_token", source: null, channel: "direct" },
  { ua: UA.headless, r: null, actor: "ai_agent", name: "HeadlessChrome", rule: "headless_marker", source: null, channel: "direct" },
  { ua: UA.googlebot, r: null, actor: "bot", name: null, rule: "generic_bot", source: null, channel: "direct" },
] as const;

describe.each(["uws", "node"] as const)("ingest over %s", (transport) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ transport, env: { SVC_TRUST_PROXY: "1" }, sites: ["example.com", "rename.example"] });
  });
  afterAll(async () => {
    await h?.close();
  });

  it.each(actorCases)("browser event from $actor ($rule) → 202 and a classified row", async (c) => {
    const page = `/actor/${c.actor}`;
    const res = await post(h.base, "/api/event", { d: "example.com", n: "pageview", u: `https://example.com${page}?x=1`, r: c.r, w: 1280 }, { "user-agent": c.ua, "x-forwarded-for": GB_IP });
    expect(res.status).toBe(202);
    const { rows } = await h.pool.query("select * from events where page = $1", [page]);
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(row).toMatchObject({ actor: c.actor, ai_name: c.name, rule: c.rule, country: "GB", source: c.source, channel: c.channel, screen_width: 1280, name: "pageview" });
    if ("device" in c) expect(row.device).toBe(c.device);
    expect(row.visitor_hash).toHaveLength(32);
  });

  it("accepts a text/plain beacon body", async () => {
    const res = await post(h.base, "/api/event", JSON.stringify({ d: "example.com", u: "https://example.com/beacon" }), { "content-type": "text/plain;charset=UTF-8", "user-agent": UA.chrome });
    expect(res.status).toBe(202);
    const { rows } = await h.pool.query("select name from events where page = '/beacon'");
    expect(rows).toEqual([{ name: "pageview" }]);
  });

  it("answers the CORS preflight and sends CORS headers on /api/event", async () => {
    const pre = await fetch(`${h.base}/api/event`, { method: "OPTIONS", headers: { origin: "https://example.com", "access-control-request-method": "POST", "access-control-request-headers": "content-type" } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    expect(pre.headers.get("access-control-allow-methods")).toContain("POST");
    const bad = await post(h.base, "/api/event", "{", { origin: "https://example.com" });
    expect(bad.headers.get("access-control-allow-origin")).toBe("*");
    // The 202 of the beacon's simple request needs Allow-Origin only (the preflight answers carry the rest).
    const ok = await post(h.base, "/api/event", JSON.stringify({ d: "example.com", u: "https://example.com/cors" }), { origin: "https://example.com", "content-type": "text/plain" });
    expect(ok.status).toBe(202);
    expect(ok.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("stores a hit array, with the body's IP and UA, as jsExecuted=false rows", async () => {
    const hits = [
      { domain: "example.com", method: "GET", path: "/blog/one?utm_source=chatgpt.com", status: 200, user_agent: UA.gptbot, referrer: null, ip: US_IP },
      { domain: "example.com", method: "get", path: "/blog/missing", status: 404, user_agent: UA.chatgptUser, referrer: "https://chatgpt.com/", ip: "2001:4860:4860::8888" },
      { domain: "example.com", method: "GET", path: "/blog/two", status: 200, user_agent: UA.chrome, referrer: "https://chatgpt.com/", ip: GB_IP },
    ];
    const res = await post(h.base, "/api/hit", hits);
    expect(res.status).toBe(202);
    const { rows } = await h.pool.query("select method, page, status, actor, ai_name, country, utm_source, channel from hits where page like '/blog/%' order by page");
    expect(rows).toMatchObject([
      { method: "GET", page: "/blog/missing", status: 404, actor: "ai_agent", ai_name: "ChatGPT-User", country: "US", utm_source: null },
      { method: "GET", page: "/blog/one", status: 200, actor: "ai_crawler", ai_name: "GPTBot", country: "US", utm_source: "chatgpt.com" },
      { method: "GET", page: "/blog/two", status: 200, actor: "human_via_ai", ai_name: "ChatGPT", country: "GB", utm_source: null, channel: "ai_assistant" },
    ]);
  });

  it("accepts a single hit object too", async () => {
    const res = await post(h.base, "/api/hit", { domain: "example.com", method: "HEAD", path: "/single", status: 200, user_agent: UA.claudebot, referrer: null, ip: US_IP });
    expect(res.status).toBe(202);
    const { rows } = await h.pool.query("select actor, ai_name from hits where page = '/single'");
    expect(rows).toEqual([{ actor: "ai_crawler", ai_name: "ClaudeBot" }]);
  });

  it("answers 404 unknown site, also for the old domain right after a rename", async () => {
    expect(await post(h.base, "/api/event", { d: "nobody.example", u: "https://nobody.example/" })).toMatchObject({ status: 404, json: { error: "unknown site" } });
    expect((await post(h.base, "/api/event", { d: "rename.example", u: "https://rename.example/" }, { "user-agent": UA.chrome })).status).toBe(202);
    const site = (await h.pool.query("select id from sites where domain = 'rename.example'")).rows[0];
    await updateSite(h.pool, site.id, { domain: "renamed.example" });
    await expect.poll(async () => (await post(h.base, "/api/event", { d: "rename.example", u: "https://rename.example/" })).status, { timeout: 3000 }).toBe(404);
    expect((await post(h.base, "/api/event", { d: "renamed.example", u: "https://renamed.example/" }, { "user-agent": UA.chrome })).status).toBe(202);
    expect(await post(h.base, "/api/hit", [{ domain: "rename.example", method: "GET", path: "/", status: 200, user_agent: UA.gptbot, referrer: null, ip: US_IP }])).toMatchObject({ status: 404, json: { error: "unknown site" } });
  });

  // The site cache tries the domain as sent before normalising it (site-cache.ts): every spelling finds the site.
  it.each(["example.com", "Example.COM", " example.com ", "example.com."])("stores an event sent for %j under example.com", async (d) => {
    const page = `/spelling/${encodeURIComponent(d)}`;
    expect((await post(h.base, "/api/event", { d, u: `https://example.com${page}` }, { "user-agent": UA.chrome })).status).toBe(202);
    const { rows } = await h.pool.query("select s.domain from events e join sites s on s.id = e.site_id where e.page = $1", [page]);
    expect(rows).toEqual([{ domain: "example.com" }]);
  });

  it("answers 413 at 64 KB + 1 byte, by content-length and when chunked, and accepts exactly 64 KB", async () => {
    const base = { d: "example.com", u: "https://example.com/big", p: { pad: "" } };
    const overhead = JSON.stringify(base).length;
    const exact = JSON.stringify({ ...base, x: "y".repeat(65536 - overhead - 7) });
    expect(exact.length).toBe(65536);
    expect((await post(h.base, "/api/event", exact, { "user-agent": UA.chrome })).status).toBe(202);
    const over = exact.slice(0, -1) + " }";
    expect(over.length).toBe(65537);
    expect(await post(h.base, "/api/event", over)).toMatchObject({ status: 413, json: { error: "request body exceeds 64 KB" } });
    // Chunked: no content-length, so the limit must be enforced while reading.
    const status = await rawChunkedPost(h.gateway.port, "/api/event", [Buffer.alloc(40_000, 0x20), Buffer.alloc(40_000, 0x20)]);
    expect(status).toBe(413);
  });

  it.each([
    ["malformed JSON", "{\"d\":", 400, "malformed JSON"],
    ["empty body", "", 400, "empty body"],
    ["a JSON array for an event", "[]", 400, "invalid body"],
    ["wrong types", JSON.stringify({ d: 5, u: true }), 400, "invalid body"],
    ["nested props", JSON.stringify({ d: "example.com", u: "https://example.com/", p: { a: { b: 1 } } }), 400, "invalid body"],
  ])("answers %s with a JSON 400", async (_name, body, status, message) => {
    const res = await post(h.base, "/api/event", body);
    expect(res.status).toBe(status);
    expect(res.json.error).toBe(message);
    if (message === "invalid body") expect(res.json.details.length).toBeGreaterThan(0);
  });

  it.each([
    ["an empty array", "[]"],
    ["101 hits", JSON.stringify(Array.from({ length: 101 }, () => ({ domain: "example.com", method: "GET", path: "/", status: 200, user_agent: "x", referrer: null, ip: US_IP })))],
    ["a bad status", JSON.stringify({ domain: "example.com", method: "GET", path: "/", status: "ok", user_agent: "x", referrer: null, ip: US_IP })],
    ["a bad ip", JSON.stringify({ domain: "example.com", method: "GET", path: "/", status: 200, user_agent: "x", referrer: null, ip: "999.1.1.1" })],
  ])("answers a hit body with %s with 400 and details", async (_name, body) => {
    const res = await post(h.base, "/api/hit", body);
    expect(res.status).toBe(400);
    expect(res.json.details.length).toBeGreaterThan(0);
  });

  it("never answers 500 to junk on any route", async () => {
    const bodies = ["null", "0", "\"str\"", "{}", "[{}]", "{\"d\":null}", "\u0000\u0001", "{\"d\":\"example.com\",\"u\":\"javascript:alert(1)\"}", "{\"__proto__\":{\"x\":1}}", "[".repeat(5000)];
    for (const path of ["/api/event", "/api/hit", "/api/sites/example.com/manifest", "/healthz", "/nope", "/js/svc.js"]) {
      for (const body of bodies) {
        const res = await fetch(h.base + path, { method: "POST", body });
        expect(res.status, `${path} ${body.slice(0, 20)}`).toBeLessThan(500);
        expect(res.headers.get("content-type") ?? "application/json").toContain("json");
      }
    }
  });

  it("serves the public manifest and 404s an unknown domain", async () => {
    const res = await fetch(`${h.base}/api/sites/example.com/manifest`);
    expect(res.status).toBe(200);
    const m = (await res.json()) as Record<string, unknown>;
    expect(m).toMatchObject({ cookies: false, ip_stored: false, local_storage: false, retention_days: 395 });
    expect((await fetch(`${h.base}/api/sites/unknown.example/manifest`)).status).toBe(404);
  });

  it("reports health with the database up (the counters to a credential)", async () => {
    expect((await post(h.base, "/api/event", { d: "example.com", u: "https://example.com/health" }, { "user-agent": UA.chrome, "x-forwarded-for": GB_IP })).status).toBe(202);
    const { token } = await loginAsAdmin(h.base);
    const res = await fetch(`${h.base}/healthz`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ status: "ok", database: "up", classifier_data_version: CLASSIFIER_DATA_VERSION });
    expect(body.classifier_data_version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(body.rejected.unknown_site).toBeGreaterThan(0);
    // Where the commit cycle goes (`npm run bench` prints it): both sums count every batch committed whole.
    expect(body.writer.batches).toBeGreaterThan(0);
    expect(body.writer.copyMs).toBeGreaterThan(0);
    expect(body.writer.answerMs).toBeGreaterThan(0);
    expect(body.writer.copyMs).toBeGreaterThanOrEqual(body.writer.lastCommitMs);
  });
});

function rawChunkedPost(port: number, path: string, chunks: Buffer[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n`);
      for (const c of chunks) socket.write(`${c.length.toString(16)}\r\n`), socket.write(c), socket.write("\r\n");
      socket.write("0\r\n\r\n");
    });
    let data = "";
    socket.on("data", (d) => {
      data += d.toString();
      const m = /^HTTP\/1\.1 (\d{3})/.exec(data);
      if (m) {
        resolve(Number(m[1]));
        socket.destroy();
      }
    });
    socket.on("error", (e) => (data ? undefined : reject(e)));
    socket.on("close", () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0)));
  });
}

describe("a full site mailbox", () => {
  let h: Harness;
  let release: () => void = () => undefined;
  beforeAll(async () => {
    // A database that has stopped answering: commits wait until the test lets them go.
    const gate = new Promise<void>((r) => (release = r));
    h = await startHarness({
      sites: ["example.com"],
      env: { SVC_MAILBOX_SIZE: "16" },
      commit: async (pool, batch) => {
        await gate;
        await commitRows(pool, batch);
      },
    });
  });
  afterAll(async () => {
    release();
    await h?.close();
  });

  it("answers 503 overloaded instead of queueing without bound, and counts it", async () => {
    const sends = Array.from({ length: 400 }, (_, i) => post(h.base, "/api/event", { d: "example.com", u: `https://example.com/o/${i}` }, { "user-agent": UA.chrome }));
    await expect.poll(() => h.gateway.counters.counts["overloaded"] ?? 0, { timeout: 10_000 }).toBeGreaterThan(0);
    release();
    const results = await Promise.all(sends);
    const overloaded = results.filter((r) => r.status === 503);
    expect(overloaded.length).toBeGreaterThan(0);
    expect(overloaded[0]!.json).toEqual({ error: "overloaded" });
    const accepted = results.filter((r) => r.status === 202).length;
    expect(accepted + overloaded.length).toBe(400);
    const { rows } = await h.pool.query("select count(*)::int as n from events where page like '/o/%'");
    expect(rows[0].n).toBe(accepted);
  });
});
