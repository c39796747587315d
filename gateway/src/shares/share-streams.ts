// The live streams of shared links: the shared view's deltas and the embeddable counter's "N visitors now".
// Each link open on this gateway holds ONE subscription to the live hub (a relay), whatever the number of
// people watching it: the relay restricts each delta to what the link may show once, then writes the same
// text to every viewer, and recounts the counter's visitors once per delta for all its counters. So a link
// embedded on a busy page costs the hub one sink and the lane one `recentVisitors` call per delta (≤ 2 a
// second), not one per viewer. A filtered link's counters count the segment's visitors by the query engine
// instead, once for all of them and at most once a second. Streams per link are capped (MAX_STREAMS_PER_SHARE).
//
// Revocation: deleting a link ends its streams on this gateway at once (`revoke`), and a sweep every
// REVOKE_SWEEP_MS asks the database which open links still exist, so a link deleted through another gateway
// ends here within 2 s too (one query per sweep for all links, not one per stream).
import { Effect } from "effect";
import type { StreamSink } from "../http/transport.ts";
import { type LiveHub, sse } from "../live/hub.ts";
import type { Logger } from "../log.ts";
import type { SharedSite } from "../storage/shares.ts";

export const REVOKE_SWEEP_MS = 2_000;
// 1,000 streams per link per gateway: a link embedded on a popular page, each tab holding one socket (~10 KB
// of kernel and transport buffers each, so ~10 MB); past it 429, the page shows no counter rather than the
// gateway running out of sockets.
export const MAX_STREAMS_PER_SHARE = 1_000;
/** Visitors "now": whose last row is at most 5 minutes old (the owner's live view counts the same). */
export const RECENT_MS = 5 * 60_000;
/** Whom the counter counts when the link names no actor: people (the script's visitors), not automation. */
const PEOPLE = ["human", "human_via_ai"] as const;
// A filtered link's count is a query-engine query (tens of ms on a day's rows, more under load): at most one a
// second per link on this gateway, whatever the deltas (≤ 2 a second) and viewers — the count still follows an
// event within about a second.
export const SEGMENT_COUNT_GAP_MS = 1_000;

export interface ShareStreamsDeps {
  readonly hub: LiveHub;
  /** Visitors per actor whose last row is at most `windowMs` old (the site lane's count). */
  readonly recentVisitors: (siteId: number, windowMs: number) => Promise<Record<string, number>>;
  /**
   * A filtered link's visitors now: those of `actors` with a row matching the link's filters at most `windowMs`
   * old (the query engine's count, shares/filtered-reads.ts filteredRecentVisitors).
   */
  readonly segmentVisitors: (share: SharedSite, actors: readonly string[], windowMs: number) => Promise<number>;
  /** Of these link ids, those that still exist. */
  readonly existing: (ids: readonly number[]) => Promise<Set<number>>;
  readonly log: Logger;
}

export type ShareStreamKind = "view" | "counter";

/** A live event as far as a link restricts it: a snapshot (totals, visitors now) or a delta (totals, dimensions). */
interface LiveEvent {
  totals: Record<string, unknown>;
  dimensions?: Array<{ actor: string; dim: string; value: string }>;
  visitors_last_5_minutes?: Record<string, number>;
}

/**
 * What a shared view may see of a live event: the link's actor only (when it names one). With filters, a
 * delta is only a tick — no totals, no visitors-now, no dimension values — since its counts are of every
 * visit, not the link's segment: the filtered view refetches its reads on a tick (at most every 5 s, see
 * dashboard/src/routes/share/[token]/+page.svelte), which the query engine answers with the filters.
 */
export function restrictLive<T extends LiveEvent>(share: Pick<SharedSite, "actor" | "filters">, data: T): T {
  const actorOk = (a: string) => share.actor === null || a === share.actor;
  const filtered = share.filters.length > 0;
  const byActor = <V>(record: Record<string, V>) => (filtered ? {} : Object.fromEntries(Object.entries(record).filter(([a]) => actorOk(a))));
  const out: T = { ...data, totals: byActor(data.totals) };
  if (data.visitors_last_5_minutes) out.visitors_last_5_minutes = byActor(data.visitors_last_5_minutes);
  if (data.dimensions) {
    out.dimensions = filtered ? [] : data.dimensions.filter((d) => actorOk(d.actor));
  }
  return out;
}

class Relay {
  readonly views = new Set<StreamSink>();
  readonly counters = new Set<StreamSink>();
  private listeners: Array<() => void> = [];
  private ended = false;
  private lastCount: number | null = null;
  private counting = false;
  private countAgain = false;
  /** The hub's view of this relay: one sink, never slow (the relay drops slow viewers itself). */
  readonly upstream: StreamSink;

  constructor(
    readonly share: SharedSite,
    private readonly deps: ShareStreamsDeps,
    private readonly onEmpty: () => void,
  ) {
    const relay = this;
    this.upstream = {
      get closed() {
        return relay.ended;
      },
      write: (chunk) => {
        this.fromHub(chunk);
        return true;
      },
      end: () => this.close(null),
      onClose: (listener) => void this.listeners.push(listener),
      onDrain: () => undefined, // never slow: write always answers true
    };
  }

  get size(): number {
    return this.views.size + this.counters.size;
  }

  add(kind: ShareStreamKind, sink: StreamSink): void {
    (kind === "view" ? this.views : this.counters).add(sink);
    sink.onClose(() => {
      this.views.delete(sink);
      this.counters.delete(sink);
      if (this.size === 0) this.close(null);
    });
    if (kind === "counter") {
      if (this.lastCount !== null) sink.write(sse("count", { visitors: this.lastCount }));
      this.recount();
    }
  }

