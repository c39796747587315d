// The dashboard server's /api proxy, against a local upstream that records what reaches it: the browser's
// Cookie, Origin, Sec-Fetch-Site, Content-Type, Authorization and Accept arrive unchanged, X-Forwarded-For
// is the browser's address (and nothing else of note), every Set-Cookie comes back unchanged, ingest is refused, and SSE is streamed as written.
// A request the browser withdraws before its answer is closed upstream too (the gateway then drops its query).
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DashboardServer, startDashboard } from "../scripts/launch.ts";

let upstream: Server;
let dashboard: DashboardServer;
const seen: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[] = [];
let releaseStream: () => void = () => {};
/** Set when the upstream's connection for /api/slow closed before it answered. */
let slowClosed = false;
let slowArrived = false;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (req.url === "/api/slow") {
        slowArrived = true;
        res.on("close", () => (slowClosed = !res.writableFinished));
        return;
      }
      if (req.url === "/api/sites/1/live") {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
        res.write('event: snapshot\ndata: {"n":1}\n\n');
        releaseStream = () => res.end('event: delta\ndata: {"n":2}\n\n');
        return;
      }
      res.writeHead(201, [
        ["content-type", "application/json"],
        ["set-cookie", "__Host-svc_session=abc; HttpOnly; Secure; SameSite=Lax; Path=/"],
        ["set-cookie", "other=1; Path=/"],
      ]);
      res.end(JSON.stringify({ ok: true }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  dashboard = await startDashboard(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
});
afterAll(async () => {
  releaseStream();
  await dashboard?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

describe("/api proxy", () => {
  it("closes the upstream request when the browser withdraws its own before the answer", async () => {
    const asked = new AbortController();
    const answer = fetch(`${dashboard.base}/api/slow`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}", signal: asked.signal });
    answer.catch(() => undefined);
    while (!slowArrived) await new Promise((r) => setTimeout(r, 10));
    expect(slowClosed).toBe(false);
    asked.abort();
    const until = Date.now() + 5_000;
    while (!slowClosed && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect(slowClosed).toBe(true);
  });

  it("forwards the allow-listed headers unchanged and returns every Set-Cookie unchanged", async () => {
    const headers = {
      cookie: "svc_session=tok; theme=dark",
      origin: dashboard.base,
      "sec-fetch-site": "same-origin",
      "content-type": "application/json",
      authorization: "Bearer svc_live_x",
      accept: "application/json",
      "x-forwarded-for": "198.51.100.1",
      "x-custom": "dropped",
    };
    const res = await fetch(`${dashboard.base}/api/keys?x=1`, { method: "POST", headers, body: '{"name":"k"}' });
    expect(res.status).toBe(201);
    expect(res.headers.getSetCookie()).toEqual(["__Host-svc_session=abc; HttpOnly; Secure; SameSite=Lax; Path=/", "other=1; Path=/"]);
    expect(await res.json()).toEqual({ ok: true });
    const got = seen.at(-1)!;
    expect(got).toMatchObject({ method: "POST", url: "/api/keys?x=1", body: '{"name":"k"}' });
    for (const name of ["cookie", "origin", "sec-fetch-site", "content-type", "authorization", "accept"] as const) expect(got.headers[name]).toBe(headers[name]);
    // Set to the browser's own address (this test's socket), never the header the browser sent.
    expect(got.headers["x-forwarded-for"]).toBe("127.0.0.1");
    expect(got.headers["x-custom"]).toBeUndefined();
  });

  it("refuses ingest: events must reach the gateway directly, or every visitor would share the dashboard's address", async () => {
    const before = seen.length;
    for (const path of ["/api/event", "/api/hit"]) {
      const res = await fetch(`${dashboard.base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(res.status).toBe(404);
      expect((await res.json()).error).toMatch(/gateway/);
    }
    expect(seen.length).toBe(before);
  });

  it("streams SSE as it is written, before the upstream ends the response", async () => {
    const res = await fetch(`${dashboard.base}/api/sites/1/live`, { headers: { accept: "text/event-stream" } });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain("event: snapshot");
    releaseStream();
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toContain("event: delta");
  });

  it("answers 502 with a JSON error when the gateway is unreachable", async () => {
    const lonely = await startDashboard("http://127.0.0.1:9");
    try {
      const res = await fetch(`${lonely.base}/api/sites`);
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({ error: "the API is not reachable" });
    } finally {
      await lonely.close();
    }
  });
});
