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
// Memory is bounded: at most 100,000 buckets per limiter (about 15 MB at ~150 B each); past that a bucket not
// used lately is forgotten (`TokenBuckets.evict`), which only ever makes a limit more lenient for that key.
// Client addresses are kept only as SipHash-2-4 under a key made at boot (siphash.ts says why not HMAC, which
// the login limiter, off the hot path, still uses).
import { ApiError } from "../errors.ts";
import { limiterKey } from "./client-ip.ts";
import { addressId } from "./siphash.ts";

export const DEFAULT_EVENT_RATE_PER_CLIENT = 10;
export const DEFAULT_HIT_RATE_PER_SITE = 1_000;
/** A bucket holds this many seconds of its sustained rate: a burst a page load or a deploy can cause. */
export const BURST_SECONDS = 30;
export const MAX_BUCKETS = 100_000;

interface Bucket {
  tokens: number;
  at: number;
  /** Taken from since the eviction scan last passed it: it gets a second chance (`evict`). */
  seen: boolean;
}

const OK = { ok: true } as const;

export class TokenBuckets<Key extends string | number = string> {
  /** Map order = order of (re)insertion: the eviction scan starts at the oldest. */
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
    let bucket = this.buckets.get(key);
    if (bucket !== undefined) {
      bucket.tokens = Math.min(this.capacity, bucket.tokens + ((now - bucket.at) / 1000) * this.ratePerSecond);
      bucket.at = now;
      bucket.seen = true;
    } else {
      if (this.buckets.size >= this.maxBuckets) this.evict();
      bucket = { tokens: this.capacity, at: now, seen: false };
      this.buckets.set(key, bucket);
    }
    if (bucket.tokens >= n) {
      bucket.tokens -= n;
      return OK;
    }
    const missing = Math.min(n, this.capacity) - bucket.tokens;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(missing / this.ratePerSecond)) };
  }

  /**
   * Forgets one bucket: the oldest that was not taken from since the scan last passed it (second chance, the
   * CLOCK approximation of least recently used); a bucket taken from moves to the back with its mark cleared.
   * Keeping exact recency order instead meant a Map delete and insert on every request, ~0.5–1 µs of each
   * /api/event at full load; this is one flag, and each move here pays for one earlier take.
   */
  private evict(): void {
    for (const [key, bucket] of this.buckets) {
      this.buckets.delete(key);
      if (!bucket.seen) return;
      bucket.seen = false;
      this.buckets.set(key, bucket);
    }
  }
}

export interface IngestLimits {
  /**
   * Throws 429 when this client (an address, or null when unknown) sent too many events. `id` is
   * `addressId(clientAddress ?? "")` when the caller made it already (an IPv4 client's bucket is filed under it).
   */
  event(clientAddress: string | null, id?: number): void;
  /** Throws 429 when this site received too many hits. */
  hits(siteId: number, count: number): void;
  readonly stats: () => { event_clients: number; hit_sites: number };
}

export function createIngestLimits(options: { eventRatePerClient: number; hitRatePerSite: number; now: () => number }): IngestLimits {
  const events = options.eventRatePerClient > 0 ? new TokenBuckets<number>(options.eventRatePerClient, options.now) : null;
  const hits = options.hitRatePerSite > 0 ? new TokenBuckets<number>(options.hitRatePerSite, options.now) : null;
  const refuse = (what: string, retryAfterSeconds: number): never => {
    throw new ApiError("rate_limited", `too many ${what}; retry later`, undefined, { "retry-after": String(retryAfterSeconds) });
  };
  return {
    event(clientAddress, id) {
      if (!events) return;
      const key = limiterKey(clientAddress);
      // The client's own address (IPv4, or unknown): the id the caller made of it; an IPv6 client counts by its /64.
      const decision = events.take(id !== undefined && key === (clientAddress ?? "") ? id : addressId(key));
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
