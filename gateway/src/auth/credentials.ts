// Where a request carries its credential: `Authorization: Bearer …` (an API key or a token) or, without that
// header, the session cookie the login route sets. An Authorization header always wins, so a request
// with a bad header is refused even when it also carries a good cookie.
//
// The cookie is `svc_session` over plain http, and `__Host-svc_session` (Secure, Path=/, no Domain) whenever
// it is Secure: in production and over https. Browsers refuse a `__Host-` cookie set by a sibling subdomain
// or over http, so in that context only the `__Host-` name is read: a tossed `svc_session` is ignored.
import { ApiError } from "../errors.ts";
import type { HttpRequest } from "../http/transport.ts";
import { forwardedValue, type TrustProxy } from "../ingest/client-ip.ts";

export const SESSION_COOKIE = "svc_session";
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;
export const API_KEY_PREFIX = "svc_live_";

export type Credential =
  | { readonly kind: "api_key"; readonly value: string; readonly from: "header" }
  | { readonly kind: "token"; readonly value: string; readonly from: "header" | "cookie" };

/** How the session cookie is named and flagged for this request. */
export interface CookiePolicy {
  readonly production: boolean;
  readonly trustProxy: TrustProxy;
}

/** Secure whenever NODE_ENV=production or the request came over https (as a trusted proxy says). */
export const cookieIsSecure = (req: HttpRequest, policy: CookiePolicy): boolean => policy.production || requestIsHttps(req, policy.trustProxy);
export const sessionCookieName = (secure: boolean): string => (secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE);

/** Null when the request carries no credential at all; throws 401 for a header that is not `Bearer <token>`. */
export function readCredential(req: HttpRequest, policy: CookiePolicy): Credential | null {
  const header = req.headers["authorization"];
  if (header !== undefined) {
    const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
    if (!match) throw new ApiError("unauthorized", "the Authorization header must be `Bearer <session token or API key>`");
    const value = match[1]!;
    return value.startsWith(API_KEY_PREFIX) ? { kind: "api_key", value, from: "header" } : { kind: "token", value, from: "header" };
  }
  const cookie = cookieValue(req.headers["cookie"], sessionCookieName(cookieIsSecure(req, policy)));
  // A key is never a cookie (the login route sets only session tokens): one in a cookie is just an invalid token.
  return cookie === null || cookie === "" ? null : { kind: "token", value: cookie, from: "cookie" };
}

/** The value of one cookie in a `Cookie` header (RFC 6265 §5.4: `name=value` pairs separated by `; `). */
export function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=");
    if (eq < 0) continue;
    if (pair.slice(0, eq).trim() !== name) continue;
    let value = pair.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    return value;
  }
  return null;
}

/**
 * Whether the client reached us over https. The gateway itself speaks plain HTTP, so this is only known from a
 * trusted reverse proxy's `X-Forwarded-Proto` (see ingest/client-ip.ts); from anyone else the header is ignored
 * (a client could set it).
 */
export function requestIsHttps(req: HttpRequest, trustProxy: TrustProxy): boolean {
  return forwardedValue(req.remoteAddress, req.headers["x-forwarded-proto"], trustProxy)?.toLowerCase() === "https";
}
