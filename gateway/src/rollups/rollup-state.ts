// Today's exact visitor state for one site, and the rollup deltas each new row produces.
//
// A visitor is one hash on one day. For every (actor, dimension, value) counter the state knows which
// visitors it already counted today and in which hour last, so a row adds 1 visitor to a rollup bucket
// exactly when its hash is new there: the rollups equal COUNT(DISTINCT visitor_hash) over the raw rows of
// that day (and hour) for every breakdown value.
//
// That knowledge is kept per visitor — the counters it was counted in, with the hour of the last count —
// not per counter: a visitor touches a few dozen counters a day, so a short list scanned by reference
// beats hashing into per-counter sets of every visitor of the day (those hash lookups were 10 % of the
// gateway's CPU at 20,000 rows/s). A visitor with more than 32 counters (a crawler walking the site)
// gets a Map instead.
//
// Memory: each distinct hash of the day costs its 32-char latin1 key, a Map entry and the visitor record;
// each distinct (visitor, actor, dimension, value) pair then costs two array slots (~16 B), or a Map entry
// (~40 B) past 32 pairs. Measured (`npm run bench:visitors`): 552 B of heap per visitor whose one row
// touches 14 counters, so 100,000 visitors a day ≈ 55 MB (9 B of it the scan cursor of countIn, 8 B the
// reference to the visitor's open visit).
//
// A page's visitors are the visitors who viewed it (a pageview or a hit): a custom event counts on its page's
// events only, so a page never has more visitors than viewers.
//
// Besides the five actors, each visitor is counted once more, in the `total` counter of the pseudo-actor
// `all`: a person counted under two actors on one day (a human who later arrives via an assistant) is one
// visitor there, so `actor=all` totals are exact instead of summed over actors (one more counter a visitor).
// Its visitors are people and AI agents: AI crawlers and bots add their hits there but no visitor (a crawler
// fetching from a thousand addresses is not a thousand visitors of the site; the dashboard shows them as hits).
//
// Both the visitors and each dimension's values have a budget (lanes/state-budget.ts): past it, a new
// visitor's rows count as new visitors without being remembered, and new values count under `(other)`.
import { HOUR_MS, ruleValue } from "@svc/core";
import type { LedgerSlot } from "./ledger.ts";
import type { EventRow, HitRow, RollupDelta } from "../storage/rows.ts";
import { type BudgetUse, OTHER_VALUE, type StateBudget, UNBOUNDED } from "../lanes/state-budget.ts";
import type { Visit } from "../lanes/visit-state.ts";

export const DIMENSIONS = [
  "total", "page", "source", "channel", "utm_source", "utm_medium", "utm_campaign",
  "country", "device", "browser", "os", "event", "ai_name", "status_class", "rule",
] as const;

/** The rollup actor of the exact all-actor `total` counter. */
export const EVERY_ACTOR = "all";
export type Dimension = (typeof DIMENSIONS)[number];

/** The columns of events and hits the rollups read; events add `name`, hits `status` (ROLLUP_OWN_COLUMNS). */
export const ROLLUP_COLUMNS = [
  "ts", "actor", "page", "source", "channel", "utm_source", "utm_medium", "utm_campaign",
  "country", "device", "browser", "os", "ai_name", "rule", "visitor_hash",
] as const;
export const ROLLUP_OWN_COLUMNS = { event: "name", hit: "status" } as const;
type RollupColumns = (typeof ROLLUP_COLUMNS)[number];

/** A row as the rollups see it: the shared columns of events and hits, plus which kind it is. */
export type RollupRow =
  | ({ kind: "event" } & Pick<EventRow, RollupColumns | typeof ROLLUP_OWN_COLUMNS.event>)
  | ({ kind: "hit" } & Pick<HitRow, RollupColumns | typeof ROLLUP_OWN_COLUMNS.hit>);

