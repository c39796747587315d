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

const IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

/** An IPv4 or IPv6 address as the collector accepts it (Node's `net.isIP`, without needing node:net on the edge). */
export function isIpAddress(address: string): boolean {
  if (IPV4.test(address)) return true;
  if (address.indexOf(":") === -1) return false;
  let groups = address.split(":");
  const last = groups[groups.length - 1]!;
  let slots = 8;
  if (last.indexOf(".") !== -1) {
    // An embedded IPv4 tail ("::ffff:192.0.2.1") takes two of the eight groups.
    if (!IPV4.test(last)) return false;
    groups = groups.slice(0, -1);
    groups.push("0");
    slots = 7;
  }
  const double = address.indexOf("::");
  if (double !== address.lastIndexOf("::")) return false;
  if (double === -1) return groups.length === slots && groups.every((g) => HEX_GROUP.test(g));
  const [head, tail] = groups.join(":").split("::") as [string, string];
  const parts = [...(head === "" ? [] : head.split(":")), ...(tail === "" ? [] : tail.split(":"))];
  return parts.length < slots && parts.every((g) => HEX_GROUP.test(g));
}

/** Drops the IPv4-mapped IPv6 prefix Node reports on dual-stack sockets ("::ffff:127.0.0.1" → "127.0.0.1"). */
export function normalizeAddress(address: string): string {
  let a = address.trim();
  if (a.startsWith("[")) {
    // "[2001:db8::1]:443" as some proxies write it.
    const end = a.indexOf("]");
    if (end !== -1) a = a.slice(1, end);
  } else if (a.indexOf(":") !== -1 && a.indexOf(":") === a.lastIndexOf(":") && a.indexOf(".") !== -1) {
    // "203.0.113.7:51234": an IPv4 address with a port.
    a = a.slice(0, a.indexOf(":"));
  }
  // A zone index ("fe80::1%eth0") names a local interface: meaningless to the collector.
  const zone = a.indexOf("%");
  if (zone !== -1) a = a.slice(0, zone);
  if (a.length > 7 && a.slice(0, 7).toLowerCase() === "::ffff:" && a.indexOf(".") !== -1) a = a.slice(7);
  return a;
}

/**
 * Sent when no valid client address is known (no socket address, no usable header): the unspecified address.
 * The collector rejects a batch with an invalid `ip` as a whole, and a crawler hit is worth counting even
 * without one; the collector finds no country for it, and such hits share one daily visitor hash per user agent.
 */
export const UNKNOWN_ADDRESS = "0.0.0.0";

/**
 * Which address is the client:
 * - `false`: the peer address (the socket, or the runtime's client address).
 * - `true`: the leftmost X-Forwarded-For entry (whatever the first proxy saw; spoofable unless your proxy overwrites it).
 * - `n` (a number of trusted proxies in front of the app): the n-th X-Forwarded-For entry from the right, as Express's
 *   `trust proxy = n`; with fewer entries than n, the leftmost one.
 * Without a usable X-Forwarded-For entry it is the peer address; without a valid peer address, UNKNOWN_ADDRESS.
 */
export function clientAddress(
  peerAddress: string | null | undefined,
  forwardedFor: string | null | undefined,
  trustProxy: boolean | number,
): string {
  if (trustProxy !== false && trustProxy !== 0 && forwardedFor) {
    const entries = forwardedFor.split(",").map((s) => s.trim()).filter((s) => s.length > 0);
    if (entries.length > 0) {
      const pick = normalizeAddress(trustProxy === true ? entries[0]! : entries[Math.max(0, entries.length - trustProxy)]!);
      // Some proxies write "unknown" or an obfuscated token (RFC 7239): then the peer is the best we know.
      if (isIpAddress(pick)) return pick;
    }
  }
  const peer = peerAddress ? normalizeAddress(peerAddress) : "";
  return isIpAddress(peer) ? peer : UNKNOWN_ADDRESS;
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
