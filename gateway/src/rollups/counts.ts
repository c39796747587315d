// The counts of the rollups, as the tables hold them (rollup_hourly / rollup_daily), as the site lanes
// produce them (one delta per counter and hour) and as the reads and the live stream sum them.

/** What rows add up to, visitors aside: a row always adds to these; it adds a visitor only where its hash is new. */
export interface RowCounts {
  pageviews: number;
  events: number;
  hits: number;
}

/** One rollup row's counts, or any sum of them. */
export interface Counts extends RowCounts {
  visitors: number;
}

/**
 * A delta's counts. Its visitors are counted twice, new to the hour and new to the day: the same delta feeds
 * rollup_hourly (visitors_hour) and rollup_daily (visitors_day).
 */
export interface DeltaCounts extends RowCounts {
  visitors_hour: number;
  visitors_day: number;
}

export const zeroCounts = (): Counts => ({ visitors: 0, pageviews: 0, events: 0, hits: 0 });

/**
 * Adds `from` into `into` and returns it. `visitors` is passed apart because a delta has two and the sum's
 * bucket decides which one counts (an hour: visitors_hour; a day or today's live totals: visitors_day).
 */
export function addCounts<C extends Counts>(into: C, from: RowCounts, visitors: number): C {
  into.pageviews += from.pageviews;
  into.events += from.events;
  into.hits += from.hits;
  into.visitors += visitors;
  return into;
}

/** Adds one delta's counts into another's: the rollup ledger's sums of the deltas of one counter and hour. */
export function addDeltaCounts(into: DeltaCounts, from: DeltaCounts): void {
  into.pageviews += from.pageviews;
  into.events += from.events;
  into.hits += from.hits;
  into.visitors_hour += from.visitors_hour;
  into.visitors_day += from.visitors_day;
}