// Status classes are interned once: a string built per row would be hashed anew at every lookup.
const STATUS_CLASSES = ["0xx", "1xx", "2xx", "3xx", "4xx", "5xx"];

/**
 * Calls `visit` for each (dimension, value) pair one row counts under, without allocating: `context` is passed
 * through, so a caller needs no closure per row. Missing
 * values of always-present dimensions count under "" (direct traffic, unknown country), so each
 * dimension's values sum to the total; the sparse ones (UTM, AI name) are skipped when absent to keep
 * human rows small. `rule` (why a row is not human: the classifier's rule and the name it matched) is
 * counted for `bot`, `ai_crawler` and `ai_agent` rows only. `index` is the dimension's position in DIMENSIONS.
 */
export function forEachDimension<C>(row: RollupRow, visit: (context: C, dim: Dimension, value: string, index: number) => void, context: C): void {
  visit(context, "total", "", 0);
  visit(context, "page", row.page, 1);
  visit(context, "source", row.source ?? "", 2);
  visit(context, "channel", row.channel, 3);
  visit(context, "country", row.country ?? "", 7);
  visit(context, "device", row.device, 8);
  visit(context, "browser", row.browser ?? "", 9);
  visit(context, "os", row.os ?? "", 10);
  if (row.utm_source !== null) visit(context, "utm_source", row.utm_source, 4);
  if (row.utm_medium !== null) visit(context, "utm_medium", row.utm_medium, 5);
  if (row.utm_campaign !== null) visit(context, "utm_campaign", row.utm_campaign, 6);
  if (row.ai_name !== null) visit(context, "ai_name", row.ai_name, 12);
  if (row.kind === "event") visit(context, "event", row.name, 11);
  else visit(context, "status_class", STATUS_CLASSES[Math.floor(row.status / 100)] ?? `${Math.floor(row.status / 100)}xx`, 13);
  if (row.actor === "bot" || row.actor === "ai_crawler" || row.actor === "ai_agent") visit(context, "rule", ruleValue(row.rule, row.ai_name), 14);
}


/** One (actor, dimension, value) counter of the day. */
interface Slot extends LedgerSlot {
  /** Its position in the state's list of counters: how a snapshot refers to it. */
  readonly id: number;
  readonly actor: string;
  readonly dim: Dimension;
  readonly value: string;
  /** This slot's delta in the batch being built (`sink`), so a row finds it without a lookup. */
  delta: RollupDelta | null;
  sink: DeltaSink | null;
}

/** Past this many counters a visitor's list becomes a Map. */
const LIST_MAX = 32;

/** One visitor of the day: the counters it was counted in, and the hour it was last counted in each. */
export interface Visitor {
  lastSeen: number;
  lastActor: string;
  slots: Slot[];
  hours: number[];
  /** Where the list's scan starts: where the row's next counter is expected (countIn, cursorAfter; 0 after a row). */
  cursor: number;
  index: Map<Slot, number> | null;
  /**
   * The visitor's open visit in the lane's VisitState, once the visit rule has found it there: the site lane
   * looks a row's visitor up once (`visitorOf`) for both states (lanes/visit-state.ts `attribute`).
   */
  visit: Visit | null;
}

/** The deltas one batch of rows adds. */
export interface DeltaSink {
  readonly deltas: RollupDelta[];
  /** Nothing reads these deltas any more (markConsumed): a counter may reuse its delta object for a later batch. */
  consumed: boolean;
}

export function newDeltaSink(): DeltaSink {
  return { deltas: [], consumed: false };
}

export function sinkDeltas(sink: DeltaSink): readonly RollupDelta[] {
  return sink.deltas;
}

