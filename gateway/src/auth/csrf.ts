// CSRF beyond SameSite=Lax, for requests authenticated by the session cookie (a bearer header is never sent by
// a browser on its own, so bearer requests skip this). A state-changing cookie request must
// 1. be `application/json` (an HTML form can only send urlencoded, multipart or text/plain; JSON from another
//    origin needs a CORS preflight, which the gateway never grants outside /api/event). A request without a
//    body may omit the content type: forms always send one.
// 2. come from our own origin: `Sec-Fetch-Site: same-origin` or `none` (typed by the user), or an `Origin`
//    equal to the request's own origin (its Host, or X-Forwarded-Host and -Proto from a trusted proxy) or
//    listed in SVC_ALLOWED_ORIGINS. A request carrying neither header (curl, server-side clients, the
//    dashboard's proxy when the browser sent none) passes: browsers send Origin on every cross-origin POST.
import { ApiError } from "../errors.ts";
import type { HttpRequest } from "../http/transport.ts";
import { forwardedValue, type TrustProxy } from "../ingest/client-ip.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export interface CsrfPolicy {
  readonly trustProxy: TrustProxy;
  /** Lower-case `scheme://host[:port]` values. */
  readonly allowedOrigins: readonly string[];
}

/** Throws 415 or 403 for a cookie-authenticated write that may have been forged by another site. */
export function checkCookieWrite(req: HttpRequest, policy: CsrfPolicy): void {
  if (SAFE_METHODS.has(req.method)) return;
  const type = req.headers["content-type"];
  const hasBody = req.body !== null && req.body.length > 0;
  if ((type !== undefined || hasBody) && !/^application\/json\s*(;|$)/i.test(type ?? "")) {
    throw new ApiError("unsupported_media_type", "a cookie-authenticated write must be sent as application/json");
  }
  const site = req.headers["sec-fetch-site"]?.toLowerCase();
  if (site === "same-origin" || site === "none") return;
  const origin = req.headers["origin"];
  if (origin === undefined) {
    if (site === undefined) return;
    throw new ApiError("forbidden", `cross-site request refused (Sec-Fetch-Site: ${site})`);
  }
  const claimed = origin.toLowerCase();
  if (claimed === ownOrigin(req, policy.trustProxy) || policy.allowedOrigins.includes(claimed)) return;
  throw new ApiError("forbidden", "cross-origin request refused: add the origin to SVC_ALLOWED_ORIGINS if it is yours");
}

/** `scheme://host` the client used to reach us, as far as we can tell. */
function ownOrigin(req: HttpRequest, trust: TrustProxy): string | null {
  const host = forwardedValue(req.remoteAddress, req.headers["x-forwarded-host"], trust) ?? req.headers["host"];
  if (!host) return null;
  const proto = forwardedValue(req.remoteAddress, req.headers["x-forwarded-proto"], trust)?.toLowerCase() === "https" ? "https" : "http";
  try {
    return new URL(`${proto}://${host}`).origin.toLowerCase();
  } catch {
    return null;
  }
}
