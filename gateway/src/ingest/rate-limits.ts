// Abuse limits on the unauthenticated ingest routes: token buckets per client (/api/event) and per site
// (/api/hit), answered 429 with Retry-After. Both are sized so a real site never meets them:
//
// - /api/event, 10 requests/s per client sustained, bursts of 300 (30 s worth). One visitor sends a pageview
//   per page and a few events, under 1 a second even when clicking fast; the headroom is for many people behind
//   one address (an office NAT, a carrier-grade NAT of a mobile network: a few hundred browsing at once).
//   IPv6 clients are counted per /64, the block one subscriber usually gets.
// - /api/hit, 1,000 hits/s per site sustained, bursts of 30,000: 86 million server hits a day, beyond all but
//   the largest sites (the middleware sends about one request of ≤ 100 hits a second per host process). The
//   hits are counted after the site's hit token (if any) was checked, so a stranger cannot use up the budget.
//
// Memory is bounded: at most 100,000 buckets per limiter (about 15 MB at ~150 B each); past that the least
// recently seen bucket is forgotten, which only ever makes a limit more lenient for that key. Client addresses
// are kept only as SipHash-2-4 under a key made at boot (siphash.ts: why not HMAC, as the login limiter uses).
import { ApiError } from "../errors.ts";
import { limiterKey } from "./client-ip.ts";
import { randomSipKey, sipHash24 } from "./siphash.ts";

export const DEFAULT_EVENT_RATE_PER_CLIENT = 10;
export const DEFAULT_HIT_RATE_PER_SITE = 1_000;
/** A bucket holds this many seconds of its sustained rate: a burst a page load or a deploy can cause. */
export const BURST_SECONDS = 30;
export const MAX_BUCKETS = 100_000;

interface Bucket {
  tokens: number;
  at: number;
}

export class TokenBuckets<Key extends string | number = string> {
  /** Map order = least recently used first. */
  private readonly buckets = new Map<Key, Bucket>();
  private readonly capacity: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly now: () => number,
    private readonly maxBuckets = MAX_BUCKETS,
  ) {
    this.capacity = ratePerSecond * BURST_SECONDS;
  }

  get size(): number {
    return this.buckets.size;
  }

  /** Takes `n` tokens, or says how many whole seconds until they are there. */
  take(key: Key, n = 1): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const now = this.now();
    const found = this.buckets.get(key);
    const bucket = found ?? { tokens: this.capacity, at: now };
    if (found) {
      bucket.tokens = Math.min(this.capacity, bucket.tokens + ((now - bucket.at) / 1000) * this.ratePerSecond);
      bucket.at = now;
      this.buckets.delete(key);
    } else if (this.buckets.size >= this.maxBuckets) {
      this.buckets.delete(this.buckets.keys().next().value as Key);
    }
    this.buckets.set(key, bucket);
    if (bucket.tokens >= n) {
      bucket.tokens -= n;
      return { ok: true };
    }
    const missing = Math.min(n, this.capacity) - bucket.tokens;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(missing / this.ratePerSecond)) };
  }
}

export interface IngestLimits {
  /** Throws 429 when this client (an address, or null when unknown) sent too many events. */
  event(clientAddress: string | null): void;
  /** Throws 429 when this site received too many hits. */
  hits(siteId: number, count: number): void;
  readonly stats: () => { event_clients: number; hit_sites: number };
}

export function createIngestLimits(options: { eventRatePerClient: number; hitRatePerSite: number; now: () => number }): IngestLimits {
  const events = options.eventRatePerClient > 0 ? new TokenBuckets<number>(options.eventRatePerClient, options.now) : null;
  const hits = options.hitRatePerSite > 0 ? new TokenBuckets<number>(options.hitRatePerSite, options.now) : null;
  const secret = randomSipKey();
  const refuse = (what: string, retryAfterSeconds: number): never => {
    throw new ApiError("rate_limited", `too many ${what}; retry later`, undefined, { "retry-after": String(retryAfterSeconds) });
  };
  return {
    event(clientAddress) {
      if (!events) return;
      const decision = events.take(sipHash24(secret, limiterKey(clientAddress)));
      if (!decision.ok) refuse("events from this client", decision.retryAfterSeconds);
    },
    hits(siteId, count) {
      if (!hits) return;
      const decision = hits.take(siteId, count);
      if (!decision.ok) refuse("hits for this site", decision.retryAfterSeconds);
    },
    stats: () => ({ event_clients: events?.size ?? 0, hit_sites: hits?.size ?? 0 }),
  };
}