/**
 * Says that a batch's deltas were read for the last time: its submission settled, so the rollup ledger, the live
 * stream and the peers have copied the counts of a commit, or the batch is dropped. Each counter then resets its
 * delta object for its next batch instead of allocating one. The deltas were 300–420 of the ~2,600 bytes the
 * in-process event path allocated a row (3.3 deltas a row, V8's sampling heap profiler), and each was held by its
 * counter, an old object, until the next batch: copied and promoted by the young generation's collections. The
 * in-process work a row went 5.40 → 4.66 µs of CPU (medians of 10 rounds) and the gateway's mark-compacts from 4–5
 * to 1 in 15 s at full ingest load (gateway/README.md "Fourteenth pass").
 */
export function markConsumed(sink: DeltaSink): void {
  sink.consumed = true;
}

const NEW_TODAY = 0;
const NEW_THIS_HOUR = 1;
const COUNTED = 2;

/**
 * Whether `visitor` was already counted in `slot` today and this hour, recording that it now is. A visitor
 * past the budget (null) is not remembered: each of its rows is new.
 */
function countIn(visitor: Visitor | null, slot: Slot, hour: number): typeof NEW_TODAY | typeof NEW_THIS_HOUR | typeof COUNTED {
  if (visitor === null) return NEW_TODAY;
  let i: number;
  // A visitor restored from a snapshot gets its Map when it comes back, not at boot for every visitor.
  if (visitor.index === null && visitor.slots.length > LIST_MAX) visitor.index = new Map(visitor.slots.map((s, j) => [s, j]));
  if (visitor.index === null) {
    // A row visits its counters in forEachDimension's order, the order a visitor's list was first filled in:
    // a scan that starts past the counter found last finds the next one at once, where one from the start
    // passed half the list each time (−1.6 % of the in-process work a row, `npm run bench:event-path --
    // --instructions`, fourteenth pass). A counter new to the visitor still costs the whole list.
    const slots = visitor.slots;
    const n = slots.length;
    const from = visitor.cursor;
    for (i = from; i < n && slots[i] !== slot; i++);
    if (i === n) {
      for (i = 0; i < from && slots[i] !== slot; i++);
      if (i === from) {
        slots.push(slot);
        visitor.hours.push(hour);
        visitor.cursor = cursorAfter(slots, from, n, slot);
        if (slots.length > LIST_MAX) visitor.index = new Map(slots.map((s, j) => [s, j]));
        return NEW_TODAY;
      }
    }
    visitor.cursor = i === from ? i + 1 : cursorAfter(slots, from, i, slot);
  } else {
    const found = visitor.index.get(slot);
    if (found === undefined) {
      visitor.index.set(slot, visitor.slots.length);
      visitor.slots.push(slot);
      visitor.hours.push(hour);
      return NEW_TODAY;
    }
    i = found;
  }
  if (visitor.hours[i] === hour) return COUNTED;
  visitor.hours[i] = hour;
  return NEW_THIS_HOUR;
}

/**
 * Where the scan for a visitor's next counter starts once `slot` was found at `at`, or appended there, instead of at
 * the cursor `from`. When the counter at `from` is the same actor's and dimension's with another value (the row's page
 * or event name changed), the next dimension's counter follows that one, not the one found: a new page used to leave
 * the cursor on the old page, so the next dimension missed `countDimension`'s guess as well. Otherwise this row
 * skipped a dimension of the list, and the next one follows the counter found.
 */
function cursorAfter(slots: readonly Slot[], from: number, at: number, slot: Slot): number {
  const atFrom = slots[from];
  return atFrom !== undefined && atFrom !== slot && atFrom.dim === slot.dim && atFrom.actor === slot.actor ? from + 1 : at + 1;
}

/** What `observe` knows of the row it is counting, while forEachDimension walks its values. */
interface ObserveTurn {
  visitor: Visitor | null;
  hour: number;
  out: DeltaSink | null;
  pageviews: number;
  events: number;
  hits: number;
  actor: string;
  dims: Map<string, Slot>[];
}

const countDimension = (state: RollupState, dim: Dimension, value: string, index: number): void => state.countDimension(dim, value, index);

/** One counter of the day, as a snapshot lists it (position = counter id). */
export type Counter = readonly [actor: string, dim: Dimension, value: string];

