// Today's exact visitor state for one site, and the rollup deltas each new row produces.
//
// A visitor is one hash on one day. For every (actor, dimension, value) the state keeps the set of
// visitors already counted today and in the current hour, so a row adds 1 visitor to a rollup
// bucket exactly when its hash is new there: the rollups equal COUNT(DISTINCT visitor_hash) over the
// raw rows of that day (and hour) for every breakdown value.
//
// Memory: each distinct hash of the day is interned once to a small integer (~100 B: a 32-char
// latin1 key, a Map entry and its last-seen time); each distinct (visitor, actor, dimension, value)
// pair then costs one Set<number> entry (~20 B in V8), twice while the hour is current. A visitor
// touching all 14 dimensions costs about 100 + 14 × 40 ≈ 660 B, so 100,000 visitors a day ≈ 66 MB.
import type { EventRow, HitRow, LedgerSlot, RollupDelta } from "../storage/rows.ts";

export const DIMENSIONS = [
  "total", "page", "source", "channel", "utm_source", "utm_medium", "utm_campaign",
  "country", "device", "browser", "os", "event", "ai_name", "status_class",
] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** A row as the rollups see it: the shared columns of events and hits, plus which kind it is. */
export type RollupRow =
  | ({ kind: "event" } & Pick<EventRow, RollupColumns | "name">)
  | ({ kind: "hit" } & Pick<HitRow, RollupColumns | "status">);
type RollupColumns = "ts" | "actor" | "page" | "source" | "channel" | "utm_source" | "utm_medium" | "utm_campaign" | "country" | "device" | "browser" | "os" | "ai_name" | "visitor_hash";

// Status classes are interned once: a string built per row would be hashed anew at every lookup.
const STATUS_CLASSES = ["0xx", "1xx", "2xx", "3xx", "4xx", "5xx"];

/**
 * Calls `visit` for each (dimension, value) pair one row counts under, without allocating. Missing
 * values of always-present dimensions count under "" (direct traffic, unknown country), so each
 * dimension's values sum to the total; the sparse ones (UTM, AI name) are skipped when absent to keep
 * human rows small.
 */
export function forEachDimension(row: RollupRow, visit: (dim: Dimension, value: string) => void): void {
  visit("total", "");
  visit("page", row.page);
  visit("source", row.source ?? "");
  visit("channel", row.channel);
  visit("country", row.country ?? "");
  visit("device", row.device);
  visit("browser", row.browser ?? "");
  visit("os", row.os ?? "");
  if (row.utm_source !== null) visit("utm_source", row.utm_source);
  if (row.utm_medium !== null) visit("utm_medium", row.utm_medium);
  if (row.utm_campaign !== null) visit("utm_campaign", row.utm_campaign);
  if (row.ai_name !== null) visit("ai_name", row.ai_name);
  if (row.kind === "event") visit("event", row.name);
  else visit("status_class", STATUS_CLASSES[Math.floor(row.status / 100)] ?? `${Math.floor(row.status / 100)}xx`);
}

export const HOUR_MS = 3_600_000;

/** One (actor, dimension, value) of the day: who was counted today and in the current hour. */
interface Slot extends LedgerSlot {
  readonly actor: string;
  readonly dim: Dimension;
  readonly value: string;
  readonly day: Set<number>;
  hour: Set<number>;
  hourStart: number;
  /** This slot's delta in the batch being built (`sink`), so a row finds it without a lookup. */
  delta: RollupDelta | null;
  sink: DeltaSink | null;
}

/** The deltas one batch of rows adds. */
export interface DeltaSink {
  readonly deltas: RollupDelta[];
}

export function newDeltaSink(): DeltaSink {
  return { deltas: [] };
}

export function sinkDeltas(sink: DeltaSink): readonly RollupDelta[] {
  return sink.deltas;
}

export class RollupState {
  private readonly visitorIds = new Map<string, number>();
  /** Per visitor id: when it was last seen and as which actor, for "visitors in the last 5 minutes". */
  private readonly lastSeen: number[] = [];
  private readonly lastActor: string[] = [];
  /** actor → dimension → value → slot. Lookups use the row's own strings, whose hashes V8 caches. */
  private readonly slots = new Map<string, Map<Dimension, Map<string, Slot>>>();

  constructor(
    readonly siteId: number,
    /** ms at 00:00 UTC of the day this state covers. */
    readonly dayStart: number,
  ) {}

  get visitors(): number {
    return this.visitorIds.size;
  }

  /** Distinct visitors seen since `since` (ms), per actor of their latest row. */
  recentVisitors(since: number): Record<string, number> {
    const out: Record<string, number> = {};
    for (let i = 0; i < this.lastSeen.length; i++) {
      if (this.lastSeen[i]! >= since) {
        const actor = this.lastActor[i]!;
        out[actor] = (out[actor] ?? 0) + 1;
      }
    }
    return out;
  }

  /** Adds one row to the state and its counts to `out`. Rows of one site arrive in time order. */
  observe(row: RollupRow, out: DeltaSink): void {
    const hour = row.ts - (row.ts % HOUR_MS);
    const hashKey = row.visitor_hash.toString("latin1");
    let visitor = this.visitorIds.get(hashKey);
    if (visitor === undefined) {
      visitor = this.visitorIds.size;
      this.visitorIds.set(hashKey, visitor);
    }
    this.lastSeen[visitor] = row.ts;
    this.lastActor[visitor] = row.actor;
    const pageviews = row.kind === "event" && row.name === "pageview" ? 1 : 0;
    const events = row.kind === "event" && pageviews === 0 ? 1 : 0;
    const hits = row.kind === "hit" ? 1 : 0;
    let byDim = this.slots.get(row.actor);
    if (!byDim) this.slots.set(row.actor, (byDim = new Map()));
    const dims = byDim;
    forEachDimension(row, (dim, value) => {
      let byValue = dims.get(dim);
      if (!byValue) dims.set(dim, (byValue = new Map()));
      let slot = byValue.get(value);
      if (!slot) byValue.set(value, (slot = { actor: row.actor, dim, value, day: new Set(), hour: new Set(), hourStart: hour, delta: null, sink: null, ledgerEntry: null, ledgerEpoch: -1 }));
      if (slot.hourStart !== hour) {
        slot.hourStart = hour;
        slot.hour = new Set();
      }
      const newToday = !slot.day.has(visitor!);
      if (newToday) slot.day.add(visitor!);
      const newThisHour = !slot.hour.has(visitor!);
      if (newThisHour) slot.hour.add(visitor!);
      let d = slot.delta;
      if (slot.sink !== out || d === null || d.hour !== hour) {
        d = { site_id: this.siteId, hour, actor: row.actor, dim, value, pageviews: 0, events: 0, hits: 0, visitors_hour: 0, visitors_day: 0, slot };
        out.deltas.push(d);
        slot.delta = d;
        slot.sink = out;
      }
      d.pageviews += pageviews;
      d.events += events;
      d.hits += hits;
      if (newThisHour) d.visitors_hour++;
      if (newToday) d.visitors_day++;
    });
  }
}
