// How much of one site's day the site lane keeps in memory exactly, and what happens past it.
//
// Without a bound, random IPs on /api/hit add a visitor per request (~534 B of counter state plus ~245 B of
// visit state, `npm run bench:visitors`) until the process dies. Past the budget the site degrades visibly
// instead: rows of visitors not yet seen that day are still stored and counted, but each counts as a new
// visitor (an upper bound, exact for a flood of one-row visitors) and the day's visitor counts are marked
// `inferred`; a dimension's values past its budget fold into `(other)` in the rollups (raw rows keep the
// real value). Sites under the budget are counted exactly, as before.

/** The rollup value that new values of a dimension past its budget are counted under. */
export const OTHER_VALUE = "(other)";

export interface StateBudget {
  /** Distinct visitors of one site's day held exactly (SVC_VISITOR_BUDGET). */
  readonly visitors: number;
  /** Distinct values of one (actor, dimension) of one site's day counted on their own (SVC_VALUE_BUDGET). */
  readonly values: number;
}

// 250,000 visitors ≈ 195 MB of heap (779 B each): one such site fits next to the ~190 MB the gateway uses
// under full ingest load. A real site of 1,000,000 visitors a day needs SVC_VISITOR_BUDGET=1000000 and
// ~780 MB of heap for its state (node --max-old-space-size=2048 through SVC_NODE_OPTIONS).
export const DEFAULT_VISITOR_BUDGET = 250_000;
// 20,000 values: a large site's distinct pages of a day; a slot costs ~150 B, so even all 14 dimensions
// of all 5 actors at the budget stay under ~210 MB, and a flood of random paths cannot add rollup rows forever.
export const DEFAULT_VALUE_BUDGET = 20_000;

export const UNBOUNDED: StateBudget = { visitors: Number.POSITIVE_INFINITY, values: Number.POSITIVE_INFINITY };

/** What one site's day state did past its budget (for /healthz and the log). */
export interface BudgetUse {
  readonly visitors: number;
  /** Rows of visitors past the budget, each counted as a new visitor. */
  readonly inferredRows: number;
  /** Values of rows (one per row and dimension) counted under `(other)`. */
  readonly foldedValues: number;
}
