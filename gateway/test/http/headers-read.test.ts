// ListenOptions.headersRead: for the requests it names, the uWebSockets.js transport copies only the named headers
// (the ingest routes: INGEST_HEADERS); every other request sees all it was sent. Over a real socket.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpServer } from "../../src/http/transport.ts";
import { uwsTransport } from "../../src/http/uws.ts";
import { INGEST_HEADERS, ingestHeadersRead } from "../../src/ingest/pipeline.ts";

let server: HttpServer;
let base: string;
beforeAll(async () => {
  server = await uwsTransport.listen({
    host: "127.0.0.1", port: 0, bodyLimit: 64 * 1024, headersRead: ingestHeadersRead,
    handler: (req) => ({ status: 200, body: JSON.stringify(req.headers) }),
    tooLarge: () => ({ status: 413 }), closing: () => ({ status: 503 }), onHandlerError: () => ({ status: 500 }),
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server?.close();
});

// What a browser's beacon sends, with a proxy's X-Forwarded-For and a middleware's token.
const SENT = {
  "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 Safari/537.36", "x-forwarded-for": "203.0.113.7",
  authorization: "Bearer svc_hit_x", "content-type": "text/plain", origin: "https://example.com", "sec-ch-ua-mobile": "?0",
  "accept-language": "en", "x-custom": "kept where all are read",
};

describe("headersRead", () => {
  it.each([
    { method: "POST", path: "/api/event", only: true },
    { method: "POST", path: "/api/hit", only: true },
    { method: "POST", path: "/api/event/", only: false },
    { method: "POST", path: "/api/sites", only: false },
    { method: "OPTIONS", path: "/api/event", only: false },
    { method: "GET", path: "/api/event", only: false },
  ])("$method $path sees $only", async ({ method, path, only }) => {
    const body = method === "POST" ? "{}" : undefined;
    const res = await fetch(base + path, { method, headers: SENT, body });
    const seen = (await res.json()) as Record<string, string>;
    if (only) {
      // The named headers the request carried, as sent (content-length is the transport's own), and nothing else.
      const named: readonly string[] = INGEST_HEADERS[path as keyof typeof INGEST_HEADERS];
      expect(Object.keys(seen).sort()).toEqual([...named].sort());
      expect(seen).toEqual(Object.fromEntries(named.map((name) => [name, name === "content-length" ? "2" : SENT[name as keyof typeof SENT]])));
    } else {
      expect(seen).toMatchObject(SENT);
      expect(seen["host"]).toBe(`127.0.0.1:${server.port}`);
    }
  });

  it("leaves a named header the request did not carry absent", async () => {
    const res = await fetch(`${base}/api/event`, { method: "POST", headers: { "user-agent": "x" }, body: "{}" });
    expect(await res.json()).toEqual({ "user-agent": "x", "content-length": "2" });
  });
});
