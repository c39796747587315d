// Login, logout, who-am-I and API key management. Bodies are decoded with effect/Schema into the same
// `{path, message}` details as ingest; every failure is an ApiError (errors.ts maps it to a status).
import { fieldErrors } from "@svc/core";
import { Result, Schema } from "effect";
import { LOGIN_IN_JWT_MODE } from "../auth/auth-config.ts";
import { cookieIsSecure, type CookiePolicy, sessionCookieName } from "../auth/credentials.ts";
import type { AuthService } from "../auth/index.ts";
import { AccountLockout, LoginLimiter } from "../auth/login-limiter.ts";
import { SCOPES } from "../auth/principal.ts";
import { SESSION_LIFETIME_MS } from "../auth/session-tokens.ts";
import { isStorableName } from "../api-schema/common.ts";
import { ApiError } from "../errors.ts";
import type { Router } from "../http/router.ts";
import type { HttpRequest } from "../http/transport.ts";
import { clientIp } from "../ingest/client-ip.ts";
import { parseJson } from "../ingest/pipeline.ts";
import type { Logger } from "../log.ts";
import { jsonResponse } from "./json-response.ts";

export interface AuthRouteDeps {
  readonly auth: AuthService;
  /** NODE_ENV=production and SVC_TRUST_PROXY: which address the login limiter counts, whether the cookie is Secure. */
  readonly web: CookiePolicy;
  /** The injected clock's `now`, for the login limiter's window. */
  readonly now: () => number;
  readonly log: Logger;
}

const text = (what: string, max: number) =>
  Schema.String.annotate({ message: `must be ${what}` }).check(Schema.isMaxLength(max, { message: `must be at most ${max} characters` }));

// 320: the longest valid e-mail address (RFC 3696 errata); 1,024 bounds the password digest input without limiting real passwords.
const LoginBody = Schema.Struct({ email: text("an e-mail address", 320), password: text("a string", 1024) }).annotate({ message: "must be a JSON object" });
const KeyBody = Schema.Struct({
  name: text("a key name", 100).check(Schema.makeFilter((s: string) => s.trim() !== "", { message: "must not be blank" }), isStorableName),
  scope: Schema.optionalKey(Schema.Literals(SCOPES).annotate({ message: `must be ${SCOPES.join(" or ")}` })),
}).annotate({ message: "must be a JSON object" });

function bodyDecoder<S extends Schema.ConstraintDecoder<unknown>>(schema: S): (req: HttpRequest) => S["Type"] {
  const decode = Schema.decodeUnknownResult(schema, { errors: "all" });
  return (req) => {
    const result = decode(parseJson(req.body));
    if (Result.isFailure(result)) throw new ApiError("invalid_body", "invalid body", fieldErrors(result.failure.issue));
    return result.success;
  };
}
const decodeLogin = bodyDecoder(LoginBody);
const decodeKey = bodyDecoder(KeyBody);


function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${sessionCookieName(secure)}=${value}; HttpOnly; SameSite=Lax; Path=/; Max-Age=${maxAgeSeconds}${secure ? "; Secure" : ""}`;
}

export function authRoutes(router: Router, deps: AuthRouteDeps): void {
  const { auth, log } = deps;
  const limiter = new LoginLimiter(deps.now);
  const accounts = new AccountLockout(deps.now);
  const clearCookie = (req: HttpRequest) => sessionCookie("", 0, cookieIsSecure(req, deps.web));

  router
    .on("POST", "/api/auth/login", async (req) => {
      if (auth.config.mode !== "admin") throw new ApiError("not_found", LOGIN_IN_JWT_MODE);
      const decision = limiter.attempt(clientIp(req.remoteAddress, req.headers["x-forwarded-for"], deps.web.trustProxy));
      if (!decision.ok) {
        log.warn("login rate limited");
        throw new ApiError("rate_limited", "too many login attempts; retry later", undefined, { "retry-after": String(decision.retryAfterSeconds) });
      }
      const body = decodeLogin(req);
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
    .on("POST", "/api/auth/logout", async (req) => {
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
    .on("GET", "/api/auth/me", async (req) => {
      const principal = await auth.authenticate(req);
      return jsonResponse(200, { team_id: principal.teamId, via: principal.via, subject: principal.subject, scope: principal.scope, mode: auth.config.mode });
    })
    .on("GET", "/api/keys", async (req) => {
      const principal = await auth.authenticateSession(req);
      return jsonResponse(200, { keys: await auth.keys.list(principal.teamId) });
    })
    .on("POST", "/api/keys", async (req) => {
      const principal = await auth.authenticateSession(req);
      const body = decodeKey(req);
      const created = await auth.keys.create(principal.teamId, body.name.trim(), body.scope ?? "read", principal.subject);
      log.info("api key created", { team: principal.teamId, key_id: created.id, scope: created.scope, by: principal.subject });
      return jsonResponse(201, created);
    })
    .on("DELETE", "/api/keys/:id", async (req, params) => {
      const principal = await auth.authenticateSession(req);
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
