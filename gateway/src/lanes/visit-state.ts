// Today's visits of one site: the visit rule, applied by the site lane to each browser-script row before it
// is counted and written.
//
// A visit is the script rows (`/api/event`) of one visitor hash with gaps under 30 minutes; the hash changes
// at 00:00 UTC, so a visit never spans days. Its entry row decides, for every pageview and event of the
// visit, the source, referrer host, channel and UTM values and — when the entry came from an assistant —
// actor `human_via_ai` with its assistant. A person who lands from ChatGPT and reads two more pages is one
// `human_via_ai` visitor with three pageviews from ChatGPT, not also a `human` visitor from "Direct / None".
// Only rows the classifier labelled `human` or `human_via_ai` take part: `bot`, `ai_crawler` and `ai_agent`
// rows are never re-labelled, and middleware hits keep their per-row labels.
//
// The attributed values are what the raw row stores (plus its own referrer host), so the rollups, the day's
// replay (day-rows.ts) and the tests' recomputation from raw rows all read one set of values. Replaying
// stored rows through `attribute` changes nothing: each stored row already carries its visit's values.
//
// Memory: one Map entry and one 2-field record per visitor of the day, plus one attribution record per
// visit whose entry differs from the previous (about 60 B + 10 references). Past the visitor budget
// (state-budget.ts) a new visitor's rows keep their own labels: no visit is opened for it.
import { VISIT_RULES } from "@svc/core";
import type { EventRow } from "../storage/rows.ts";
import { type StateBudget, UNBOUNDED } from "./state-budget.ts";

/** 30 minutes: the inactivity that ends a visit, as in every mainstream web analytics product. */
export const VISIT_GAP_MS = 30 * 60_000;

/** The columns the visit rule reads: what a visit's entry row decides for the whole visit, and when. */
export const VISIT_COLUMNS = [
  "ts", "actor", "ai_name", "rule", "source", "referrer_host", "channel", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content",
] as const;
export type VisitRow = Pick<EventRow, (typeof VISIT_COLUMNS)[number]>;

export type Attribution = Readonly<Omit<VisitRow, "ts" | "rule">>;

export interface Visit {
  /** Time stamp (ms) of the visit's latest row. */
  lastTs: number;
  entry: Attribution;
}

const takesPart = (actor: string): boolean => actor === "human" || actor === "human_via_ai";

export class VisitState {
  private readonly visits = new Map<string, Visit>();

  /** The gateway's budget; a visitor past `budget.visitors` gets no visit. */
  constructor(public budget: StateBudget = UNBOUNDED) {}

  get size(): number {
    return this.visits.size;
  }

  /**
   * Applies the visit rule to one script row of the visitor `hashKey`, in place. Rows of one site arrive in
   * time order. The rule recorded for a label the row takes from its visit says so (VISIT_RULES).
   *
   * `visitor` is the row's visitor in the lane's rollup state (RollupState.visitorOf), whose `visit` keeps this
   * state's record once found: the lane's one lookup of the hash then serves both states. The Map stays the
   * record's owner (the budget, the snapshot, the replay). Two lookups of one fresh 32-character key in two
   * maps of the day's visitors were ~2 % of the gateway's CPU samples at 35,000 events/s (perf; the visit
   * state's ~1.5 %); see gateway/README.md "Fifteenth pass".
   */
  attribute(row: VisitRow, hashKey: string, visitor: { visit: Visit | null } | null = null): void {
    if (!takesPart(row.actor)) return;
    let visit = visitor?.visit ?? this.visits.get(hashKey);
    if (visit === undefined) {
      if (this.visits.size >= this.budget.visitors) return;
      this.visits.set(hashKey, (visit = { lastTs: row.ts, entry: attributionOf(row) }));
      if (visitor !== null) visitor.visit = visit;
      return;
    }
    // Stored once: a store into an old visitor record each row would cost a write barrier.
    if (visitor !== null && visitor.visit === null) visitor.visit = visit;
    if (row.ts - visit.lastTs >= VISIT_GAP_MS) {
      visit.lastTs = row.ts;
      visit.entry = attributionOf(row);
      return;
    }
    visit.lastTs = row.ts;
    const e = visit.entry;
    if (row.actor !== e.actor || row.ai_name !== e.ai_name) {
      row.rule = e.actor === "human_via_ai" ? VISIT_RULES.assistantReferral : VISIT_RULES.entry;
      row.actor = e.actor;
      row.ai_name = e.ai_name;
    }
    row.source = e.source;
    row.referrer_host = e.referrer_host;
    row.channel = e.channel;
    row.utm_source = e.utm_source;
    row.utm_medium = e.utm_medium;
    row.utm_campaign = e.utm_campaign;
    row.utm_term = e.utm_term;
    row.utm_content = e.utm_content;
  }

  /**
   * Follows a stored row (the day's replay, day-rows.ts) without changing it: the row already carries its
   * visit's values, and the recount must count what is stored.
   */
  replay(row: VisitRow, hashKey: string): void {
    if (!takesPart(row.actor)) return;
    const visit = this.visits.get(hashKey);
    if (visit === undefined && this.visits.size >= this.budget.visitors) return;
    if (visit === undefined) this.visits.set(hashKey, { lastTs: row.ts, entry: attributionOf(row) });
    else {
      if (row.ts - visit.lastTs >= VISIT_GAP_MS) visit.entry = attributionOf(row);
      visit.lastTs = row.ts;
    }
  }

  /** The state as plain data (snapshot.ts): per visitor, its hash key, last time stamp and entry. */
  *entries(): Iterable<readonly [hashKey: string, lastTs: number, entry: Attribution]> {
    for (const [key, v] of this.visits) yield [key, v.lastTs, v.entry];
  }

  /** Restores one visitor's open visit from `entries()`. */
  restore(hashKey: string, lastTs: number, entry: Attribution): void {
    this.visits.set(hashKey, { lastTs, entry });
  }
}

function attributionOf(row: VisitRow): Attribution {
  return {
    actor: row.actor,
    ai_name: row.ai_name,
    source: row.source,
    referrer_host: row.referrer_host,
    channel: row.channel,
    utm_source: row.utm_source,
    utm_medium: row.utm_medium,
    utm_campaign: row.utm_campaign,
    utm_term: row.utm_term,
    utm_content: row.utm_content,
  };
}
