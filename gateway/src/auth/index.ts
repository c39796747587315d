// Authentication for every non-public route. `createAuthenticator` builds the mode's verifiers; routes call
// `authenticate` (any credential) or `authenticateSession` (a person, not a script: key management, settings).
// See gateway/README.md "Authentication" for the modes, the token lifetime and the cookie.
import { createHash } from "node:crypto";
import type pg from "pg";
import type { Clock } from "@svc/core";
import { ApiError } from "../errors.ts";
import type { HttpRequest } from "../http/transport.ts";
import type { Logger } from "../log.ts";
import { adminCredentialsMatch } from "./admin-credentials.ts";
import { ApiKeys } from "./api-keys.ts";
import { type AuthConfig, LOGIN_IN_JWT_MODE } from "./auth-config.ts";
import { type CookiePolicy, readCredential } from "./credentials.ts";
import { checkCookieWrite, type CsrfPolicy } from "./csrf.ts";
import { ExternalJwtVerifier } from "./external-jwt.ts";
import { FailedCredentialLimit } from "./failed-credentials.ts";
import { clientIp } from "../ingest/client-ip.ts";
import type { Principal } from "./principal.ts";
import { ADMIN_TEAM_ID, type IssuedSession, SessionTokens } from "./session-tokens.ts";

export type { AuthConfig } from "./auth-config.ts";
export type { Principal, Scope } from "./principal.ts";
export { authRoutes, type AuthRouteDeps } from "../routes/auth.ts";
export { API_KEY_PREFIX, SECURE_SESSION_COOKIE, SESSION_COOKIE } from "./credentials.ts";
export { SESSION_LIFETIME_MS } from "./session-tokens.ts";

/** Both checks are closures without `this`, so routes may take them unbound (`authenticate: auth.authenticate`). */
export interface Authenticator {
  /** Any valid credential: session cookie `svc_session`, `Authorization: Bearer <session token>`, `Authorization: Bearer svc_live_…`, or (jwt mode) a JWT. Throws ApiError("unauthorized"). */
  authenticate(req: HttpRequest): Promise<Principal>;
  /** Like authenticate but a `read` API key is refused with 403: sites and goals (writes) need an admin key or a person. */
  authenticateAdmin(req: HttpRequest): Promise<Principal>;
  /** Like authenticate but API keys are refused with 403 (key management and settings need a session). */
  authenticateSession(req: HttpRequest): Promise<Principal>;
  /** A digest naming the request's credential (the same token, key or JWT gives the same value); null without one. */
  credentialId(req: HttpRequest): string | null;
}

/** What the auth routes need beyond the two checks. */
export interface AuthService extends Authenticator {
  readonly config: AuthConfig;
  readonly keys: ApiKeys;
  /** Admin mode: a session for the operator's credentials; throws 401 (same message for a wrong e-mail or password). */
  login(email: string, password: string): Promise<IssuedSession>;
  /** Admin mode: ends the request's session (401 without one, 403 for an API key). */
  logout(req: HttpRequest): Promise<void>;
}

export interface AuthenticatorDeps {
  readonly pool: pg.Pool;
  readonly config: AuthConfig;
  readonly clock: Clock;
  readonly log: Logger;
  /** Cookie naming (Secure, `__Host-`) and the CSRF check of cookie-authenticated writes. */
  readonly web: CookiePolicy & CsrfPolicy;
  /** Failed credential checks one client may have a minute before 429; 0 = unlimited (failed-credentials.ts). */
  readonly failedCredentialsPerMinute: number;
}

const MISSING = "missing credentials: send the svc_session cookie or Authorization: Bearer <session token or API key>";

export async function createAuthenticator(deps: AuthenticatorDeps): Promise<AuthService> {
  const { pool, config, clock, log, web } = deps;
  // Fails the boot early when migration 005 (teams, sessions, keys) is missing.
  const team = await pool.query("select 1 from teams where id = $1", [ADMIN_TEAM_ID]);
  if (team.rows.length === 0) log.warn("team 1 (the default team) is missing from `teams`; admin sessions still use team 1");

  const keys = new ApiKeys(pool, clock, log);
  const sessions = config.mode === "admin" ? new SessionTokens(pool, config.jwtSecret, clock) : null;
  const external = config.mode === "jwt" ? new ExternalJwtVerifier(config, pool, clock, log) : null;

  if (config.mode === "admin") {
    const risk = { SVC_ADMIN_PASSWORD: "anyone can sign in with it", SVC_JWT_SECRET: "anyone can forge session tokens with it" } as const;
    for (const name of config.placeholders) {
      log.warn(`!!! ${name} is the shipped placeholder: ${risk[name]}. Set it before exposing this gateway (NODE_ENV=production refuses to boot with it).`, { variable: name });
    }
    log.info("authentication: admin mode", { admin: config.adminEmail });
  } else {
    log.info("authentication: jwt mode", { issuer: config.issuer, audience: config.audience, jwks: config.jwksUrl !== null, hs256: config.jwtSecret !== null, team_claim: config.teamClaim });
  }

  const failures = new FailedCredentialLimit(clock.now, deps.failedCredentialsPerMinute);

  const authenticate = async (req: HttpRequest): Promise<Principal> => {
    const credential = readCredential(req, web);
    if (credential === null) throw new ApiError("unauthorized", MISSING);
    if (credential.from === "cookie") checkCookieWrite(req, web);
    return failures.guard(clientIp(req.remoteAddress, req.headers["x-forwarded-for"], web.trustProxy), async () => {
      if (credential.kind === "api_key") {
        const principal = await keys.verify(credential.value);
        if (!principal) throw new ApiError("unauthorized", "invalid or revoked API key");
        return principal;
      }
      if (sessions) {
        const principal = await sessions.verify(credential.value);
        if (!principal) throw new ApiError("unauthorized", "invalid, expired or logged-out session");
        return principal;
      }
      return external!.verify(credential.value);
    });
  };

  const authenticateAdmin = async (req: HttpRequest): Promise<Principal> => {
    const principal = await authenticate(req);
    if (principal.scope !== "admin") throw new ApiError("forbidden", "this API key is read-only: changing sites, goals or settings needs a key created with scope admin");
    return principal;
  };

  const authenticateSession = async (req: HttpRequest): Promise<Principal> => {
    const principal = await authenticate(req);
    if (principal.via === "api_key") throw new ApiError("forbidden", "API keys cannot manage keys or settings: sign in for a session");
    return principal;
  };

  return {
    config,
    keys,
    authenticate,
    authenticateAdmin,
    authenticateSession,
    credentialId(req) {
      const credential = readCredential(req, web);
      return credential === null ? null : createHash("sha256").update(credential.value).digest("base64url");
    },
    async login(email, password) {
      if (config.mode !== "admin" || !sessions) throw new ApiError("not_found", LOGIN_IN_JWT_MODE);
      if (!adminCredentialsMatch(config, email, password)) throw new ApiError("unauthorized", "wrong e-mail or password");
      return sessions.issue(config.adminEmail, ADMIN_TEAM_ID);
    },
    async logout(req) {
      if (!sessions) throw new ApiError("not_found", LOGIN_IN_JWT_MODE);
      const credential = readCredential(req, web);
      if (credential === null) throw new ApiError("unauthorized", MISSING);
      if (credential.from === "cookie") checkCookieWrite(req, web);
      if (credential.kind === "api_key") throw new ApiError("forbidden", "an API key has no session to end; revoke it with DELETE /api/keys/{id}");
      if (!(await sessions.revoke(credential.value))) throw new ApiError("unauthorized", "invalid, expired or logged-out session");
    },
  };
}
