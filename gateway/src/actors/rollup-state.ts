// Today's exact visitor state for one site, and the rollup deltas each new row produces.
//
// A visitor is one hash on one day. For every (actor, dimension, value) the state keeps the set of
// visitors already counted today and in the current hour, so a row adds 1 visitor to a rollup
// bucket exactly when its hash is new there: the rollups equal COUNT(DISTINCT visitor_hash) over the
// raw rows of that day (and hour) for every breakdown value.
//
// Memory: each distinct hash of the day is interned once to a small integer (~100 B: a 32-char
// latin1 key plus a Map entry); each distinct (visitor, actor, dimension, value) pair then costs one
// Set<number> entry (~20 B in V8), twice while the hour is current. A visitor touching all 14
// dimensions costs about 100 + 14 × 40 ≈ 660 B, so 100,000 visitors a day ≈ 66 MB.
import type { EventRow, HitRow, RollupDelta } from "../storage/rows.ts";

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

/**
 * The (dimension, value) pairs one row counts under. Missing values of always-present dimensions
 * count under "" (direct traffic, unknown country), so each dimension's values sum to the total;
 * the sparse ones (UTM, AI name) are skipped when absent to keep human rows small.
 */
export function rowDimensions(row: RollupRow): Array<readonly [Dimension, string]> {
  const dims: Array<readonly [Dimension, string]> = [
    ["total", ""],
    ["page", row.page],
    ["source", row.source ?? ""],
    ["channel", row.channel],
    ["country", row.country ?? ""],
    ["device", row.device],
    ["browser", row.browser ?? ""],
    ["os", row.os ?? ""],
  ];
  if (row.utm_source !== null) dims.push(["utm_source", row.utm_source]);
  if (row.utm_medium !== null) dims.push(["utm_medium", row.utm_medium]);
  if (row.utm_campaign !== null) dims.push(["utm_campaign", row.utm_campaign]);
  if (row.ai_name !== null) dims.push(["ai_name", row.ai_name]);
  if (row.kind === "event") dims.push(["event", row.name]);
  else dims.push(["status_class", `${Math.floor(row.status / 100)}xx`]);
  return dims;
}

export const HOUR_MS = 3_600_000;

export class RollupState {
  private readonly visitorIds = new Map<string, number>();
  /** Per visitor id: when it was last seen and as which actor, for "visitors in the last 5 minutes". */
  private readonly lastSeen: number[] = [];
  private readonly lastActor: string[] = [];
  private readonly daySeen = new Map<string, Set<number>>();
  private hourSeen = new Map<string, Set<number>>();
  private hour: number;

  constructor(
    readonly siteId: number,
    /** ms at 00:00 UTC of the day this state covers. */
    readonly dayStart: number,
  ) {
    this.hour = dayStart;
  }

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

  /** Adds one row to the state and its counts to `out` (keyed per hour bucket and value). */
  observe(row: RollupRow, out: Map<string, RollupDelta>): void {
    const hour = row.ts - (row.ts % HOUR_MS);
    if (hour !== this.hour) {
      // Rows arrive in time order per site (the actor stamps them), so an older hour never returns.
      this.hour = hour;
      this.hourSeen = new Map();
    }
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
    for (const [dim, value] of rowDimensions(row)) {
      const key = `${row.actor}\u0000${dim}\u0000${value}`;
      const newToday = addTo(this.daySeen, key, visitor);
      const newThisHour = addTo(this.hourSeen, key, visitor);
      const deltaKey = `${hour}\u0000${key}`;
      let d = out.get(deltaKey);
      if (!d) {
        d = { site_id: this.siteId, hour, actor: row.actor, dim, value, pageviews: 0, events: 0, hits: 0, visitors_hour: 0, visitors_day: 0 };
        out.set(deltaKey, d);
      }
      d.pageviews += pageviews;
      d.events += events;
      d.hits += hits;
      if (newThisHour) d.visitors_hour++;
      if (newToday) d.visitors_day++;
    }
  }
}

function addTo(seen: Map<string, Set<number>>, key: string, visitor: number): boolean {
  let set = seen.get(key);
  if (!set) {
    set = new Set();
    seen.set(key, set);
  }
  if (set.has(visitor)) return false;
  set.add(visitor);
  return true;
}
