/** Options of the hit sender; every adapter takes these (or an existing sender). */
export interface SvcOptions {
  /** Full URL of the collector's POST /api/hit, e.g. "https://svc.example.com/api/hit". */
  readonly endpoint: string;
  /** The site's registered domain, e.g. "example.com". */
  readonly domain: string;
  /** The site's hit token `svc_hit_…`, when the operator set one: sent as `Authorization: Bearer …`. */
  readonly token?: string;
  /** Also send requests from plain browsers (they are counted by the script already). Default false. */
  readonly humans?: boolean;
  /** Where the client address comes from: false = the peer (default), true = leftmost X-Forwarded-For, n = n-th from the right. */
  readonly trustProxy?: boolean | number;
  /** Timeout of one POST to the collector, in ms. Default 5000. */
  readonly timeoutMs?: number;
  /** Keep the query string in `path`. Default false (query strings often carry tokens and personal data). */
  readonly keepQuery?: boolean;
  /** Called (guarded: whatever it throws is swallowed) when a batch could not be delivered. */
  readonly onError?: (error: Error) => void;
  /** Hits waiting to be sent; a hit arriving at a full queue is dropped and counted. Default 1000. */
  readonly maxQueue?: number;
  /** Hits per POST, 1..100 (the collector accepts arrays of up to 100). Default 100. */
  readonly batchSize?: number;
  /** A partial batch is sent this long after its first hit arrived, in ms. Default 1000. */
  readonly flushIntervalMs?: number;
  /** Flush pending hits when the process is about to exit (beforeExit, SIGTERM, SIGINT) on Node. Default true. */
  readonly flushOnExit?: boolean;
}

export interface ResolvedOptions {
  readonly endpoint: string;
  readonly domain: string;
  readonly token: string | undefined;
  readonly humans: boolean;
  readonly trustProxy: boolean | number;
  readonly timeoutMs: number;
  readonly keepQuery: boolean;
  readonly onError: ((error: Error) => void) | undefined;
  readonly maxQueue: number;
  readonly batchSize: number;
  readonly flushIntervalMs: number;
  readonly flushOnExit: boolean;
}

/** A configuration mistake, thrown once at construction (never while serving requests). */
export class SvcOptionsError extends Error {
  override readonly name = "SvcOptionsError";
}

/** The collector accepts arrays of at most 100 hits (DESIGN "Decisions"). */
export const MAX_BATCH_SIZE = 100;

function fail(message: string): never {
  throw new SvcOptionsError(`svc: ${message}`);
}

function integerIn(name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    fail(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}

function booleanOr(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") fail(`${name} must be true or false, got ${JSON.stringify(value)}`);
  return value;
}

export function resolveOptions(options: SvcOptions): ResolvedOptions {
  if (options === null || typeof options !== "object") fail("options must be an object with endpoint and domain");
  const { endpoint, domain } = options;
  if (typeof endpoint !== "string" || endpoint.length === 0) {
    fail('endpoint is required: the full URL of /api/hit, e.g. "https://svc.example.com/api/hit"');
  }
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    fail(`endpoint must be an absolute http(s) URL, got ${JSON.stringify(endpoint)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    fail(`endpoint must use http or https, got ${JSON.stringify(url.protocol)}`);
  }
  if (typeof domain !== "string" || domain.trim().length === 0) {
    fail('domain is required: the domain the site is registered under, e.g. "example.com"');
  }
  if (/[\s/]/.test(domain.trim()) || domain.trim().length > 253) {
    fail(`domain must be a bare host name like "example.com" (at most 253 characters), got ${JSON.stringify(domain)}`);
  }
  const trustProxy = options.trustProxy ?? false;
  if (typeof trustProxy !== "boolean" && !(typeof trustProxy === "number" && Number.isInteger(trustProxy) && trustProxy >= 0)) {
    fail(`trustProxy must be true, false or a number of proxies (an integer >= 0), got ${JSON.stringify(trustProxy)}`);
  }
  if (options.onError !== undefined && typeof options.onError !== "function") fail("onError must be a function");
  // The shape the gateway issues (svc_hit_ + 43 url-safe characters); the secret itself is never echoed back.
  if (options.token !== undefined && (typeof options.token !== "string" || !/^svc_hit_[A-Za-z0-9_-]{43}$/.test(options.token))) {
    fail("token must be the site's hit token as printed by the gateway: svc_hit_ followed by 43 characters");
  }
  const batchSize = integerIn("batchSize", options.batchSize, MAX_BATCH_SIZE, 1, MAX_BATCH_SIZE);
  return {
    endpoint: url.href,
    domain: domain.trim(),
    token: options.token,
    humans: booleanOr("humans", options.humans, false),
    trustProxy,
    // 5 s: a healthy collector answers in milliseconds; longer only holds a dead connection while hits pile up.
    timeoutMs: integerIn("timeoutMs", options.timeoutMs, 5000, 1, 120_000),
    keepQuery: booleanOr("keepQuery", options.keepQuery, false),
    onError: options.onError,
    // 1000 hits = 10 full batches, ~0.3 MB typically (≤ ~10 MB with every field at its cap): enough to ride out
    // a collector restart of a few seconds at 100+ crawler hits/s, with memory bounded.
    maxQueue: integerIn("maxQueue", options.maxQueue, 1000, 1, 1_000_000),
    batchSize,
    flushIntervalMs: integerIn("flushIntervalMs", options.flushIntervalMs, 1000, 1, 3_600_000),
    flushOnExit: booleanOr("flushOnExit", options.flushOnExit, true),
  };
}
