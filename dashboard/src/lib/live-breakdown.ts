// A breakdown card kept current from the live stream: each `delta` carries today's per-(actor, dimension,
// value) counts since the last one (the gateway's live hub, at most 100 a delta), and every window the site
// view offers ends with today, so the counts add to the card's rows as they are: no request per delta.
//
// A request is still needed where the delta cannot say what the API would: a value the card does not hold
// while it holds only the top `limit` rows (the value may have earlier counts, so its total is unknown), a
// new empty value or bot-ledger rule (their labels are the gateway's: "Direct / None", rule descriptions).

// ".ts" spelled out: the repository's root typecheck reaches this file from dashboard/test (node16 resolution).
import { type ActorParam, type BreakdownRow, type LiveDelta, actorsOf, visitorActorsOf } from "./types.ts";

export interface BreakdownPatch {
  rows: BreakdownRow[];
  /** Some row changed: show `rows`. */
  changed: boolean;
  /** The delta named a value whose total only the API knows: fetch the card again. */
  refetch: boolean;
}

const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
// The API's order (gateway read/reports.ts): visitors, then the count, then hits, then the value.
const ORDER = (a: BreakdownRow, b: BreakdownRow) =>
  b.visitors - a.visitors || (b.pageviews ?? b.events ?? 0) - (a.pageviews ?? a.events ?? 0) || b.hits - a.hits || byCodePoint(a.value, b.value);

export function applyBreakdownDelta(rows: readonly BreakdownRow[], field: string, actor: ActorParam, delta: LiveDelta, limit: number): BreakdownPatch {
  const actors: readonly string[] = actorsOf(actor);
  const visitorActors: readonly string[] = visitorActorsOf(actor);
  const complete = rows.length < limit;
  const byValue = new Map(rows.map((r) => [r.value, r] as const));
  let changed = false;
  let refetch = false;
  for (const d of delta.dimensions) {
    if (d.dim !== field || !actors.includes(d.actor)) continue;
    let row = byValue.get(d.value);
    if (!row) {
      if (!complete || d.value === "" || field === "rule") {
        refetch = true;
        continue;
      }
      row = field === "event" ? { value: d.value, label: d.value, visitors: 0, events: 0, hits: 0 } : { value: d.value, label: d.value, visitors: 0, pageviews: 0, hits: 0 };
    } else row = { ...row };
    if (visitorActors.includes(d.actor)) row.visitors += d.visitors;
    row.hits += d.hits;
    // An event row counts every send of that name, pageviews included (the API's `events` for field=event).
    if (field === "event") row.events = (row.events ?? 0) + d.pageviews + d.events;
    else row.pageviews = (row.pageviews ?? 0) + d.pageviews;
    byValue.set(d.value, row);
    changed = true;
  }
  return { rows: changed ? [...byValue.values()].sort(ORDER).slice(0, limit) : [...rows], changed, refetch };
}
