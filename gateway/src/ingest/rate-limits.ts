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
// Memory is bounded: at most 100,000 buckets per limiter (8 MB of slots at most, id-table.ts); past that a bucket
// not used lately is forgotten (`TokenBuckets.evict`), which only ever makes a limit more lenient for that key.
// Client addresses are kept only as SipHash-1-3 under a key made at boot (siphash.ts says why not HMAC, which
// the login limiter, off the hot path, still uses).
import { ApiError } from "../errors.ts";
import { limiterKey } from "./client-ip.ts";
import { IdTable } from "./id-table.ts";
import { addressId } from "./siphash.ts";

export const DEFAULT_EVENT_RATE_PER_CLIENT = 10;
export const DEFAULT_HIT_RATE_PER_SITE = 1_000;
/** A bucket holds this many seconds of its sustained rate: a burst a page load or a deploy can cause. */
export const BURST_SECONDS = 30;
export const MAX_BUCKETS = 100_000;

const OK = { ok: true } as const;

// A bucket is one slot of an IdTable (id-table.ts): [id + 1, tokens, time of the last take, taken since the
// eviction scan last passed it (1) or not (0)]. 100,000 buckets fill 262,144 slots of 32 bytes: 8 MB at most,
// where a Map of bucket objects took ~15 MB.
const TOKENS = 1;
const AT = 2;
const SEEN = 3;

export class TokenBuckets {
  private readonly table: IdTable;
  private readonly capacity: number;
  /** The eviction scan's position (a slot index). */
  private hand = 0;

  constructor(
    private readonly ratePerSecond: number,
    private readonly now: () => number,
    maxBuckets = MAX_BUCKETS,
  ) {
    this.capacity = ratePerSecond * BURST_SECONDS;
    this.table = new IdTable(4, maxBuckets);
  }

  get size(): number {
    return this.table.size;
  }

  /** Takes `n` tokens from the bucket of `key` (an `addressId`, a site id), or says how many whole seconds until they are there. */
  take(key: number, n = 1): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const now = this.now();
    const table = this.table;
    let at = table.find(key);
    let tokens: number;
    if (at >= 0) {
      const data = table.data;
      tokens = Math.min(this.capacity, data[at + TOKENS]! + ((now - data[at + AT]!) / 1000) * this.ratePerSecond);
      data[at + SEEN] = 1;
    } else {
      if (table.size >= table.maxEntries) this.evict();
      at = table.add(key);
      tokens = this.capacity;
    }
    const data = table.data;
    data[at + AT] = now;
    if (tokens >= n) {
      data[at + TOKENS] = tokens - n;
      return OK;
    }
    data[at + TOKENS] = tokens;
    const missing = Math.min(n, this.capacity) - tokens;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(missing / this.ratePerSecond)) };
  }

  /**
   * Forgets one bucket: the next one the scan meets that was not taken from since it last passed (second chance,
   * the CLOCK approximation of least recently used); one taken from keeps its bucket and loses its mark. The scan
   * goes round the table's slots (before: round a Map in insertion order, moving each marked bucket to the back).
   */
  private evict(): void {
    const table = this.table;
    const data = table.data;
    const slots = table.slots;
    for (;;) {
      const index = this.hand;
      this.hand = (index + 1) % slots;
      if (!table.filledAt(index)) continue;
      const at = index * table.stride;
      if (data[at + SEEN] === 1) {
        data[at + SEEN] = 0;
        continue;
      }
      table.remove(at);
      return;
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
  const events = options.eventRatePerClient > 0 ? new TokenBuckets(options.eventRatePerClient, options.now) : null;
  const hits = options.hitRatePerSite > 0 ? new TokenBuckets(options.hitRatePerSite, options.now) : null;
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
