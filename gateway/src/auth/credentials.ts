// Where a request carries its credential: `Authorization: Bearer …` (an API key or a token) or, without that
// header, the `svc_session` cookie the login route sets. An Authorization header always wins, so a request
// with a bad header is refused even when it also carries a good cookie.
import { ApiError } from "../errors.ts";
import type { HttpRequest } from "../http/transport.ts";

export const SESSION_COOKIE = "svc_session";
export const API_KEY_PREFIX = "svc_live_";

export type Credential =
  | { readonly kind: "api_key"; readonly value: string }
  | { readonly kind: "token"; readonly value: string };

/** Null when the request carries no credential at all; throws 401 for a header that is not `Bearer <token>`. */
export function readCredential(req: HttpRequest): Credential | null {
  const header = req.headers["authorization"];
  if (header !== undefined) {
    const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
    if (!match) throw new ApiError("unauthorized", "the Authorization header must be `Bearer <session token or API key>`");
    return classify(match[1]!);
  }
  const cookie = cookieValue(req.headers["cookie"], SESSION_COOKIE);
  return cookie === null || cookie === "" ? null : classify(cookie);
}

function classify(value: string): Credential {
  return value.startsWith(API_KEY_PREFIX) ? { kind: "api_key", value } : { kind: "token", value };
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
 * trusted reverse proxy: with SVC_TRUST_PROXY=N > 0 the `X-Forwarded-Proto` entry written by the outermost of
 * the N trusted proxies decides; with 0 the header is ignored (a client could set it).
 */
export function requestIsHttps(req: HttpRequest, trustProxy: number): boolean {
  if (trustProxy <= 0) return false;
  const header = req.headers["x-forwarded-proto"];
  if (!header) return false;
  const chain = header.split(",").map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (chain.length === 0) return false;
  return chain[Math.max(0, chain.length - trustProxy)] === "https";
}
