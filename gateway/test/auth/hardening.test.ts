// The security review's holes, each over real HTTP against a real PostgreSQL with the injected clock:
// /healthz details behind a credential, per-site hit tokens, live streams that re-check their credential and
// are capped per credential, per-account login delays, and the __Host- Secure cookie in production.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_FREE_FAILURES } from "../../src/auth/login-limiter.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, call, createApiKey, loginAsAdmin } from "../support/auth.ts";
import { type Harness, UA, post, startHarness } from "../support/harness.ts";

let h: Harness;
let session: { token: string; cookie: string };

beforeAll(async () => {
  h = await startHarness({ sites: ["tokened.example", "open.example"], env: { SVC_LIVE_STREAMS_PER_CREDENTIAL: "2", SVC_TRUST_PROXY: "1" } });
  session = await loginAsAdmin(h.base);
});
afterAll(async () => {
  await h?.close();
});

describe("/healthz", () => {
  it("answers only the status without a credential (or with a bad one), the details with any valid one", async () => {
    for (const headers of [{}, bearer("svc_live_" + "x".repeat(43)), { cookie: "svc_session=forged" }]) {
      const reply = await call(h.base, "GET", "/healthz", { headers });
      expect(reply.status).toBe(200);
      expect(reply.json).toEqual({ status: "ok" });
    }
    const key = await createApiKey(h.base, session.token, "health reader");
    for (const headers of [bearer(key), bearer(session.token), { cookie: session.cookie }]) {
      const reply = await call(h.base, "GET", "/healthz", { headers });
      expect(reply.status).toBe(200);
      expect(reply.json).toMatchObject({ status: "ok", database: "up", sites: 2, memory_mb: expect.any(Object), writer: expect.any(Object), rate_limiters: expect.any(Object) });
    }
  });
});

describe("hit tokens", () => {
  const hit = (domain: string, headers: Record<string, string> = {}) =>
    post(h.base, "/api/hit", { domain, method: "GET", path: "/", status: 200, user_agent: UA.gptbot, referrer: null, ip: "81.2.69.142" }, headers);

  it("are made by POST/PATCH (shown once), required by /api/hit (401 otherwise), rotated and removed", async () => {
    const admin = bearer(session.token);
    const created = await call(h.base, "POST", "/api/sites", { body: { domain: "fresh.example", hit_token: true }, headers: admin });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ domain: "fresh.example", hit_token_set: true, hit_token: expect.stringMatching(/^svc_hit_[A-Za-z0-9_-]{43}$/) });
    const first: string = created.json.hit_token;

    const list = await call(h.base, "GET", "/api/sites", { headers: admin });
    expect(JSON.stringify(list.json)).not.toContain(first);
    expect(list.json.sites.find((s: any) => s.domain === "fresh.example")).toMatchObject({ hit_token_set: true });
    expect((await h.pool.query("select count(*)::int as n from sites where hit_token_hash is not null and encode(hit_token_hash, 'escape') like '%svc_hit_%'")).rows[0].n).toBe(0);

    expect((await hit("fresh.example")).status).toBe(401);
    expect((await hit("fresh.example")).json.error).toContain("requires a hit token");
    expect((await hit("fresh.example", bearer("svc_hit_" + "A".repeat(43)))).status).toBe(401);
    expect((await hit("fresh.example", bearer(first))).status).toBe(202);
    // A token is per site: another site's requests do not need it, and an array with a tokened site needs it whole.
    expect((await hit("open.example")).status).toBe(202);
    const mixed = await post(h.base, "/api/hit", [
      { domain: "open.example", method: "GET", path: "/", status: 200, user_agent: UA.gptbot, referrer: null, ip: "81.2.69.142" },
      { domain: "fresh.example", method: "GET", path: "/", status: 200, user_agent: UA.gptbot, referrer: null, ip: "81.2.69.142" },
    ]);
    expect(mixed.status).toBe(401);
    // The browser script is unaffected: a page cannot keep a secret.
    expect((await post(h.base, "/api/event", { d: "fresh.example", u: "https://fresh.example/" }, { "user-agent": UA.chrome })).status).toBe(202);

    const rotated = await call(h.base, "PATCH", "/api/sites/fresh.example", { body: { hit_token: true }, headers: admin });
    expect(rotated.status).toBe(200);
    expect(rotated.json.hit_token).not.toBe(first);
    expect((await hit("fresh.example", bearer(first))).status).toBe(401);
    expect((await hit("fresh.example", bearer(rotated.json.hit_token))).status).toBe(202);

    const removed = await call(h.base, "PATCH", "/api/sites/fresh.example", { body: { hit_token: false }, headers: admin });
    expect(removed.json).toMatchObject({ hit_token_set: false });
    expect(removed.json).not.toHaveProperty("hit_token");
    expect((await hit("fresh.example")).status).toBe(202);
  });

  it("cannot be set with a read-only key, and a non-boolean is a 400", async () => {
    const readKey = await createApiKey(h.base, session.token, "reader");
    expect((await call(h.base, "PATCH", "/api/sites/tokened.example", { body: { hit_token: true }, headers: bearer(readKey) })).status).toBe(403);
    const bad = await call(h.base, "PATCH", "/api/sites/tokened.example", { body: { hit_token: "yes" }, headers: bearer(session.token) });
    expect(bad.status).toBe(400);
    expect(bad.json.details).toEqual([{ path: "hit_token", message: "must be true or false" }]);
  });
});

