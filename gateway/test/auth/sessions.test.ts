// Admin mode over real HTTP against a real PostgreSQL: login, the cookie, bearer tokens, 12 h expiry on the
// injected clock, logout revocation, the 10-per-minute login limit, and that no client address is kept.
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PLACEHOLDER_ADMIN_PASSWORD, PLACEHOLDER_JWT_SECRET } from "../../src/auth/auth-config.ts";
import { ADMIN_EMAIL, bearer, call, createApiKey, loginAsAdmin } from "../support/auth.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { HOUR_MS } from "@svc/core";

const GOOD = { email: ADMIN_EMAIL, password: PLACEHOLDER_ADMIN_PASSWORD };

let proxied: Harness; // SVC_TRUST_PROXY=1: each test is its own client through X-Forwarded-For
let direct: Harness; // SVC_TRUST_PROXY=0: every request is 127.0.0.1 and X-Forwarded-* is ignored
let nextClient = 1;
const newClient = (): Record<string, string> => ({ "x-forwarded-for": `198.51.100.${nextClient++}` });

beforeAll(async () => {
  [proxied, direct] = await Promise.all([startHarness({ env: { SVC_TRUST_PROXY: "1" } }), startHarness()]);
});
afterAll(async () => {
  await Promise.all([proxied?.close(), direct?.close()]);
});

const login = (h: Harness, body: unknown, headers: Record<string, string> = newClient()) => call(h.base, "POST", "/api/auth/login", { body, headers });
const me = (h: Harness, headers: Record<string, string>) => call(h.base, "GET", "/api/auth/me", { headers });

describe("login", () => {
  test("success: token, expiry 12 h ahead on the injected clock, HttpOnly SameSite=Lax cookie", async () => {
    const reply = await login(proxied, GOOD);
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.json).sort()).toEqual(["expires_at", "token"]);
    expect(reply.json.expires_at).toBe(new Date(proxied.clock.now() + 12 * HOUR_MS).toISOString());
    expect(reply.headers.get("set-cookie")).toBe(`svc_session=${reply.json.token}; HttpOnly; SameSite=Lax; Path=/; Max-Age=43200`);
    expect(reply.headers.get("cache-control")).toBe("no-store");
  });

  test("the e-mail is matched without case or surrounding spaces", async () => {
    expect((await login(proxied, { email: "  Admin@LocalHost ", password: GOOD.password })).status).toBe(200);
  });

  test.each([
    { name: "wrong password", body: { email: ADMIN_EMAIL, password: "change-me-admin-passwore" } },
    { name: "wrong e-mail", body: { email: "root@localhost", password: GOOD.password } },
    { name: "both wrong", body: { email: "root@localhost", password: "nope" } },
    { name: "password with different case", body: { email: ADMIN_EMAIL, password: GOOD.password.toUpperCase() } },
    { name: "empty strings", body: { email: "", password: "" } },
  ])("401 with one message for every wrong credential: $name", async ({ body }) => {
    const reply = await login(proxied, body);
    expect(reply.status).toBe(401);
    expect(reply.json).toEqual({ error: "wrong e-mail or password" });
    expect(reply.headers.get("set-cookie")).toBeNull();
  });

  test.each([
    { name: "not JSON", body: "{email:", error: "malformed JSON", details: undefined },
    { name: "empty body", body: "", error: "empty body", details: undefined },
    { name: "an array", body: [], error: "invalid body", details: [{ path: "", message: "must be a JSON object" }] },
    { name: "missing password", body: { email: ADMIN_EMAIL }, error: "invalid body", details: [{ path: "password", message: "is required" }] },
    {
      name: "wrong types",
      body: { email: 42, password: ["x"] },
      error: "invalid body",
      details: [{ path: "email", message: "must be an e-mail address" }, { path: "password", message: "must be a string" }],
    },
    { name: "over-long e-mail", body: { email: "a".repeat(321), password: "x" }, error: "invalid body", details: [{ path: "email", message: "must be at most 320 characters" }] },
  ])("400 with details: $name", async ({ body, error, details }) => {
    const reply = await login(proxied, body);
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual(details ? { error, details } : { error });
  });

  test("Secure (and the __Host- name) only when a trusted proxy says the request came over https", async () => {
    const viaProxy = await login(proxied, GOOD, { ...newClient(), "x-forwarded-proto": "https" });
    expect(viaProxy.headers.get("set-cookie")).toMatch(/^__Host-svc_session=[^;]+; HttpOnly; SameSite=Lax; Path=\/; Max-Age=43200; Secure$/);
    // Over https only the __Host- cookie is read.
    const token = viaProxy.json.token as string;
    expect((await me(proxied, { cookie: `__Host-svc_session=${token}`, "x-forwarded-proto": "https" })).status).toBe(200);
    expect((await me(proxied, { cookie: `svc_session=${token}`, "x-forwarded-proto": "https" })).status).toBe(401);
    const plain = await login(proxied, GOOD, { ...newClient(), "x-forwarded-proto": "http" });
    expect(plain.headers.get("set-cookie")).not.toContain("Secure");
    // Without SVC_TRUST_PROXY anybody could send the header, so it is ignored.
    const untrusted = await login(direct, GOOD, { "x-forwarded-proto": "https" });
    expect(untrusted.status).toBe(200);
    expect(untrusted.headers.get("set-cookie")).not.toContain("Secure");
  });
});

