// Today's numbers ticking from the live stream's deltas, for the site view and a shared link's view alike.
import { ACTORS, type ActorParam, type LiveCounts, type Stats } from "./types";

/** The delta's counts for the view's actor (every actor summed for `all`), or null when it holds none. */
export function selectedCounts(totals: Partial<Record<string, LiveCounts>>, actor: ActorParam): LiveCounts | null {
  const actors = actor === "all" ? ACTORS : [actor];
  let sum: LiveCounts | null = null;
  for (const a of actors) {
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

/**
 * For hourly windows only (today, two days, the last 24 hours: they end with the current hour): the delta
 * added to the totals and the last bucket. A delta's visitors are the visitors new today, so a day's distinct
 * count stays exact (over the last 24 hours, summed per hour, a visitor back in a new hour is not added until
 * the next load).
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