interface Stream {
  readonly status: number;
  readonly events: string[];
  readonly ended: boolean;
  close(): void;
}

/** Opens a live stream and records its event names until the server ends it. */
async function openStream(headers: Record<string, string>): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const events: string[] = [];
    let ended = false;
    const req = http.get(`${h.base}/api/sites/tokened.example/live`, { headers }, (res) => {
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => events.push(...[...chunk.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]!)));
      res.on("end", () => (ended = true));
      res.on("close", () => (ended = true));
      resolve({
        status: res.statusCode ?? 0,
        events,
        get ended() {
          return ended;
        },
        close: () => req.destroy(),
      });
    });
    req.on("error", reject);
  });
}

describe("live streams", () => {
  it("end with `revoked` at the next heartbeat once the key is revoked, the session logged out or expired", async () => {
    const keyReply = await call(h.base, "POST", "/api/keys", { body: { name: "live" }, headers: bearer(session.token) });
    const other = await loginAsAdmin(h.base);
    const expiring = await loginAsAdmin(h.base);
    const byKey = await openStream(bearer(keyReply.json.key));
    const bySession = await openStream({ cookie: other.cookie });
    const byExpiring = await openStream(bearer(expiring.token));
    const untouched = await openStream(bearer(session.token));
    for (const s of [byKey, bySession, byExpiring, untouched]) {
      expect(s.status).toBe(200);
      await expect.poll(() => s.events).toContain("snapshot");
    }

    await h.gateway.live.heartbeat();
    expect([byKey, bySession, byExpiring, untouched].map((s) => s.ended)).toEqual([false, false, false, false]);

    expect((await call(h.base, "DELETE", `/api/keys/${keyReply.json.id}`, { headers: bearer(session.token) })).status).toBe(204);
    expect((await call(h.base, "POST", "/api/auth/logout", { headers: { cookie: other.cookie } })).status).toBe(204);
    // Expire one session at the injected clock's now (its row says when it ends; the token's `sid` names it).
    const sid = Buffer.from(JSON.parse(Buffer.from(expiring.token.split(".")[1]!, "base64url").toString()).sid, "base64url");
    await h.pool.query("update auth_sessions set expires_at = $1 where id = $2", [new Date(h.clock.now()), sid]);
    await h.gateway.live.heartbeat();
    await expect.poll(() => byKey.ended).toBe(true);
    await expect.poll(() => bySession.ended).toBe(true);
    await expect.poll(() => byExpiring.ended).toBe(true);
    for (const s of [byKey, bySession, byExpiring]) expect(s.events).toContain("revoked");
    expect(untouched.ended).toBe(false);
    expect(untouched.events).not.toContain("revoked");
    untouched.close();
  });

  it("are capped per credential (SVC_LIVE_STREAMS_PER_CREDENTIAL): 429 beyond, a closed one frees its slot", async () => {
    const key = await createApiKey(h.base, session.token, "capped");
    const a = await openStream(bearer(key));
    const b = await openStream(bearer(key));
    expect([a.status, b.status]).toEqual([200, 200]);
    await expect.poll(() => b.events).toContain("snapshot");
    const third = await call(h.base, "GET", "/api/sites/tokened.example/live", { headers: bearer(key) });
    expect(third.status).toBe(429);
    expect(third.json.error).toBe("at most 2 live streams per credential; close one first");
    expect(third.headers.get("retry-after")).toBe("15");
    const otherCredential = await openStream(bearer(session.token));
    expect(otherCredential.status).toBe(200);
    a.close();
    await expect.poll(async () => {
      const s = await openStream(bearer(key));
      s.close();
      return s.status;
    }).toBe(200);
    b.close();
    otherCredential.close();
  });
});

