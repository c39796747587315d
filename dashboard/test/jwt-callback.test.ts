// Hosted mode: the identity provider's token reaches /app/auth/callback (in the fragment, or as a form
// post), the gateway verifies it, and only then is it kept as the session cookie. Keys are generated here
// and served from a local JWKS, as the gateway's jwt tests do.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Stack, startStack } from "./support/stack.ts";

const ISSUER = "https://idp.test";
const AUDIENCE = "svc-dashboard";
let stack: Stack;
let jwks: Server;
let sign: (claims?: Record<string, unknown>) => Promise<string>;
let forge: () => Promise<string>;

beforeAll(async () => {
  const real = await generateKeyPair("ES256");
  const other = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(real.publicKey)), kid: "ec-1", alg: "ES256", use: "sig" };
  jwks = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
  stack = await startStack({
    env: { SVC_AUTH_MODE: "jwt", SVC_JWT_ISSUER: ISSUER, SVC_JWT_AUDIENCE: AUDIENCE, SVC_JWT_JWKS_URL: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json` },
  });
  await stack.gateway.pool.query("insert into teams (slug, name) values ('acme', 'Acme')");
  const now = () => Math.floor(Date.now() / 1000);
  const make = (key: CryptoKey, claims: Record<string, unknown>) =>
    new SignJWT({ svc_team: "acme", ...claims }).setProtectedHeader({ alg: "ES256", kid: "ec-1" }).setIssuer(ISSUER).setAudience(AUDIENCE).setSubject("user-42").setIssuedAt(now()).setExpirationTime(now() + 3600).sign(key);
  sign = (claims = {}) => make(real.privateKey, claims);
  forge = () => make(other.privateKey, {});
});
afterAll(async () => {
  await stack?.close();
  await new Promise((resolve) => jwks?.close(resolve));
});

it("a verified token from the fragment becomes the session cookie and opens the team's dashboard", async () => {
  const { page, context, errors } = await stack.open();
  await page.goto(`/app/auth/callback#id_token=${await sign()}`);
  await page.waitForURL((url) => url.pathname === "/app");
  await expect.poll(() => page.textContent("main")).toContain("No sites yet");
  expect(await page.textContent("header")).toContain("user-42");
  const [cookie] = await context.cookies();
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
  expect(cookie!.expires - Date.now() / 1000).toBeLessThanOrEqual(3600);
  expect(errors).toEqual([]);
  await context.close();
});

it("a forged token or one naming an unknown team is refused with the gateway's reason; nothing is stored", async () => {
  for (const [token, reason] of [
    [await forge(), "invalid token"],
    [await sign({ svc_team: "nobody" }), "team"],
  ] as const) {
    const { page, context } = await stack.open();
    await page.goto(`/app/auth/callback#token=${token}`);
    await page.waitForURL(/\/app\/login\?sso=/);
    expect(await page.getByRole("alert").textContent()).toMatch(new RegExp(`Sign-in failed: .*${reason}`));
    expect(await context.cookies()).toEqual([]);
    await context.close();
  }
});

it("the password form explains that this gateway signs in through the identity provider", async () => {
  const { page, context } = await stack.open();
  await page.goto("/app/login");
  await page.getByLabel("Email").fill("someone@example.com");
  await page.getByLabel("Password").fill("whatever-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect.poll(() => page.getByRole("status").textContent()).toContain("identity provider");
  await context.close();
});
