// Today's numbers ticking from the live stream's deltas, for the site view and a shared link's view alike.
import { ACTORS, type Actor, type ActorParam, type LiveCounts, type LiveDelta, type LiveSnapshot, type Stats, actorsOf } from "./types";

/** Visitors seen in the last 5 minutes, per actor and for "All traffic". */
export type RecentVisitors = Partial<Record<Actor | "all", number>>;

/** The delta's counts for the view's actor, or null when it holds none. */
export function selectedCounts(totals: LiveDelta["totals"], actor: ActorParam): LiveCounts | null {
  // `all` has its own exact counter (visitors distinct over actors, crawlers and bots as hits only).
  if (actor === "all") return totals.all ? { ...totals.all } : null;
  let sum: LiveCounts | null = null;
  for (const a of actorsOf(actor)) {
    const c = totals[a];
    if (!c) continue;
    sum ??= { pageviews: 0, events: 0, hits: 0, visitors: 0 };
    sum.pageviews += c.pageviews;
    sum.events += c.events;
    sum.hits += c.hits;
    sum.visitors += c.visitors;
  }
  return sum;
}

/** A snapshot's recent visitors: "All traffic" counts people and agents (crawlers and bots are hits), like its visitors tile. */
export function recentFromSnapshot(s: LiveSnapshot): RecentVisitors {
  const r = s.visitors_last_5_minutes;
  return { ...r, all: (r.human ?? 0) + (r.human_via_ai ?? 0) + (r.ai_agent ?? 0) };
}

/** The recent visitors with a delta's new ones added. */
export function addRecent(recent: RecentVisitors, totals: LiveDelta["totals"]): RecentVisitors {
  let next = recent;
  for (const a of [...ACTORS, "all"] as const) {
    const c = totals[a];
    if (c?.visitors) next = { ...next, [a]: (next[a] ?? 0) + c.visitors };
  }
  return next;
}

/** "Visitors now" for the view's actor: distinct in "All traffic", never a sum per actor. */
export const liveVisitors = (recent: RecentVisitors, actor: ActorParam): number =>
  actor === "all" ? (recent.all ?? 0) : actorsOf(actor).reduce((n, a) => n + (recent[a] ?? 0), 0);

/**
 * Every window ends with today (days) or the current hour (hours): the delta added to the totals and the last
 * bucket. A delta's visitors are the visitors new today, so visitors distinct per day and summed over the days
 * (the API's multi-day totals) stay exact (over the last 24 hours, summed per hour, a visitor back in a new hour
 * is not added until the next load).
 */
export function addToday(s: Stats, c: LiveCounts): Stats {
  const t = s.current;
  t.pageviews += c.pageviews;
  t.events += c.events;
  t.hits += c.hits;
  t.visitors += c.visitors;
  t.views_per_visitor = { ...t.views_per_visitor, value: t.visitors ? t.pageviews / t.visitors : null };
  const last = s.series.at(-1);
  if (last) {
    last.pageviews += c.pageviews;
    last.events += c.events;
    last.hits += c.hits;
    last.visitors += c.visitors;
  }
  return { ...s };
}