export class RollupState {
  private readonly visitorsByHash = new Map<string, Visitor>();
  /** The row `observe` is counting, for `countDimension`: a closure per row over these was ~0.1 µs of its ~2. */
  private readonly turn: ObserveTurn = { visitor: null, hour: 0, out: null, pageviews: 0, events: 0, hits: 0, actor: "", dims: [] };
  /** actor → dimension (by index in DIMENSIONS) → value → slot. Lookups use the row's own strings, whose hashes V8 caches. */
  private readonly slots = new Map<string, Map<string, Slot>[]>();
  /** Every slot, by id. */
  private readonly slotList: Slot[] = [];
  /** The all-actor total counter, kept at hand: every row counts in it. */
  private allTotal: Slot | null = null;
  /** The latest time stamp (ms) counted: a snapshot covers the rows up to it. */
  private latest: number;
  /** Rows of visitors past the budget, each counted as a new one, and row values folded into `(other)`. */
  private inferredRows = 0;
  private foldedValues = 0;
  private lookups = 0;

  constructor(
    readonly siteId: number,
    /** ms at 00:00 UTC of the day this state covers. */
    readonly dayStart: number,
    /** How many visitors and values per dimension are kept exactly (state-budget.ts); a restored state gets the gateway's. */
    public budget: StateBudget = UNBOUNDED,
  ) {
    this.latest = dayStart - 1;
  }

  get visitors(): number {
    return this.visitorsByHash.size;
  }

  /**
   * What the day did past its budget. A state at its visitor budget counts as past it too: after a restore
   * from a snapshot the rows counted beyond it are not known, only that the budget was reached.
   */
  get budgetUse(): BudgetUse {
    return { visitors: this.visitorsByHash.size, inferredRows: this.inferredRows, foldedValues: this.foldedValues };
  }

  /** The day's visitor counts are an upper bound, not exact: visitors past the budget were not remembered. */
  get visitorsInferred(): boolean {
    return this.inferredRows > 0 || this.visitorsByHash.size >= this.budget.visitors;
  }

  /**
   * The value Maps' lookups `countDimension` made: a row's counter not found at its visitor's cursor (a new visitor,
   * another page or source). `npm run bench:event-path` prints it for the ingest bench's scenario: 0.40 a row, 4.2 % of
   * the counters (1.48 and 15.7 % before `cursorAfter` and the reset after a row); `npm run bench:visitors` for its rows.
   */
  get valueLookups(): number {
    return this.lookups;
  }

  get watermark(): number {
    return this.latest;
  }

  /** Distinct visitors seen since `since` (ms), per actor of their latest row. */
  recentVisitors(since: number): Record<string, number> {
    const out: Record<string, number> = {};
    for (const v of this.visitorsByHash.values()) {
      if (v.lastSeen >= since) out[v.lastActor] = (out[v.lastActor] ?? 0) + 1;
    }
    return out;
  }

  /**
   * Adds one row to the state and its counts to `out`. Rows of one site arrive in time order. `hashKey` is
   * the visitor hash as a latin1 string, when the caller already made it.
   */
  observe(row: RollupRow, out: DeltaSink, hashKey: string = row.visitor_hash.toString("latin1")): void {
    this.observeAs(row, out, this.visitorOf(hashKey, row));
  }

