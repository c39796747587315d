// Hosted mode (SVC_AUTH_MODE=jwt) against locally generated keys: an RS256 and an ES256 key served by a JWKS
// HTTP server on 127.0.0.1, plus an HS256 shared secret. Every forgery or claim mismatch is a 401; a valid token
// without a team membership is a 403 (invite-only).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bearer, call, createApiKey } from "../support/auth.ts";
import { type Harness, startHarness } from "../support/harness.ts";

const ISSUER = "https://idp.test/";
const AUDIENCE = "svc-api";
const HS_SECRET = "shared-hs256-secret-with-the-identity-provider";

type Key = Awaited<ReturnType<typeof generateKeyPair>>["privateKey"] | Uint8Array;

let h: Harness;
let jwksServer: Server;
let jwksRequests = 0;
let rsa: Awaited<ReturnType<typeof generateKeyPair>>;
let ec: Awaited<ReturnType<typeof generateKeyPair>>;
let stranger: Awaited<ReturnType<typeof generateKeyPair>>;
let acme = 0;

beforeAll(async () => {
  [rsa, ec, stranger] = await Promise.all([generateKeyPair("RS256"), generateKeyPair("ES256"), generateKeyPair("RS256")]);
  const keys = [
    { ...(await exportJWK(rsa.publicKey)), kid: "rsa-1", alg: "RS256", use: "sig" },
    { ...(await exportJWK(ec.publicKey)), kid: "ec-1", alg: "ES256", use: "sig" },
  ];
  jwksServer = createServer((req, res) => {
    jwksRequests++;
    if (req.url !== "/.well-known/jwks.json") return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys }));
  });
  await new Promise<void>((r) => jwksServer.listen(0, "127.0.0.1", r));
  const port = (jwksServer.address() as AddressInfo).port;
  h = await startHarness({
    env: {
      SVC_AUTH_MODE: "jwt",
      SVC_JWT_ISSUER: ISSUER,
      SVC_JWT_AUDIENCE: AUDIENCE,
      SVC_JWT_JWKS_URL: `http://127.0.0.1:${port}/.well-known/jwks.json`,
      SVC_JWT_SECRET: HS_SECRET,
    },
  });
  acme = (await h.pool.query("insert into teams (slug, name) values ('acme', 'Acme') returning id")).rows[0].id;
});
afterAll(async () => {
  await h?.close();
  await new Promise((r) => jwksServer?.close(r));
});

const nowS = () => Math.floor(h.clock.now() / 1000);

async function sign(
  alg: "RS256" | "ES256" | "HS256",
  claims: JWTPayload = {},
  opts: { key?: Key; kid?: string; iss?: string; aud?: string; exp?: number } = {},
): Promise<string> {
  const key = opts.key ?? (alg === "RS256" ? rsa.privateKey : alg === "ES256" ? ec.privateKey : new TextEncoder().encode(HS_SECRET));
  const kid = opts.kid ?? (alg === "RS256" ? "rsa-1" : alg === "ES256" ? "ec-1" : undefined);
  return new SignJWT({ svc_team: "acme", ...claims })
    .setProtectedHeader(kid ? { alg, kid } : { alg })
    .setIssuer(opts.iss ?? ISSUER)
    .setAudience(opts.aud ?? AUDIENCE)
    .setSubject("user-42")
    .setIssuedAt(nowS())
    .setExpirationTime(opts.exp ?? nowS() + 3600)
    .sign(key);
}

const me = (headers: Record<string, string>) => call(h.base, "GET", "/api/auth/me", { headers });

describe("accepted tokens", () => {
  test.each(["RS256", "ES256", "HS256"] as const)("%s token with a known team → the team's principal", async (alg) => {
    const reply = await me(bearer(await sign(alg)));
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ team_id: acme, via: "jwt", subject: "user-42", scope: "admin", mode: "jwt" });
  });

  test("the default team's slug is `default` (team 1); the token also works as the svc_session cookie", async () => {
    const token = await sign("RS256", { svc_team: "default" });
    expect((await me({ cookie: `svc_session=${token}` })).json).toMatchObject({ team_id: 1, via: "jwt" });
  });

  test("the key set is fetched once and cached", () => {
    expect(jwksRequests).toBe(1);
  });
});

