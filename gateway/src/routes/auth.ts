// Login, logout, who-am-I and API key management. Bodies are decoded with the operations' Schemas
// (api-schema/other-routes.ts) into the same `{path, message}` details as ingest; every failure is an ApiError
// (errors.ts maps it to a status).
import { LOGIN_IN_JWT_MODE } from "../auth/auth-config.ts";
import { cookieIsSecure, type CookiePolicy, sessionCookieName } from "../auth/credentials.ts";
import type { AuthService } from "../auth/index.ts";
import { AccountLockout, LoginLimiter } from "../auth/login-limiter.ts";
import { SESSION_LIFETIME_MS } from "../auth/session-tokens.ts";
import { ApiError } from "../errors.ts";
import type { HttpRequest } from "../http/transport.ts";
import { clientIp } from "../ingest/client-ip.ts";
import type { Logger } from "../log.ts";
import { jsonResponse } from "./json-response.ts";
import type { OperationRoutes } from "./operation-routes.ts";

export interface AuthRouteDeps {
  readonly auth: AuthService;
  /** NODE_ENV=production and SVC_TRUST_PROXY: which address the login limiter counts, whether the cookie is Secure. */
  readonly web: CookiePolicy;
  /** The injected clock's `now`, for the login limiter's window. */
  readonly now: () => number;
  readonly log: Logger;
}

function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${sessionCookieName(secure)}=${value}; HttpOnly; SameSite=Lax; Path=/; Max-Age=${maxAgeSeconds}${secure ? "; Secure" : ""}`;
}

export function authRoutes(routes: OperationRoutes, deps: AuthRouteDeps): void {
  const { auth, log } = deps;
  const limiter = new LoginLimiter(deps.now);
  const accounts = new AccountLockout(deps.now);
  const clearCookie = (req: HttpRequest) => sessionCookie("", 0, cookieIsSecure(req, deps.web));

  routes
    .on("POST /api/auth/login", async ({ req, body: decode }) => {
      if (auth.config.mode !== "admin") throw new ApiError("not_found", LOGIN_IN_JWT_MODE);
      const decision = limiter.attempt(clientIp(req.remoteAddress, req.headers["x-forwarded-for"], deps.web.trustProxy));
      if (!decision.ok) {
        log.warn("login rate limited");
        throw new ApiError("rate_limited", "too many login attempts; retry later", undefined, { "retry-after": String(decision.retryAfterSeconds) });
      }
      const body = decode();
      const account = accounts.check(body.email);
      if (!account.ok) {
        log.warn("login delayed: repeated failures for this account");
        throw new ApiError("rate_limited", "too many failed logins for this account; retry later", undefined, { "retry-after": String(account.retryAfterSeconds) });
      }
      let session;
      try {
        session = await auth.login(body.email, body.password);
      } catch (error) {
        if (error instanceof ApiError && error.reason === "unauthorized") {
          accounts.failed(body.email);
          log.warn("login failed");
        }
        throw error;
      }
      accounts.succeeded(body.email);
      log.info("login", { subject: auth.config.adminEmail });
      const maxAge = SESSION_LIFETIME_MS / 1000;
      return jsonResponse(200, { token: session.token, expires_at: session.expiresAt.toISOString() }, {
        "set-cookie": sessionCookie(session.token, maxAge, cookieIsSecure(req, deps.web)),
      });
    })
    // Ending the session is the credential check: a dead or missing one is answered with the cookie cleared.
    .authenticatesItself("POST /api/auth/logout", async ({ req }) => {
      try {
        await auth.logout(req);
      } catch (error) {
        // A dead or missing session still gets its cookie cleared, so the browser stops sending it.
        if (error instanceof ApiError && error.reason === "unauthorized") {
          throw new ApiError(error.reason, error.message, error.details, { ...error.headers, "set-cookie": clearCookie(req) });
        }
        throw error;
      }
      return { status: 204, headers: { "set-cookie": clearCookie(req), "cache-control": "no-store" } };
    })
    .on("GET /api/auth/me", ({ principal }) => jsonResponse(200, { team_id: principal.teamId, via: principal.via, subject: principal.subject, scope: principal.scope, mode: auth.config.mode }))
    .on("GET /api/keys", async ({ principal }) => jsonResponse(200, { keys: await auth.keys.list(principal.teamId) }))
    .on("POST /api/keys", async ({ principal, body: decode }) => {
      const body = decode();
      const created = await auth.keys.create(principal.teamId, body.name.trim(), body.scope ?? "read", principal.subject);
      log.info("api key created", { team: principal.teamId, key_id: created.id, scope: created.scope, by: principal.subject });
      return jsonResponse(201, created);
    })
    .on("DELETE /api/keys/{id}", async ({ principal, params }) => {
      const raw = params["id"]!;
      // 2^31 - 1: the largest value of the integer id column.
      if (!/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) {
        throw new ApiError("invalid_query", "invalid key id", [{ path: "id", message: "must be a positive integer" }]);
      }
      if (!(await auth.keys.revoke(principal.teamId, Number(raw)))) throw new ApiError("not_found", "unknown API key");
      log.info("api key revoked", { team: principal.teamId, key_id: Number(raw), by: principal.subject });
      return { status: 204, headers: { "cache-control": "no-store" } };
    });
}