  /** Ends every stream of the link (with `message` first, when given) and the hub subscription. */
  close(message: string | null): void {
    if (this.ended) return;
    this.ended = true;
    for (const sink of [...this.views, ...this.counters]) {
      if (message !== null && !sink.closed) sink.write(message);
      sink.end();
    }
    this.views.clear();
    this.counters.clear();
    for (const listener of this.listeners.splice(0)) listener();
    this.onEmpty();
  }

  private fromHub(chunk: string): void {
    if (chunk.startsWith("event: delta\n")) {
      this.send(this.views, this.restricted(chunk));
      this.recount();
    } else if (chunk.startsWith(":")) {
      // The heartbeat: also the moment visitors leave the 5-minute window without any new row.
      this.send(this.views, chunk);
      this.send(this.counters, chunk);
      this.recount();
    } else {
      // resync / revoked from the hub: every viewer gets it; the hub ends the relay right after.
      this.send(this.views, chunk);
      this.send(this.counters, chunk);
    }
  }

  private restricted(chunk: string): string {
    const { actor, filters } = this.share;
    if (actor === null && filters.length === 0) return chunk;
    const data = JSON.parse(chunk.slice(chunk.indexOf("data: ") + 6)) as LiveEvent;
    return sse("delta", restrictLive(this.share, data));
  }

  private send(sinks: Set<StreamSink>, message: string): void {
    for (const sink of sinks) {
      if (sink.closed) continue;
      if (!sink.write(message)) {
        sink.write(sse("resync", { reason: "client too slow; reconnect for a fresh snapshot" }));
        sink.end();
      }
    }
  }

  /** The visitors now the link's counters show: the lane's count, or for a filtered link the engine's. */
  private async count(): Promise<number> {
    const actors = this.share.actor === null ? PEOPLE : [this.share.actor];
    if (this.share.filters.length > 0) return this.deps.segmentVisitors(this.share, actors, RECENT_MS);
    const recent = await this.deps.recentVisitors(this.share.site_id, RECENT_MS);
    return actors.reduce((n, a) => n + (recent[a] ?? 0), 0);
  }

  /** One count for all the link's counters; a delta arriving meanwhile asks for one more after it. */
  private recount(): void {
    if (this.counters.size === 0 || this.ended) return;
    if (this.counting) {
      this.countAgain = true;
      return;
    }
    this.counting = true;
    const started = Date.now();
    this.count()
      .then((visitors) => {
        if (visitors !== this.lastCount) {
          this.lastCount = visitors;
          this.send(this.counters, sse("count", { visitors }));
        }
      })
      .catch((error: unknown) => this.deps.log.warn("shared counter: recount failed", { share_id: this.share.id, error: String(error) }))
      .finally(() => {
        if (!this.countAgain) {
          this.counting = false;
          return;
        }
        this.countAgain = false;
        const wait = this.share.filters.length > 0 ? Math.max(0, started + SEGMENT_COUNT_GAP_MS - Date.now()) : 0;
        // Still `counting` while it waits, so deltas meanwhile only ask for this one count.
        setTimeout(() => {
          this.counting = false;
          this.countAgain = false;
          this.recount();
        }, wait).unref();
      });
  }
}

export class ShareStreams {
  private readonly relays = new Map<number, Relay>();

  constructor(private readonly deps: ShareStreamsDeps) {}

  /** Hub subscriptions held (one per link watched on this gateway), for /healthz and the tests. */
  get subscriptions(): number {
    return this.relays.size;
  }

  get streams(): number {
    let n = 0;
    for (const relay of this.relays.values()) n += relay.size;
    return n;
  }

  /** Whether one more stream of this link fits under MAX_STREAMS_PER_SHARE. */
  hasRoom(shareId: number): boolean {
    return (this.relays.get(shareId)?.size ?? 0) < MAX_STREAMS_PER_SHARE;
  }

  /** Registers a stream whose opening event is written; false when the link is at its cap (the caller ends it). */
  add(share: SharedSite, kind: ShareStreamKind, sink: StreamSink): boolean {
    let relay = this.relays.get(share.id);
    if (relay && relay.size >= MAX_STREAMS_PER_SHARE) return false;
    if (!relay) {
      const created = new Relay(share, this.deps, () => {
        if (this.relays.get(share.id) === created) this.relays.delete(share.id);
      });
      relay = created;
      this.relays.set(share.id, relay);
      this.deps.hub.subscribe(share.site_id, relay.upstream);
    }
    relay.add(kind, sink);
    return true;
  }

  /** The link was deleted: its streams end now with `revoked`. */
  revoke(shareId: number): void {
    this.relays.get(shareId)?.close(sse("revoked", { reason: "this shared link was revoked" }));
  }

  /** Ends the streams of links deleted elsewhere (another gateway, the CLI). */
  async sweep(): Promise<void> {
    if (this.relays.size === 0) return;
    const open = [...this.relays.keys()];
    const existing = await this.deps.existing(open);
    for (const id of open) if (!existing.has(id)) this.revoke(id);
  }

  loop(): Effect.Effect<void> {
    const self = this;
    return Effect.gen(function* () {
      for (;;) {
        yield* Effect.sleep(REVOKE_SWEEP_MS);
        yield* Effect.promise(() => self.sweep().catch((error: unknown) => self.deps.log.warn("shared links: revocation sweep failed", { error: String(error) })));
      }
    });
  }

  stop(): void {
    for (const relay of [...this.relays.values()]) relay.close(null);
  }
}