describe("login rate limit: 10 attempts per minute per client", () => {
  test("the 11th attempt gets 429 with retry-after, other clients are unaffected, the window slides", async () => {
    const client = newClient();
    for (let i = 0; i < 10; i++) {
      // A different e-mail each time: this is the per-client limit, not the per-account one (tested below).
      expect((await login(proxied, { email: `guess-${i}@example.com`, password: "wrong-password" }, client)).status).toBe(401);
    }
    const limited = await login(proxied, GOOD, client); // even the right password is refused now
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(limited.json).toEqual({ error: "too many login attempts; retry later" });

    expect((await login(proxied, GOOD, newClient())).status).toBe(200);

    proxied.clock.advance(45_000);
    const later = await login(proxied, GOOD, client);
    expect(later.status).toBe(429);
    expect(later.headers.get("retry-after")).toBe("15");

    proxied.clock.advance(15_000);
    expect((await login(proxied, GOOD, client)).status).toBe(200);
  });

  test("bad bodies count as attempts too", async () => {
    const client = newClient();
    for (let i = 0; i < 10; i++) expect((await login(proxied, "not json", client)).status).toBe(400);
    expect((await login(proxied, GOOD, client)).status).toBe(429);
  });

  test("without a trusted proxy, X-Forwarded-For cannot be used to dodge the limit", async () => {
    direct.clock.advance(61_000); // a fresh window for 127.0.0.1
    for (let i = 0; i < 10; i++) {
      expect((await login(direct, { email: `guess-${i}@example.com`, password: "wrong-password" }, { "x-forwarded-for": `203.0.113.${i}` })).status).toBe(401);
    }
    expect((await login(direct, GOOD, { "x-forwarded-for": "203.0.113.200" })).status).toBe(429);
    direct.clock.advance(61_000);
  });
});

describe("using the session", () => {
  test("as a bearer token and as the cookie", async () => {
    const { token, cookie } = await loginAsAdmin(direct.base);
    const expected = { team_id: 1, via: "session", subject: ADMIN_EMAIL, scope: "admin", mode: "admin" };
    expect((await me(direct, bearer(token))).json).toEqual(expected);
    expect((await me(direct, { cookie: `theme=dark; ${cookie}; other=1` })).json).toEqual(expected);
  });

  test.each([
    { name: "no credential", headers: {}, error: "missing credentials: send the svc_session cookie or Authorization: Bearer <session token or API key>" },
    { name: "Basic scheme", headers: { authorization: "Basic YWRtaW46cGFzcw==" }, error: "the Authorization header must be `Bearer <session token or API key>`" },
    { name: "Bearer without a token", headers: { authorization: "Bearer " }, error: "the Authorization header must be `Bearer <session token or API key>`" },
    { name: "garbage token", headers: bearer("not-a-token"), error: "invalid, expired or logged-out session" },
    { name: "garbage cookie", headers: { cookie: "svc_session=abc.def.ghi" }, error: "invalid, expired or logged-out session" },
    { name: "empty cookie", headers: { cookie: "svc_session=" }, error: "missing credentials: send the svc_session cookie or Authorization: Bearer <session token or API key>" },
  ])("401: $name", async ({ headers, error }) => {
    const reply = await me(direct, headers);
    expect(reply.status).toBe(401);
    expect(reply.json).toEqual({ error });
  });

  test("a bad Authorization header is refused even next to a good cookie", async () => {
    const { cookie } = await loginAsAdmin(direct.base);
    expect((await me(direct, { cookie, authorization: "Bearer wrong" })).status).toBe(401);
  });

  test("forged tokens are refused: another secret, a tampered payload, alg none, a session id that was never issued", async () => {
    const { token } = await loginAsAdmin(direct.base);
    const [header, payload, signature] = token.split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
    const now = Math.floor(direct.clock.now() / 1000);
    const sign = (secret: string, body: Record<string, unknown>) =>
      new SignJWT(body).setProtectedHeader({ alg: "HS256" }).setIssuer("svc-gateway").setAudience("svc-session").setSubject(ADMIN_EMAIL)
        .setIssuedAt(now).setExpirationTime(now + 3600).sign(new TextEncoder().encode(secret));
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: "mallory" })).toString("base64url")}.${signature}`;
    const none = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${payload}.`;
    const forged = [
      await sign("another-secret-that-is-at-least-32-characters", { sid: claims.sid }),
      tampered,
      none,
      await sign(PLACEHOLDER_JWT_SECRET, { sid: Buffer.alloc(16, 7).toString("base64url") }),
    ];
    for (const t of forged) expect((await me(direct, bearer(t))).status).toBe(401);
    expect((await me(direct, bearer(token))).status).toBe(200);
  });

  test("a token stops working 12 h after login (injected clock), bearer and cookie alike", async () => {
    const { token, cookie } = await loginAsAdmin(direct.base);
    direct.clock.advance(12 * HOUR_MS - 1000);
    expect((await me(direct, bearer(token))).status).toBe(200);
    direct.clock.advance(1000);
    expect((await me(direct, bearer(token))).status).toBe(401);
    expect((await me(direct, { cookie })).json).toEqual({ error: "invalid, expired or logged-out session" });
  });
});