describe("refused tokens", () => {
  const claimFailures: Array<{ name: string; make: () => Promise<string>; error: string }> = [
    { name: "wrong issuer", make: () => sign("RS256", {}, { iss: "https://evil.test/" }), error: "invalid token" },
    { name: "wrong audience", make: () => sign("ES256", {}, { aud: "another-api" }), error: "invalid token" },
    { name: "expired (beyond the 30 s leeway)", make: () => sign("RS256", {}, { exp: nowS() - 31 }), error: "token expired" },
    { name: "HS256 expired", make: () => sign("HS256", {}, { exp: nowS() - 3600 }), error: "token expired" },
    { name: "signed by a key the provider does not publish (same kid)", make: () => sign("RS256", {}, { key: stranger.privateKey }), error: "invalid token" },
    { name: "signed by an unknown kid", make: () => sign("RS256", {}, { key: stranger.privateKey, kid: "rsa-9" }), error: "invalid token" },
    { name: "HS256 with another secret", make: () => sign("HS256", {}, { key: new TextEncoder().encode("x".repeat(48)) }), error: "invalid token" },
    {
      name: "alg none",
      make: async () => {
        const payload = { iss: ISSUER, aud: AUDIENCE, sub: "user-42", svc_team: "acme", exp: nowS() + 3600 };
        return `${Buffer.from('{"alg":"none","typ":"JWT"}').toString("base64url")}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.`;
      },
      error: "token algorithm not accepted",
    },
    {
      name: "tampered payload (team swapped after signing)",
      make: async () => {
        const [header, payload, signature] = (await sign("RS256")).split(".");
        const claims = { ...JSON.parse(Buffer.from(payload!, "base64url").toString()), svc_team: "default" };
        return `${header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${signature}`;
      },
      error: "invalid token",
    },
    {
      name: "RS256 header on an HS256 signature made with the public key (algorithm confusion)",
      make: async () => {
        const pub = new TextEncoder().encode(JSON.stringify(await exportJWK(rsa.publicKey)));
        const [header, payload] = (await sign("RS256")).split(".");
        const { createHmac } = await import("node:crypto");
        return `${header}.${payload}.${createHmac("sha256", pub).update(`${header}.${payload}`).digest("base64url")}`;
      },
      error: "invalid token",
    },
    { name: "not a JWT", make: async () => "definitely-not-a-jwt", error: "malformed token" },
    { name: "an unsupported algorithm (PS256)", make: async () => {
      const ps = await generateKeyPair("PS256");
      return sign("PS256" as "RS256", {}, { key: ps.privateKey, kid: "rsa-1" });
    }, error: "token algorithm not accepted" },
  ];
  test.each(claimFailures)("401: $name", async ({ make, error }) => {
    const reply = await me(bearer(await make()));
    expect(reply.status).toBe(401);
    expect(reply.json).toEqual({ error });
  });

  const membership: Array<{ name: string; claims: JWTPayload; error: string }> = [
    { name: "no team claim", claims: { svc_team: undefined }, error: `no team membership: the token has no "svc_team" claim (this service is invite-only)` },
    { name: "empty team claim", claims: { svc_team: "" }, error: `no team membership: the token has no "svc_team" claim (this service is invite-only)` },
    { name: "team claim not a string", claims: { svc_team: 2 }, error: `no team membership: the token has no "svc_team" claim (this service is invite-only)` },
    { name: "unknown team", claims: { svc_team: "globex" }, error: "no team membership: the token's team does not exist here (this service is invite-only)" },
  ];
  test.each(membership)("403: $name", async ({ claims, error }) => {
    const reply = await me(bearer(await sign("ES256", claims)));
    expect(reply.status).toBe(403);
    expect(reply.json).toEqual({ error });
  });
});

describe("jwt mode routes", () => {
  test("login and logout answer 404 with a clear message", async () => {
    for (const path of ["/api/auth/login", "/api/auth/logout"]) {
      const reply = await call(h.base, "POST", path, { body: { email: "admin@localhost", password: "change-me-admin-password" } });
      expect(reply.status).toBe(404);
      expect(reply.json).toEqual({ error: "login and logout are handled by the identity provider when SVC_AUTH_MODE=jwt" });
    }
  });

  test("a JWT user manages the team's API keys; the keys work and are scoped to that team", async () => {
    const token = await sign("RS256");
    const key = await createApiKey(h.base, token, "acme script");
    expect((await me(bearer(key))).json).toMatchObject({ team_id: acme, via: "api_key" });
    const list = await call(h.base, "GET", "/api/keys", { headers: bearer(token) });
    expect(list.json.keys.map((k: { name: string }) => k.name)).toEqual(["acme script"]);
    const otherTeam = await call(h.base, "GET", "/api/keys", { headers: bearer(await sign("HS256", { svc_team: "default" })) });
    expect(otherTeam.json.keys).toEqual([]);
    expect((await call(h.base, "GET", "/api/keys", { headers: bearer(key) })).status).toBe(403);
  });
});

test("an unreachable key set is a 503, not a 401", async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  const down = await startHarness({
    env: { SVC_AUTH_MODE: "jwt", SVC_JWT_ISSUER: ISSUER, SVC_JWT_AUDIENCE: AUDIENCE, SVC_JWT_JWKS_URL: `http://127.0.0.1:${port}/jwks.json` },
  });
  try {
    const token = await new SignJWT({ svc_team: "default" }).setProtectedHeader({ alg: "RS256", kid: "rsa-1" }).setIssuer(ISSUER).setAudience(AUDIENCE)
      .setExpirationTime(Math.floor(down.clock.now() / 1000) + 60).sign(rsa.privateKey);
    const reply = await call(down.base, "GET", "/api/auth/me", { headers: bearer(token) });
    expect(reply.status).toBe(503);
    expect(reply.json).toEqual({ error: "identity provider keys unavailable; retry shortly" });
  } finally {
    await down.close();
  }
});