  /** `observe` for the row's visitor as `visitorOf` gave it: the site lane looks it up before the visit rule runs. */
  observeAs(row: RollupRow, out: DeltaSink, visitor: Visitor | null): void {
    const hour = row.ts - (row.ts % HOUR_MS);
    if (row.ts > this.latest) this.latest = row.ts;
    // Stamped here, not in visitorOf: the visit rule may have relabelled the row since (lanes/visit-state.ts).
    if (visitor !== null) {
      visitor.lastSeen = row.ts;
      visitor.lastActor = row.actor;
    }
    const pageviews = row.kind === "event" && row.name === "pageview" ? 1 : 0;
    const events = row.kind === "event" && pageviews === 0 ? 1 : 0;
    const hits = row.kind === "hit" ? 1 : 0;
    const actor = row.actor;
    const turn = this.turn;
    turn.visitor = visitor;
    turn.hour = hour;
    turn.out = out;
    turn.pageviews = pageviews;
    turn.events = events;
    turn.hits = hits;
    turn.actor = actor;
    turn.dims = this.dimsOf(actor);
    forEachDimension(row, countDimension, this);
    turn.visitor = null;
    turn.out = null;
    this.allTotal ??= this.newSlot(EVERY_ACTOR, "total", "");
    this.count(visitor, this.allTotal, hour, out, pageviews, events, hits, actor !== "ai_crawler" && actor !== "bot");
    // The next row starts with its actor's `total`, which is the visitor's first counter unless its actor changed.
    // Left past the all-actor total, the cursor pointed at whatever a later row had appended (a second page), and
    // the guess missed the first counter of 30 % of the bench scenario's rows.
    if (visitor !== null) visitor.cursor = 0;
  }

  /** One (dimension, value) of the row `observe` is counting (`turn`). */
  countDimension(dim: Dimension, value: string, index: number): void {
    const turn = this.turn;
    const visitor = turn.visitor;
    // The counter at the visitor's cursor is the one its previous row counted next (countIn), and a visitor's
    // device, browser, OS and country never change: when it is this (actor, dimension, value), it is the only such
    // counter, found without the value Map's lookup. In the gateway, where the Maps are out of the cache by the next
    // row, their lookups here fell from 2.0–2.4 % of its perf samples to ~0.3 %; in process (bench:event-path,
    // bench:visitors) the Maps stay cached and it gains nothing (gateway/README.md "Fifteenth pass").
    let slot = visitor === null ? undefined : visitor.slots[visitor.cursor];
    if (slot === undefined || slot.value !== value || slot.dim !== dim || slot.actor !== turn.actor) slot = this.valueSlot(dim, value, index);
    // A page's visitors are those who viewed it: a custom event sent from a page adds to its events, not
    // to its visitors (index 1 is `page`; one comparison per dimension, no extra lookup).
    this.count(visitor, slot, turn.hour, turn.out!, turn.pageviews, turn.events, turn.hits, index !== 1 || turn.events === 0);
  }

  /** The counter of (the turn's actor, `dim`, `value`), made when new; `(other)` past the values' budget. */
  private valueSlot(dim: Dimension, value: string, index: number): Slot {
    const turn = this.turn;
    this.lookups++;
    const byValue = turn.dims[index]!;
    let slot = byValue.get(value);
    if (!slot) {
      if (byValue.size >= this.budget.values) {
        this.foldedValues++;
        slot = byValue.get(OTHER_VALUE);
        if (!slot) byValue.set(OTHER_VALUE, (slot = this.newSlot(turn.actor, dim, OTHER_VALUE)));
      } else byValue.set(value, (slot = this.newSlot(turn.actor, dim, value)));
    }
    return slot;
  }

  /**
   * The row's visitor, added when new; null for a new one past the budget (its rows count as new visitors).
   * Once a row: `observeAs` the same row with it, which stamps the visitor with the row.
   */
  visitorOf(hashKey: string, row: RollupRow): Visitor | null {
    let visitor = this.visitorsByHash.get(hashKey);
    if (visitor === undefined) {
      if (this.visitorsByHash.size >= this.budget.visitors) {
        this.inferredRows++;
        return null;
      }
      visitor = { lastSeen: row.ts, lastActor: row.actor, slots: [], hours: [], cursor: 0, index: null, visit: null };
      this.visitorsByHash.set(hashKey, visitor);
    }
    return visitor;
  }

