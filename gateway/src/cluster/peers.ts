// What gateways of one cluster (SVC_CLUSTER) tell each other, over PostgreSQL LISTEN/NOTIFY: no broker, and
// the connection each already has to the database.
//
// - svc_site_release: "I get this site's traffic now; let it go". The owner lets a site go once it received
//   nothing for it for RELEASE_QUIET_MS (HAProxy sends it elsewhere now): drained, counts written, lock released.
// - svc_live_watch: the sites a gateway has live streams for, announced when one is added and every
//   WATCH_EVERY_MS; an owner forgets a watcher after WATCH_TTL_MS without news.
// - svc_live: an owner's committed counts of watched sites, folded per site every PUBLISH_MS. The watcher's hub
//   takes them as its own commits, so a dashboard on gateway B sees a site owned by A within
//   PUBLISH_MS + the hub's 500 ms (≤ 0.75 s; bench:cluster measures it).
//
// Why NOTIFY rather than polling the rollup tables: the rollups are written once a second (SVC_ROLLUP_FLUSH_MS),
// so a poller sees a count 1 to 2 s after its 202, over the 1 s budget; and polling per site costs every
// gateway a query per watched site per interval whether anything changed or not. A NOTIFY goes out only for a
// watched site with new counts, in one statement per PUBLISH_MS for all of them.
import { Buffer } from "node:buffer";
import type pg from "pg";
import type { LiveHub } from "../live/hub.ts";
import type { Logger } from "../log.ts";
import { listenChannels, type SiteChangeListener } from "../storage/site-changes.ts";
import type { RollupDelta } from "../storage/rows.ts";

export const RELEASE_CHANNEL = "svc_site_release";
export const LIVE_CHANNEL = "svc_live";
export const WATCH_CHANNEL = "svc_live_watch";

/** A site is let go only when its lane received nothing for this long: the traffic went elsewhere. */
export const RELEASE_QUIET_MS = 1_000;
// A gateway asks an owner at most twice a second per site, however many requests it refuses meanwhile.
const RELEASE_ASK_MS = 500;
const PUBLISH_MS = 200;
const WATCH_EVERY_MS = 5_000;
const WATCH_TTL_MS = 15_000;
// NOTIFY payloads are limited to 8,000 bytes: totals first, then the largest counts, up to this many bytes.
const MAX_PAYLOAD_BYTES = 7_000;

/** One folded count on the wire: actor, dimension, value, pageviews, events, hits, visitors new today. */
type WireCount = [string, string, string, number, number, number, number];

export class ClusterPeers {
  private listener: SiteChangeListener | null = null;
  private readonly asked = new Map<number, number>();
  /** Sites another gateway watches, until when. */
  private readonly watched = new Map<number, number>();
  private readonly pending = new Map<number, Map<string, WireCount>>();
  /** Local watched sites last announced. */
  private announced = new Set<number>();
  private releaseHandler: (siteId: number) => void = () => undefined;
  private timers: NodeJS.Timeout[] = [];
  readonly stats = { release_requests_sent: 0, release_requests_received: 0, live_notifies_sent: 0, live_notifies_received: 0 };

  constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly name: string,
    private readonly hub: LiveHub,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    this.listener = await listenChannels(this.url, [RELEASE_CHANNEL, LIVE_CHANNEL, WATCH_CHANNEL], (channel, payload) => this.received(channel, payload), {
      log: (line) => this.log.warn(line),
      onResync: () => this.announce(true),
    });
    let tick = 0;
    this.timers.push(
      setInterval(() => {
        this.sendLive();
        this.announce(++tick % (WATCH_EVERY_MS / PUBLISH_MS) === 0);
      }, PUBLISH_MS),
    );
    for (const t of this.timers) t.unref();
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await this.listener?.close();
  }

  onRelease(handler: (siteId: number) => void): void {
    this.releaseHandler = handler;
  }

  /** Asks whoever owns the site to let it go (debounced per site). */
  requestRelease(siteId: number): void {
    const now = Date.now();
    if (now - (this.asked.get(siteId) ?? 0) < RELEASE_ASK_MS) return;
    this.asked.set(siteId, now);
    this.stats.release_requests_sent++;
    this.notify(RELEASE_CHANNEL, JSON.stringify({ g: this.name, s: siteId }));
  }

  /** The counts of a commit of this gateway: kept for the sites another gateway watches. */
  publish(deltas: readonly RollupDelta[]): void {
    if (this.watched.size === 0) return;
    const now = Date.now();
    for (const d of deltas) {
      const until = this.watched.get(d.site_id);
      if (until === undefined) continue;
      if (until < now) {
        this.watched.delete(d.site_id);
        continue;
      }
      let site = this.pending.get(d.site_id);
      if (!site) this.pending.set(d.site_id, (site = new Map()));
      const key = `${d.actor}\u0000${d.dim}\u0000${d.value}`;
      const c = site.get(key);
      if (c === undefined) site.set(key, [d.actor, d.dim, d.value, d.pageviews, d.events, d.hits, d.visitors_day]);
      else {
        c[3] += d.pageviews;
        c[4] += d.events;
        c[5] += d.hits;
        c[6] += d.visitors_day;
      }
    }
  }

  private sendLive(): void {
    if (this.pending.size === 0) return;
    const payloads: string[] = [];
    for (const [siteId, counts] of this.pending) payloads.push(livePayload(this.name, siteId, [...counts.values()]));
    this.pending.clear();
    this.stats.live_notifies_sent += payloads.length;
    this.pool.query("select pg_notify($1, p) from unnest($2::text[]) p", [LIVE_CHANNEL, payloads]).catch((error: unknown) => {
      this.log.warn("live counts not sent to the other gateways", { error: String(error) });
    });
  }

  private announce(always: boolean): void {
    const sites = new Set(this.hub.watchedSites());
    const added = [...sites].some((s) => !this.announced.has(s));
    this.announced = sites;
    if (sites.size === 0 || (!added && !always)) return;
    this.notify(WATCH_CHANNEL, JSON.stringify({ g: this.name, s: [...sites] }));
  }

  private notify(channel: string, payload: string): void {
    this.pool.query("select pg_notify($1, $2)", [channel, payload]).catch((error: unknown) => {
      this.log.warn("notification to the other gateways not sent", { channel, error: String(error) });
    });
  }

  private received(channel: string, payload: string): void {
    let message: { g?: unknown; s?: unknown; r?: unknown };
    try {
      message = JSON.parse(payload) as typeof message;
    } catch {
      return;
    }
    if (message.g === this.name) return;
    if (channel === RELEASE_CHANNEL && typeof message.s === "number") {
      this.stats.release_requests_received++;
      this.releaseHandler(message.s);
    } else if (channel === WATCH_CHANNEL && Array.isArray(message.s)) {
      const until = Date.now() + WATCH_TTL_MS;
      for (const s of message.s) if (typeof s === "number") this.watched.set(s, until);
    } else if (channel === LIVE_CHANNEL && typeof message.s === "number" && Array.isArray(message.r)) {
      this.stats.live_notifies_received++;
      const site = message.s;
      const deltas: RollupDelta[] = (message.r as WireCount[]).map(([actor, dim, value, pageviews, events, hits, visitors_day]) => ({
        site_id: site, hour: 0, actor, dim, value, pageviews, events, hits, visitors_hour: 0, visitors_day,
      }));
      this.hub.publish(deltas);
    }
  }
}

/** One site's counts as a NOTIFY payload under MAX_PAYLOAD_BYTES: every total, then the largest others. */
export function livePayload(name: string, siteId: number, counts: WireCount[]): string {
  const size = (c: WireCount) => c[3] + c[4] + c[5] + c[6];
  counts.sort((a, b) => (a[1] === "total" ? 0 : 1) - (b[1] === "total" ? 0 : 1) || size(b) - size(a));
  const head = `{"g":${JSON.stringify(name)},"s":${siteId},"r":[`;
  let bytes = head.length + 2;
  const kept: string[] = [];
  for (const c of counts) {
    const json = JSON.stringify(c);
    const n = Buffer.byteLength(json) + 1;
    if (bytes + n > MAX_PAYLOAD_BYTES) break;
    kept.push(json);
    bytes += n;
  }
  return `${head}${kept.join(",")}]}`;
}