describe("logout", () => {
  test("revokes the token at once, clears the cookie, leaves other sessions alone", async () => {
    direct.clock.advance(61_000);
    const first = await loginAsAdmin(direct.base);
    const second = await loginAsAdmin(direct.base);
    const out = await call(direct.base, "POST", "/api/auth/logout", { headers: { cookie: first.cookie } });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toBe("svc_session=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0");
    expect((await me(direct, bearer(first.token))).status).toBe(401);
    expect((await me(direct, { cookie: first.cookie })).status).toBe(401);
    expect((await me(direct, bearer(second.token))).status).toBe(200);

    const again = await call(direct.base, "POST", "/api/auth/logout", { headers: bearer(first.token) });
    expect(again.status).toBe(401);
    expect(again.headers.get("set-cookie")).toBe("svc_session=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0");
  });

  test("401 without a credential, 403 with an API key", async () => {
    const { token } = await loginAsAdmin(direct.base);
    const key = await createApiKey(direct.base, token);
    expect((await call(direct.base, "POST", "/api/auth/logout")).status).toBe(401);
    const withKey = await call(direct.base, "POST", "/api/auth/logout", { headers: bearer(key) });
    expect(withKey.status).toBe(403);
    expect(withKey.json.error).toBe("an API key has no session to end; revoke it with DELETE /api/keys/{id}");
  });

  test("wrong methods answer 405", async () => {
    expect((await call(direct.base, "GET", "/api/auth/login")).status).toBe(405);
    expect((await call(direct.base, "GET", "/api/auth/logout")).status).toBe(405);
  });
});

describe("privacy and boot", () => {
  test("no client address reaches a log line or an auth row", async () => {
    const addresses = ["198.51.100.", "203.0.113.", "127.0.0.1"];
    const logs = [...proxied.logs, ...direct.logs].join("\n");
    const rows = [];
    for (const h of [proxied, direct]) {
      for (const table of ["auth_sessions", "api_keys", "teams"]) {
        const r = await h.pool.query(`select row_to_json(t)::text as j from ${table} t`);
        rows.push(...r.rows.map((x: { j: string }) => x.j));
      }
    }
    expect(rows.length).toBeGreaterThan(5);
    for (const a of addresses) {
      expect(logs).not.toContain(a);
      expect(rows.join("\n")).not.toContain(a);
    }
    expect(logs).toContain('"msg":"login rate limited"');
    expect(logs).toContain('"msg":"login failed"');
  });

  test("placeholders produce a loud warning at boot", () => {
    const warnings = direct.logs.filter((l) => l.includes('"level":"warn"') && l.includes("!!!"));
    expect(warnings.map((l) => JSON.parse(l).variable)).toEqual(["SVC_ADMIN_PASSWORD", "SVC_JWT_SECRET"]);
  });

  test("no placeholder warning with real secrets; the real password is the one that works", async () => {
    const h = await startHarness({ env: { SVC_ADMIN_EMAIL: "ops@example.com", SVC_ADMIN_PASSWORD: "correct horse battery staple", SVC_JWT_SECRET: "x".repeat(40) } });
    try {
      expect(h.logs.some((l) => l.includes("!!!"))).toBe(false);
      expect((await login(h, GOOD, {})).status).toBe(401);
      const ok = await login(h, { email: "ops@example.com", password: "correct horse battery staple" }, {});
      expect(ok.status).toBe(200);
      expect((await me(h, bearer(ok.json.token))).json.subject).toBe("ops@example.com");
    } finally {
      await h.close();
    }
  });
});
