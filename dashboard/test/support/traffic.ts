// Traffic for the dashboard tests, sent through the gateway's real ingest routes over HTTP.
import { request } from "node:http";
import { expect } from "vitest";
import { bearer, call, loginAsAdmin } from "../../../gateway/test/support/auth.ts";
import { UA, post } from "../../../gateway/test/support/harness.ts";

/** A distinct visitor: the gateway hashes IP and User-Agent, and every test request comes from 127.0.0.1. */
export const visitorUa = (n: number) => UA.chrome.replace("Chrome/131.0.0.0", `Chrome/131.0.${n}.0`);

export async function pageview(base: string, domain: string, path: string, ua: string = UA.chrome, extra: Record<string, unknown> = {}): Promise<void> {
  const res = await post(base, "/api/event", { d: domain, n: "pageview", u: `https://${domain}${path}`, ...extra }, { "user-agent": ua });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
}

export async function crawlerHit(base: string, domain: string, path: string, ua: string = UA.gptbot, status = 200): Promise<void> {
  const res = await post(base, "/api/hit", [{ domain, method: "GET", path, status, user_agent: ua, referrer: "", ip: "203.0.113.9" }]);
  expect(res.status, JSON.stringify(res.json)).toBe(202);
}

/** The gateway's JSON for a route, read with a session of its own: what the DOM must show. */
const tokens = new Map<string, Promise<{ token: string }>>();
export async function apiJson(base: string, path: string): Promise<any> {
  // One session per gateway: the login limiter allows 10 attempts a minute.
  if (!tokens.has(base)) tokens.set(base, loginAsAdmin(base));
  const { token } = await tokens.get(base)!;
  const reply = await call(base, "GET", path, { headers: bearer(token) });
  expect(reply.status, JSON.stringify(reply.json)).toBe(200);
  return reply.json;
}

/** POST /api/v2/query's answer for `body`, read with the same session: what a filtered view must show. */
export async function apiQuery(base: string, body: Record<string, unknown>): Promise<any> {
  if (!tokens.has(base)) tokens.set(base, loginAsAdmin(base));
  const { token } = await tokens.get(base)!;
  const reply = await call(base, "POST", "/api/v2/query", { body, headers: bearer(token) });
  expect(reply.status, JSON.stringify(reply.json)).toBe(200);
  return reply.json;
}

let loginSerial = 0;
/**
 * A failed JSON sign-in through the dashboard at `base`, sent from a chosen local address (Linux routes all of
 * 127/8 to loopback): its status. A new e-mail each time, so only the per-client limit (10 a minute) is in
 * play, never the per-account one.
 */
export function wrongLoginFrom(base: string, localAddress: string, headers: Record<string, string> = {}): Promise<number> {
  const body = JSON.stringify({ email: `nobody-${loginSerial++}@example.com`, password: "wrong-password" });
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: hostname, port, localAddress, method: "POST", path: "/api/auth/login", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode!));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