  /**
   * Adds one row's counts to `slot`'s delta in `out`, and the visitor when it is new there this hour or today;
   * `countsVisitor` false: the row adds its counts only (a custom event to its page).
   */
  private count(visitor: Visitor | null, slot: Slot, hour: number, out: DeltaSink, pageviews: number, events: number, hits: number, countsVisitor = true): void {
    const seen = countsVisitor ? countIn(visitor, slot, hour) : COUNTED;
    let d = slot.delta;
    const sink = slot.sink;
    if (sink !== out || d === null || d.hour !== hour) {
      if (d !== null && sink !== out && sink!.consumed) {
        d.hour = hour;
        d.pageviews = d.events = d.hits = d.visitors_hour = d.visitors_day = 0;
      } else {
        d = { site_id: this.siteId, hour, actor: slot.actor, dim: slot.dim, value: slot.value, pageviews: 0, events: 0, hits: 0, visitors_hour: 0, visitors_day: 0, slot };
        slot.delta = d;
      }
      out.deltas.push(d);
      slot.sink = out;
    }
    d.pageviews += pageviews;
    d.events += events;
    d.hits += hits;
    if (seen !== COUNTED) d.visitors_hour++;
    if (seen === NEW_TODAY) d.visitors_day++;
  }

  private dimsOf(actor: string): Map<string, Slot>[] {
    let byDim = this.slots.get(actor);
    if (!byDim) this.slots.set(actor, (byDim = DIMENSIONS.map(() => new Map<string, Slot>())));
    return byDim;
  }

  private newSlot(actor: string, dim: Dimension, value: string): Slot {
    const slot: Slot = { id: this.slotList.length, actor, dim, value, delta: null, sink: null, ledgerEntry: null, ledgerEpoch: -1 };
    this.slotList.push(slot);
    return slot;
  }

  // ---- Snapshot (snapshot.ts): the state as counters and, per visitor, counter ids with hours of the day.

  /** Every counter of the day, in id order. */
  counters(): Counter[] {
    return this.slotList.map((s) => [s.actor, s.dim, s.value] as const);
  }

  /**
   * Calls `visit` per visitor with its hash key, last row's time and actor, and the counters it was counted
   * in (by id) with the start (ms) of the hour it was last counted in each.
   */
  forEachVisitor(visit: (hashKey: string, lastSeen: number, lastActor: string, counterIds: readonly { readonly id: number }[], hours: readonly number[]) => void): void {
    for (const [key, v] of this.visitorsByHash) visit(key, v.lastSeen, v.lastActor, v.slots, v.hours);
  }

  /** A state with the counters of a snapshot and no visitors yet; `restoreVisitor` adds them. */
  static restoring(siteId: number, dayStart: number, watermark: number, counters: readonly Counter[]): RollupState {
    const state = new RollupState(siteId, dayStart);
    state.latest = watermark;
    for (const [actor, dim, value] of counters) {
      const slot = state.newSlot(actor, dim, value);
      if (actor === EVERY_ACTOR) state.allTotal = slot;
      else state.dimsOf(actor)[DIMENSIONS.indexOf(dim)]!.set(value, slot);
    }
    return state;
  }

  /** Adds one visitor of a snapshot: its first `n` counter ids and hours of the day (0..23), pairwise. */
  restoreVisitor(hashKey: string, lastSeen: number, lastActor: string, n: number, counterIds: ArrayLike<number>, hours: ArrayLike<number>): void {
    const visitor: Visitor = { lastSeen, lastActor, slots: new Array<Slot>(n), hours: new Array<number>(n), cursor: 0, index: null, visit: null };
    for (let i = 0; i < n; i++) {
      const slot = this.slotList[counterIds[i]!];
      if (slot === undefined) throw new RangeError(`snapshot refers to counter ${counterIds[i]} of ${this.slotList.length}`);
      visitor.slots[i] = slot;
      visitor.hours[i] = this.dayStart + hours[i]! * HOUR_MS;
    }
    this.visitorsByHash.set(hashKey, visitor);
  }
}