describe("login: per-account delays", () => {
  const login = (password: string, ip: string) => call(h.base, "POST", "/api/auth/login", { body: { email: ADMIN_EMAIL, password }, headers: { "x-forwarded-for": ip } });

  it(`after ${ACCOUNT_FREE_FAILURES} failures from any addresses each attempt waits 1, 2, 4… s (at most 60), then the right password works`, async () => {
    // A botnet: every failure from another address, so the per-client limit never applies.
    for (let i = 0; i < ACCOUNT_FREE_FAILURES; i++) expect((await login("wrong-password", `198.51.100.${i + 1}`)).status).toBe(401);
    const waits: string[] = [];
    for (let i = 0; i < 9; i++) {
      const held = await login(ADMIN_PASSWORD, `198.51.100.${50 + i}`); // even the right password waits
      expect(held.status).toBe(429);
      expect(held.json.error).toBe("too many failed logins for this account; retry later");
      waits.push(held.headers.get("retry-after")!);
      h.clock.advance(Number(held.headers.get("retry-after")) * 1000);
      expect((await login("wrong-password", `198.51.100.${100 + i}`)).status).toBe(401);
    }
    expect(waits).toEqual(["1", "2", "4", "8", "16", "32", "60", "60", "60"]);
    h.clock.advance(60_000);
    expect((await login(ADMIN_PASSWORD, "198.51.100.200")).status).toBe(200);
    // A success forgets the failures.
    expect((await login("wrong-password", "198.51.100.201")).status).toBe(401);
    expect((await login(ADMIN_PASSWORD, "198.51.100.202")).status).toBe(200);
  });

  it("counts an IPv6 client per /64 for the per-client limit", async () => {
    h.clock.advance(61_000);
    for (let i = 0; i < 10; i++) {
      expect((await call(h.base, "POST", "/api/auth/login", { body: "bad", headers: { "x-forwarded-for": `2001:db8:aa:bb::${i + 1}` } })).status).toBe(400);
    }
    const sameBlock = await call(h.base, "POST", "/api/auth/login", { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, headers: { "x-forwarded-for": "2001:db8:aa:bb:1234::9" } });
    expect(sameBlock.status).toBe(429);
    const nextBlock = await call(h.base, "POST", "/api/auth/login", { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, headers: { "x-forwarded-for": "2001:db8:aa:bc::1" } });
    expect(nextBlock.status).toBe(200);
  });
});

describe("logout by cookie", () => {
  it("is a cookie-authenticated write too: another site's Origin cannot end the session", async () => {
    const victim = await loginAsAdmin(h.base);
    const forged = await call(h.base, "POST", "/api/auth/logout", { headers: { cookie: victim.cookie, origin: "https://evil.example" } });
    expect(forged.status).toBe(403);
    expect((await call(h.base, "GET", "/api/auth/me", { headers: bearer(victim.token) })).status).toBe(200);
    const own = await call(h.base, "POST", "/api/auth/logout", { headers: { cookie: victim.cookie, "sec-fetch-site": "same-origin" } });
    expect(own.status).toBe(204);
  });
});

describe("a placeholder secret", () => {
  it("keeps the gateway on the loopback interface, and the log says so", async () => {
    // An empty SVC_HOST counts as unset (the harness otherwise sets 127.0.0.1 explicitly).
    const local = await startHarness({ env: { SVC_HOST: "" } });
    try {
      expect(local.gateway.port).toBeGreaterThan(0);
      expect(local.logs.some((l) => l.includes("listening on the loopback interface (127.0.0.1) only: a shipped placeholder secret is in use"))).toBe(true);
      expect((await fetch(`http://127.0.0.1:${local.gateway.port}/healthz`)).status).toBe(200);
    } finally {
      await local.close();
    }
  });
});

describe("the session cookie in production", () => {
  let prod: Harness;
  const PASSWORD = "a-real-operator-password";
  beforeAll(async () => {
    prod = await startHarness({ env: { NODE_ENV: "production", SVC_ADMIN_PASSWORD: PASSWORD, SVC_JWT_SECRET: "s".repeat(48) } });
  });
  afterAll(async () => {
    await prod?.close();
  });

  it("is Secure with the __Host- prefix even over plain http, and only that name is read", async () => {
    const reply = await call(prod.base, "POST", "/api/auth/login", { body: { email: ADMIN_EMAIL, password: PASSWORD } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("set-cookie")).toBe(`__Host-svc_session=${reply.json.token}; HttpOnly; SameSite=Lax; Path=/; Max-Age=43200; Secure`);
    expect((await call(prod.base, "GET", "/api/auth/me", { headers: { cookie: `__Host-svc_session=${reply.json.token}` } })).status).toBe(200);
    // A plain-named cookie (one a sibling subdomain could have set) is ignored.
    expect((await call(prod.base, "GET", "/api/auth/me", { headers: { cookie: `svc_session=${reply.json.token}` } })).status).toBe(401);
    const out = await call(prod.base, "POST", "/api/auth/logout", { headers: { cookie: `__Host-svc_session=${reply.json.token}` } });
    expect(out.headers.get("set-cookie")).toBe("__Host-svc_session=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0; Secure");
  });
});
