// The uWebSockets.js transport writes status lines, and the headers of a frozen response object, from bytes it
// made once (http/uws.ts); a response whose headers are not frozen is written from its strings. Both arrive the
// same, the first answer and every later one (the cached bytes), over a real socket.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { HttpResponse, HttpServer } from "../../src/http/transport.ts";
import { uwsTransport } from "../../src/http/uws.ts";

const HEADERS = { "access-control-allow-origin": "*", "x-svc-two": "second value", "cache-control": "no-store" };
const RESPONSES: Record<string, HttpResponse> = {
  "/frozen": { status: 202, headers: Object.freeze({ ...HEADERS }) },
  "/plain": { status: 202, headers: { ...HEADERS } },
  "/frozen-body": { status: 200, headers: Object.freeze({ "content-type": "text/plain" }), body: "näive body" },
  "/unnamed-status": { status: 299 },
  "/no-headers": { status: 204 },
};

let server: HttpServer;
let base: string;
beforeAll(async () => {
  server = await uwsTransport.listen({
    host: "127.0.0.1", port: 0, bodyLimit: 1024,
    handler: (req) => RESPONSES[req.path] ?? { status: 404 },
    tooLarge: () => ({ status: 413 }), closing: () => ({ status: 503 }), onHandlerError: () => ({ status: 500 }),
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server?.close();
});

it.each([
  { path: "/frozen", status: 202, headers: HEADERS, body: "" },
  { path: "/plain", status: 202, headers: HEADERS, body: "" },
  { path: "/frozen-body", status: 200, headers: { "content-type": "text/plain" }, body: "näive body" },
  { path: "/unnamed-status", status: 299, headers: {}, body: "" },
  { path: "/no-headers", status: 204, headers: {}, body: "" },
])("$path: status $status, its headers and body, on the first answer and the third", async ({ path, status, headers, body }) => {
  for (let i = 0; i < 3; i++) {
    const res = await fetch(base + path, { method: "POST", body: "{}" });
    expect(res.status).toBe(status);
    for (const [k, v] of Object.entries(headers)) expect(res.headers.get(k)).toBe(v);
    expect(await res.text()).toBe(body);
  }
});
