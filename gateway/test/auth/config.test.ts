// The auth part of loadConfig: each bad value or combination gets its own message, secrets are never echoed,
// and placeholders pass in development (flagged for the boot warning) but not in production.
import { describe, expect, test } from "vitest";
import { PLACEHOLDER_ADMIN_PASSWORD, PLACEHOLDER_JWT_SECRET } from "../../src/auth/auth-config.ts";
import { ConfigInvalid, loadConfig } from "../../src/config.ts";

const SECRET = "a-real-secret-of-at-least-32-characters!";
const JWT = { SVC_AUTH_MODE: "jwt", SVC_JWT_ISSUER: "https://idp.example/", SVC_JWT_AUDIENCE: "svc", SVC_JWT_JWKS_URL: "https://idp.example/.well-known/jwks.json" };

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigInvalid) return [...error.problems];
    throw error;
  }
}

describe("invalid auth configuration: one message per problem", () => {
  const cases: Array<{ name: string; env: Record<string, string>; problems: string[] }> = [
    { name: "unknown mode", env: { SVC_AUTH_MODE: "ldap" }, problems: [`SVC_AUTH_MODE="ldap" is invalid: expected "admin" or "jwt"`] },
    {
      name: "jwt mode with nothing else",
      env: { SVC_AUTH_MODE: "jwt" },
      problems: [
        "SVC_JWT_ISSUER is required when SVC_AUTH_MODE=jwt (the identity provider's `iss`)",
        "SVC_JWT_AUDIENCE is required when SVC_AUTH_MODE=jwt (the `aud` the identity provider issues for svc)",
        "SVC_AUTH_MODE=jwt needs a key source: SVC_JWT_JWKS_URL (RS256/ES256) or SVC_JWT_SECRET (HS256)",
      ],
    },
    {
      name: "jwt mode with an empty JWKS URL (empty = unset) and no secret",
      env: { ...JWT, SVC_JWT_JWKS_URL: "" },
      problems: ["SVC_AUTH_MODE=jwt needs a key source: SVC_JWT_JWKS_URL (RS256/ES256) or SVC_JWT_SECRET (HS256)"],
    },
    { name: "JWKS URL not http(s)", env: { ...JWT, SVC_JWT_JWKS_URL: "ftp://idp.example/jwks" }, problems: [`SVC_JWT_JWKS_URL="ftp://idp.example/jwks" is invalid: expected an http(s) URL of the identity provider's JWKS`] },
    { name: "blank issuer", env: { ...JWT, SVC_JWT_ISSUER: "  " }, problems: [`SVC_JWT_ISSUER="  " is invalid: expected a non-empty issuer`] },
    { name: "JWT secret too short (value hidden)", env: { SVC_JWT_SECRET: "short-secret" }, problems: ["SVC_JWT_SECRET=(hidden) is invalid: expected a secret of at least 32 characters"] },
    { name: "admin password too short (value hidden)", env: { SVC_ADMIN_PASSWORD: "hunter2" }, problems: ["SVC_ADMIN_PASSWORD=(hidden) is invalid: expected a password of at least 8 characters"] },
    { name: "admin e-mail without @", env: { SVC_ADMIN_EMAIL: "admin" }, problems: [`SVC_ADMIN_EMAIL="admin" is invalid: expected an e-mail address`] },
    { name: "team claim with a space", env: { ...JWT, SVC_JWT_TEAM_CLAIM: "my team" }, problems: [`SVC_JWT_TEAM_CLAIM="my team" is invalid: expected a claim name without spaces`] },
    {
      name: "placeholders in production",
      env: { NODE_ENV: "production" },
      problems: [
        "SVC_ADMIN_PASSWORD is still the shipped placeholder; set a real value (NODE_ENV=production refuses placeholders)",
        "SVC_JWT_SECRET is still the shipped placeholder; set a real value (NODE_ENV=production refuses placeholders)",
      ],
    },
    {
      name: "placeholder secret set explicitly in production",
      env: { NODE_ENV: "production", SVC_ADMIN_PASSWORD: "correct horse battery staple", SVC_JWT_SECRET: PLACEHOLDER_JWT_SECRET },
      problems: ["SVC_JWT_SECRET is still the shipped placeholder; set a real value (NODE_ENV=production refuses placeholders)"],
    },
    {
      name: "placeholder password set explicitly in production",
      env: { NODE_ENV: "production", SVC_ADMIN_PASSWORD: PLACEHOLDER_ADMIN_PASSWORD, SVC_JWT_SECRET: SECRET },
      problems: ["SVC_ADMIN_PASSWORD is still the shipped placeholder; set a real value (NODE_ENV=production refuses placeholders)"],
    },
    {
      name: "placeholder HS256 secret in jwt mode in production",
      env: { ...JWT, SVC_JWT_JWKS_URL: "", NODE_ENV: "production", SVC_JWT_SECRET: PLACEHOLDER_JWT_SECRET },
      problems: ["SVC_JWT_SECRET is still the shipped placeholder; set a real value (NODE_ENV=production refuses placeholders)"],
    },
    {
      name: "several bad values at once, each reported",
      env: { SVC_AUTH_MODE: "oauth", SVC_JWT_SECRET: "x", SVC_PORT: "99999" },
      problems: [
        `SVC_PORT="99999" is invalid: expected an integer port 0..65535`,
        `SVC_AUTH_MODE="oauth" is invalid: expected "admin" or "jwt"`,
        "SVC_JWT_SECRET=(hidden) is invalid: expected a secret of at least 32 characters",
      ],
    },
  ];
  test.each(cases)("$name", ({ env, problems }) => {
    expect(problemsOf(env)).toEqual(problems);
  });

  test("a rejected secret never appears in the message", () => {
    const secret = "leaky-value-123";
    let message = "";
    try {
      loadConfig({ SVC_JWT_SECRET: secret, SVC_ADMIN_PASSWORD: "abc" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("SVC_JWT_SECRET=(hidden)");
    expect(message).not.toContain(secret);
    expect(message).not.toContain('"abc"');
  });
});

describe("valid auth configuration", () => {
  const cases: Array<{ name: string; env: Record<string, string>; auth: Record<string, unknown> }> = [
    {
      name: "defaults: admin mode with both placeholders flagged",
      env: {},
      auth: { mode: "admin", adminEmail: "admin@localhost", adminPassword: PLACEHOLDER_ADMIN_PASSWORD, jwtSecret: PLACEHOLDER_JWT_SECRET, placeholders: ["SVC_ADMIN_PASSWORD", "SVC_JWT_SECRET"] },
    },
    {
      name: "production with real secrets; e-mail normalised",
      env: { NODE_ENV: "production", SVC_ADMIN_EMAIL: " Ops@Example.COM ", SVC_ADMIN_PASSWORD: "correct horse battery staple", SVC_JWT_SECRET: SECRET },
      auth: { mode: "admin", adminEmail: "ops@example.com", adminPassword: "correct horse battery staple", jwtSecret: SECRET, placeholders: [] },
    },
    {
      name: "jwt mode with a JWKS, default team claim",
      env: { ...JWT, NODE_ENV: "production" },
      auth: { mode: "jwt", issuer: "https://idp.example/", audience: "svc", jwksUrl: JWT.SVC_JWT_JWKS_URL, jwtSecret: null, teamClaim: "svc_team" },
    },
    {
      name: "jwt mode with HS256 only and a custom team claim",
      env: { ...JWT, SVC_JWT_JWKS_URL: "", SVC_JWT_SECRET: SECRET, SVC_JWT_TEAM_CLAIM: "https://svc.example/team" },
      auth: { mode: "jwt", issuer: "https://idp.example/", audience: "svc", jwksUrl: null, jwtSecret: SECRET, teamClaim: "https://svc.example/team" },
    },
  ];
  test.each(cases)("$name", ({ env, auth }) => {
    expect(loadConfig(env).auth).toEqual(auth);
  });
});
