import { clientAddress } from "./client-address.ts";

/**
 * One server hit, the body of POST /api/hit (DESIGN "Decisions"); an array of up to 100 of these is one request.
 * `referrer` and `user_agent` are "" when the request carried none.
 */
export interface Hit {
  readonly domain: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly user_agent: string;
  readonly referrer: string;
  readonly ip: string;
}

/** What an adapter knows about one request once its response is done. */
export interface FinishedRequest {
  readonly method: string;
  /** Path with its query string (`/blog?x=1`), or an absolute URL; only the path (and query, with keepQuery) is sent. */
  readonly url: string;
  readonly status: number;
  readonly userAgent: string | null | undefined;
  readonly referrer: string | null | undefined;
  /** The address of the TCP peer (or what the runtime reports as the client, e.g. cf-connecting-ip). */
  readonly peerAddress: string | null | undefined;
  /** The raw X-Forwarded-For header; read only when trustProxy says so. */
  readonly forwardedFor: string | null | undefined;
}

// The gateway's hit schema caps URLs and referrers at 2,048 characters (core schema); a user agent above
// 1,024 characters is garbage or an attack, and capping it keeps one hit under ~5.2 KB so a batch always
// fits the 64 KB request limit with at least 12 hits.
export const MAX_PATH_CHARS = 2048;
export const MAX_REFERRER_CHARS = 2048;
export const MAX_USER_AGENT_CHARS = 1024;

/**
 * The path to report: the pathname of `url` (absolute or origin-relative), without the query string unless
 * `keepQuery`, never with a fragment.
 */
export function requestPath(url: string, keepQuery: boolean): string {
  let path = url;
  if (!path.startsWith("/")) {
    // Absolute URL ("https://host/a?b") or an absolute-form request target: keep from the first "/" after the authority.
    const scheme = path.indexOf("://");
    if (scheme !== -1) {
      const slash = path.indexOf("/", scheme + 3);
      path = slash === -1 ? "/" : path.slice(slash);
    } else if (path === "*" || path === "") {
      path = "/";
    } else {
      path = "/" + path;
    }
  }
  const hash = path.indexOf("#");
  if (hash !== -1) path = path.slice(0, hash);
  if (!keepQuery) {
    const query = path.indexOf("?");
    if (query !== -1) path = path.slice(0, query);
  }
  return path.length > MAX_PATH_CHARS ? path.slice(0, MAX_PATH_CHARS) : path;
}

function capped(value: string | null | undefined, max: number): string {
  if (value == null) return "";
  return value.length > max ? value.slice(0, max) : value;
}

export interface HitSettings {
  readonly domain: string;
  readonly keepQuery: boolean;
  readonly trustProxy: boolean | number;
}

/** The collector's rule for `method`: an HTTP token of at most 16 characters. */
const HTTP_METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,16}$/;

/**
 * The hit for a finished request, or undefined when the collector would refuse it: a method that is not an
 * HTTP token of ≤ 16 characters, or a status outside 100–599 (Node allows up to 999). One refused hit would
 * fail its whole batch, so such a request is not reported (the sender counts it as dropped).
 */
export function buildHit(settings: HitSettings, request: FinishedRequest): Hit | undefined {
  const method = request.method.toUpperCase();
  const status = request.status;
  if (!HTTP_METHOD.test(method) || !Number.isInteger(status) || status < 100 || status > 599) return undefined;
  return {
    domain: settings.domain,
    method,
    path: requestPath(request.url, settings.keepQuery),
    status,
    user_agent: capped(request.userAgent, MAX_USER_AGENT_CHARS),
    referrer: capped(request.referrer, MAX_REFERRER_CHARS),
    ip: clientAddress(request.peerAddress, request.forwardedFor, settings.trustProxy),
  };
}
