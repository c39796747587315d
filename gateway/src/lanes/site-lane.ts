// A site lane: one fiber per active site with a bounded mailbox (called a lane, not an actor, because
// "actor" is the traffic label of a row: human, bot, ai_crawler …). It alone owns the site's salt of the day, the
// visitor and visit state and the stamping of time, so per-site rows are hashed, attributed to their visit,
// counted and handed to the writer in order without locks. The IP reaches a lane only to be hashed with its
// salt (when offered) and is dropped at the lane's turn.
import { Buffer } from "node:buffer";
import { performance } from "node:perf_hooks";
import { Cause, Effect, Queue } from "effect";
import type pg from "pg";
import { type Clock, DAY_MS, HOUR_MS, utcDay, utcDayStart, visitorHashKeyOfAddress } from "@svc/core";
import { ApiError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { EventRow, HitRow, RollupDelta } from "../storage/rows.ts";
import type { GroupCommitWriter } from "../writer/group-commit.ts";
import type { FaultInjector } from "../supervision/faults.ts";
import { recountDay, replayRows } from "../rollups/day-rows.ts";
import { type DeltaSink, type RollupRow, RollupState, type Visitor, markConsumed, newDeltaSink, sinkDeltas } from "../rollups/rollup-state.ts";
import type { DayState } from "./snapshot.ts";
import { VisitState } from "./visit-state.ts";
import type { BudgetUse, StateBudget } from "./state-budget.ts";
import { markVisitorBudgetDay } from "../storage/budget-days.ts";

/**
 * An enriched row waiting for its site, time stamp and visitor hash: `row` holds every column already (those
 * three as placeholders the lane overwrites), so rows keep one object shape from enrichment to COPY. `ip` is the
 * client's address in canonical form (`addressOfEntry`, a decoded hit's `canonicalIp`), or "" when unknown: the
 * lane hashes it as it is (`visitorHashKeyOfAddress`). `key` is that hash made ahead with the salt `hashedWith`
 * when the row was offered (`SiteLane.offer`); "" and null until then.
 */
export type PendingRow =
  | { readonly kind: "event"; ip: string; readonly ua: string; key: string; hashedWith: Buffer | null; readonly row: EventRow & { readonly kind: "event" } }
  | { readonly kind: "hit"; ip: string; readonly ua: string; key: string; hashedWith: Buffer | null; readonly requestedTs: number | null; readonly row: HitRow & { readonly kind: "hit" } };

export interface IngestMessage {
  readonly rows: PendingRow[];
  readonly done: (error?: unknown) => void;
}

export interface SiteLaneDeps {
  readonly pool: pg.Pool;
  readonly clock: Clock;
  readonly writer: GroupCommitWriter;
  readonly log: Logger;
  readonly loadSalt: (siteId: number, day: string) => Promise<Buffer>;
  /** Replaces one site's rollups of one UTC day with a recount of its raw rows (and forgets its unwritten counts). */
  readonly replaceDay: (siteId: number, dayStart: number, counts: readonly RollupDelta[]) => Promise<void>;
  readonly faults: FaultInjector;
  /** Visitors and values per dimension of a day held exactly (state-budget.ts). */
  readonly budget: StateBudget;
  /** Rows of a day's replay between two turns of the event loop (SVC_REPLAY_BATCH_ROWS). */
  readonly replayBatchRows: number;
  /** Several gateways on one database: the site's lock, taken before the lane's first write; null = one gateway. */
  readonly ownership: LaneOwnership | null;
}

/**
 * What a site lane's turn does with each row, in order: the visitor hash (the address is dropped there), the stamp
 * (site, time, hash) and the visit rule (events), collecting the rows in COPY order; then `count`, the rollup
 * counters of those rows in the same order. One object a turn, its `add` a row: `npm run bench:event-path`
 * (bench/src/event-path.ts) runs this same code to count the lane's share of a row's work.
 *
 * Why the counters wait for `count`: a row's COPY needs its stamp and visit, not its counts, and at full load the
 * lane's turn runs between a commit's reply and the next COPY's write, where it delays every row. The writer calls
 * `count` right after that write (group-commit.ts), while PostgreSQL works on it; the lane calls it before its next
 * turn in case the writer has not yet, and the counts are read only after the commit (gateway/README.md "Nineteenth
 * pass" has the figures). The counters read nothing the visit rule writes (a visitor's `visit`), and the rule reads
 * nothing they write, so the rows' order is all the two share.
 */
export class LaneTurn {
  readonly events: EventRow[] = [];
  readonly hits: HitRow[] = [];
  readonly rollups: DeltaSink = newDeltaSink();
  /** Start (ms) of the UTC hour of `now`. */
  readonly hourStart: number;
  /** Rows added and not yet counted, in order, each with its visitor (`RollupState.visitorOf`): `count` takes them. */
  private readonly uncounted: RollupRow[] = [];
  private readonly uncountedVisitors: Array<Visitor | null> = [];

  constructor(
    private readonly siteId: number,
    private readonly salt: Buffer,
    private readonly now: number,
    private readonly state: RollupState,
    private readonly visits: VisitState,
  ) {
    this.hourStart = now - (now % HOUR_MS);
  }

  add(pending: PendingRow): void {
    // The hash as a latin1 string is the state's key; its bytes are the stored column. Made ahead at the offer
    // with this day's salt nearly always; after a new day's salt (or a rebuilt state's) it is made here.
    const key = pending.hashedWith === this.salt ? pending.key : visitorHashKeyOfAddress(this.salt, this.siteId, pending.ip, pending.ua);
    const visitor_hash = Buffer.from(key, "latin1");
    pending.ip = "";
    // The enriched row is stamped in place: no copy per row on the hot path.
    if (pending.kind === "event") {
      const row = pending.row;
      row.site_id = this.siteId;
      row.ts = this.now;
      row.visitor_hash = visitor_hash;
      // One lookup of the visitor for both states (VisitState.attribute).
      const visitor = this.state.visitorOf(key, row);
      this.visits.attribute(row, key, visitor);
      this.events.push(row);
      this.uncounted.push(row);
      this.uncountedVisitors.push(visitor);
    } else {
      // A middleware's own timestamp is kept when it lies in the current hour (it batches for
      // at most ~1 s); anything else would land in a bucket whose visitor state is gone.
      const t = pending.requestedTs;
      const row = pending.row;
      row.site_id = this.siteId;
      row.ts = t !== null && t >= this.hourStart && t <= this.now ? t : this.now;
      row.visitor_hash = visitor_hash;
      this.hits.push(row);
      this.uncounted.push(row);
      this.uncountedVisitors.push(this.state.visitorOf(key, row));
    }
  }

  /** Counts the rows added since the last call into the day's rollups and `rollups`, in the order they were added. */
  count(): void {
    const rows = this.uncounted;
    const visitors = this.uncountedVisitors;
    for (let i = 0; i < rows.length; i++) this.state.observeAs(rows[i]!, this.rollups, visitors[i]!);
    rows.length = 0;
    visitors.length = 0;
  }
}

/** What a lane needs of cluster/ownership.ts. */
export interface LaneOwnership {
  owns(siteId: number): boolean;
  /** Takes the site's lock on the owner session; false when another gateway holds it. */
  acquire(siteId: number): Promise<boolean>;
  /** Another gateway holds the site: ask it to let go (it does once the site is quiet there). */
  requestRelease(siteId: number): void;
}

// How long a lane taking a site over holds the requests that wait for it before answering them 503: a site
// with a short day (a few thousand rows) is ready well within it; a long one answers 503 + Retry-After
// until its state is rebuilt, never a 202 it could not commit, and holds nothing meanwhile.
const TAKEOVER_WAIT_MS = 250;

/** The answer while a site is owned by another gateway or being taken over from the raw rows. */
export const siteMoving = (): ApiError =>
  new ApiError("unavailable", "this site is moving between gateways; retry", undefined, { "retry-after": "1" });

/** What a request whose rows were in a crashed lane's hands is answered with (a 503 by the ingest pipeline). */
const READY = { _tag: "Success" } as const;

export class LaneRestarted extends Error {
  override readonly name = "LaneRestarted";
}

export class SiteLane {
  private readonly mailbox: Queue.Queue<IngestMessage, Cause.Done>;
  private state: RollupState | null = null;
  private visits: VisitState | null = null;
  /** Today's state from the last clean stop (snapshot.ts), taken up at the first message. */
  private restored: DayState | null = null;
  private salt: Buffer | null = null;
  private day = "";
  private stale = false;
  /** Cluster: the ownership check and state rebuild in progress (requests do not wait for it past TAKEOVER_WAIT_MS). */
  private preparing: Promise<void> | null = null;
  /** Whether the day's state passing its budget was logged, and its inferred visitors recorded (once a day). */
  private budgetLogged = false;
  private inferredRecorded = false;
  /** Bumped when the state is invalidated: submissions computed on an older state must not commit. */
  private generation = 0;
  /** Messages taken from the mailbox and not yet handed to the writer: answered 503 if the loop crashes. */
  private inHand: readonly IngestMessage[] = [];
  /** The last turn's `count`, until it has run (the writer runs it after the turn's COPY is written: `LaneTurn`). */
  private uncountedTurn: (() => void) | null = null;
  /** Submissions handed to the writer and not yet settled, and who waits for them to settle. */
  private outstanding = 0;
  private readonly onSettled: Array<() => void> = [];
  /** The clock's time of the last message offered (for the idle sweep). */
  lastActiveAt: number;
  rejected = 0;

  constructor(
    readonly siteId: number,
    mailboxSize: number,
    private readonly deps: SiteLaneDeps,
  ) {
    this.mailbox = Effect.runSync(Queue.bounded<IngestMessage, Cause.Done>(mailboxSize));
    this.lastActiveAt = deps.clock.now();
  }

  /** Nothing in the mailbox, in hand or on its way to a commit: the lane can be dropped without loss. */
  get idle(): boolean {
    return this.depth === 0 && this.inHand.length === 0 && this.outstanding === 0;
  }

  get depth(): number {
    return Queue.sizeUnsafe(this.mailbox);
  }

  get visitorsToday(): number {
    return this.state?.visitors ?? 0;
  }

  /** Today's state when it went past its budget (its visitor counts inferred, or values folded); else null. */
  get overBudget(): (BudgetUse & { readonly visitorsInferred: boolean }) | null {
    const state = this.state;
    if (state === null || (!state.visitorsInferred && state.budgetUse.foldedValues === 0)) return null;
    return { ...state.budgetUse, visitorsInferred: state.visitorsInferred };
  }

  /**
   * Distinct visitors seen in the last `windowMs`, per actor. Waits for today's state to be loaded
   * (after a restart it is rebuilt from the day's rows first).
   */
  recentVisitors(windowMs: number): Promise<Record<string, number>> {
    return new Promise((resolve, reject) => {
      const ok = this.offer({
        rows: [],
        done: (error) => (error === undefined ? resolve(this.state?.recentVisitors(this.deps.clock.now() - windowMs) ?? {}) : reject(error)),
      });
      if (!ok) reject(new Error("mailbox full"));
    });
  }

  /**
   * False when the mailbox is full: the caller answers 503 and nothing was taken. An offered row's visitor hash is
   * made here, in the request's handler, with the salt of the day when it is loaded: the lane's turn runs between a
   * commit's reply and the next COPY, so each row's SHA-256 there (~1–1.7 µs, 38 rows a commit at full load) held
   * the next commit back, while handlers run as PostgreSQL works on the current one.
   */
  offer(message: IngestMessage): boolean {
    const now = (this.lastActiveAt = this.deps.clock.now());
    if (!Queue.offerUnsafe(this.mailbox, message)) {
      this.rejected++;
      return false;
    }
    const salt = this.salt;
    if (salt !== null && this.dayReady(now)) {
      for (const pending of message.rows) {
        pending.key = visitorHashKeyOfAddress(salt, this.siteId, pending.ip, pending.ua);
        pending.hashedWith = salt;
      }
    }
    return true;
  }

  /** The database no longer matches the in-memory state (a batch failed): rebuild before the next message. */
  invalidate(): void {
    this.stale = true;
    this.generation++;
    // Its rows are not committed as counted: the state they would count into is rebuilt from the database.
    this.uncountedTurn = null;
  }

  /** Ends the mailbox: the loop processes what is already in it, then returns. */
  end(): Effect.Effect<void> {
    return Effect.asVoid(Queue.end(this.mailbox));
  }

  /** Before `start`: the state a clean stop saved; rows committed after it are replayed at the first message. */
  restore(state: DayState): void {
    this.restored = state;
  }

  /** After `stop`: the state of the day, unless it no longer matches the raw rows (a batch failed). */
  snapshot(): DayState | null {
    if (this.stale || this.state === null || this.visits === null) return this.restored;
    this.uncountedTurn?.();
    return { state: this.state, visits: this.visits };
  }

  /**
   * After a crash of the loop: the requests in hand and those waiting in the mailbox are answered 503, and
   * the state is dropped; once the submissions already handed to the writer settle, the restarted loop
   * rebuilds it (and repairs the day's rollups) from the database, as after a failed batch.
   */
  crashed(error: unknown): Effect.Effect<void> {
    const self = this;
    return Effect.gen(function* () {
      const failure = new LaneRestarted(`site lane restarted after a crash (${error instanceof Error ? error.message : String(error)})`);
      const lost = self.inHand.concat(yield* Queue.clear(self.mailbox));
      self.inHand = [];
      for (const m of lost) m.done(failure);
      self.invalidate();
      yield* Effect.callback<void>((resume) => {
        if (self.outstanding === 0) resume(Effect.void);
        else self.onSettled.push(() => resume(Effect.void));
      });
    });
  }

  /** The mailbox loop; supervised by the lane registry, which restarts it after a crash. */
  loop(): Effect.Effect<void> {
    const self = this;
    return Effect.gen(function* () {
      while (true) {
        // Under load the next hand-over's rows arrive while a commit runs: the lane waits for that commit first
        // and then takes them, without a wait for them (writer.awaitTurn). When the mailbox was empty (low load)
        // the first row wakes the lane, which then waits for a commit slot as before.
        yield* self.deps.writer.awaitTurn();
        const waited = Queue.sizeUnsafe(self.mailbox) === 0;
        const taken = yield* Effect.result(Queue.takeAll(self.mailbox));
        if (taken._tag === "Failure") return;
        self.inHand = taken.success;
        if (waited) yield* self.deps.writer.awaitCapacity();
        // What arrived while waiting for a commit slot joins this hand-over; nothing did (low load): no Queue.clear
        // effect to run (~0.2 µs a turn in a tight loop, each yield of a lane turn about as much).
        const messages = (self.inHand = Queue.sizeUnsafe(self.mailbox) === 0 ? taken.success : taken.success.concat(yield* Queue.clear(self.mailbox)));
        const now = self.deps.clock.now();
        // The day's state is nearly always ready (and, in a cluster, the site owned): no promise for it then.
        const ready = self.dayReady(now) && (self.deps.ownership === null || self.deps.ownership.owns(self.siteId))
          ? READY
          : yield* Effect.result(Effect.tryPromise({ try: () => self.ready(now), catch: (error) => error }));
        if (ready._tag === "Failure") {
          if (!(ready.failure instanceof ApiError)) self.deps.log.error("site state unavailable; requests answered 503", { site: self.siteId, error: String(ready.failure) });
          self.inHand = [];
          for (const m of messages) m.done(ready.failure);
          continue;
        }
        self.deps.faults.trip("site_lane", self.siteId);
        const submission = self.process(messages, now);
        self.inHand = [];
        self.outstanding++;
        yield* self.deps.writer.submit(submission);
      }
    });
  }

  /** Resolves once every submission handed to the writer has committed or failed. */
  settled(): Promise<void> {
    return new Promise((resolve) => {
      if (this.outstanding === 0) resolve();
      else this.onSettled.push(resolve);
    });
  }

  /**
   * The state for `now`'s rows. With one gateway the requests wait for a rebuild (as after a restart). In a
   * cluster they wait at most TAKEOVER_WAIT_MS and are answered 503 meanwhile: a site taken over may have a
   * long day to replay, and another gateway may hold it.
   */
  private ready(now: number): Promise<void> {
    const ownership = this.deps.ownership;
    if (ownership === null) return this.prepareDay(now);
    if (this.preparing === null) {
      if (ownership.owns(this.siteId) && !this.stale && this.state !== null && utcDay(now) === this.day) return Promise.resolve();
      const preparing = (this.preparing = this.prepareDay(now));
      preparing.then(
        () => (this.preparing = null),
        () => (this.preparing = null),
      );
    }
    const preparing = this.preparing;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(siteMoving()), TAKEOVER_WAIT_MS);
      preparing.then(
        () => (clearTimeout(timer), resolve()),
        (error: unknown) => (clearTimeout(timer), reject(error)),
      );
    });
  }

  private submissionSettled(): void {
    if (--this.outstanding > 0) return;
    for (const resume of this.onSettled.splice(0)) resume();
  }

  /** Whether today's salt and state are loaded and current (`prepareDay` has nothing to do). */
  private dayReady(now: number): boolean {
    return this.state !== null && !this.stale && now >= this.state.dayStart && now < this.state.dayStart + DAY_MS;
  }

  /** Loads the salt of `now`'s day and rebuilds the visitor state when the day changed or it went stale. */
  private async prepareDay(now: number): Promise<void> {
    const day = utcDay(now);
    if (day === this.day && !this.stale && this.state) return;
    const restored = this.restored;
    this.restored = null;
    const dayStart = utcDayStart(now);
    const { pool, log, ownership, replayBatchRows: batchRows } = this.deps;
    let recounted: DayState & { rows: number } | null = null;
    if (ownership !== null && !ownership.owns(this.siteId)) {
      // Submissions computed before the site was lost must not commit under the new ownership.
      this.invalidate();
      if (!(await ownership.acquire(this.siteId))) {
        ownership.requestRelease(this.siteId);
        throw siteMoving();
      }
      // Taken over (from a killed, paused or departed gateway, or back after a lost session): its unwritten
      // counts died with it, so the rollups of the days its rows may still be in are recounted from the raw
      // rows, and today's recount is the visitor state: a visitor it saw counts once here.
      const started = performance.now();
      let rows = 0;
      // The replacement's share is the time the owner session (every commit of this gateway) is busy with it.
      let replaceMs = 0;
      for (const day of new Set([utcDayStart(now - HOUR_MS), dayStart])) {
        const recount = await recountDay(pool, this.siteId, day, { counts: true, batchRows }, this.deps.budget);
        const replacing = performance.now();
        await this.deps.replaceDay(this.siteId, day, recount.counts);
        replaceMs += performance.now() - replacing;
        rows += recount.rows;
        if (day === dayStart) recounted = recount;
      }
      log.info("site taken over: rollups and state rebuilt from the raw rows", { site: this.siteId, rows, ms: Math.round(performance.now() - started), replace_ms: Math.round(replaceMs) });
    } else if (this.stale && this.state) {
      // After a failed batch, a batch committed meanwhile may hold counts that assumed the failed rows:
      // recount that day from the raw rows and replace its rollups; the recount is also today's state.
      const stale = this.state.dayStart;
      const recount = await recountDay(pool, this.siteId, stale, { counts: true, batchRows }, this.deps.budget);
      await this.deps.replaceDay(this.siteId, stale, recount.counts);
      if (stale === dayStart) recounted = recount;
    }
    // Only today's salt is ever held; yesterday's is dropped here and deleted from the database
    // by the maintenance fiber, so past hashes cannot be recomputed.
    this.salt = null;
    this.state = null;
    this.visits = null;
    const salt = await this.deps.loadSalt(this.siteId, day);
    if (recounted === null && restored !== null && !this.stale && restored.state.dayStart === dayStart) {
      // A clean stop saved today's state: only rows committed after it are replayed (none, normally).
      restored.state.budget = this.deps.budget;
      restored.visits.budget = this.deps.budget;
      const { rows } = await replayRows(pool, restored, restored.state.watermark + 1, { counts: false, batchRows });
      log.info("site state restored from the last clean stop", { site: this.siteId, rows_after: rows, visitors: restored.state.visitors });
      recounted = { ...restored, rows: 0 };
    }
    const { state, visits, rows } = recounted ?? (await recountDay(pool, this.siteId, dayStart, { counts: false, batchRows }, this.deps.budget));
    if (rows > 0) log.info("site state rebuilt from today's rows", { site: this.siteId, rows, visitors: state.visitors });
    this.salt = salt;
    this.state = state;
    this.visits = visits;
    if (this.day !== day) this.budgetLogged = this.inferredRecorded = false;
    this.day = day;
    this.stale = false;
  }

  private process(messages: readonly IngestMessage[], now: number) {
    // The previous turn's rows are counted before this turn's: when its commit was not yet written (a slot was free,
    // or it waits behind another site's hand-over), they are counted here.
    this.uncountedTurn?.();
    const state = this.state!;
    const turn = new LaneTurn(this.siteId, this.salt!, now, state, this.visits!);
    const { events, hits } = turn;
    // Where each message's rows end in `events` and `hits`: lets the writer commit request by request
    // around a row the database refuses (writer/refused-rows.ts).
    const ends: number[] = [];
    for (const message of messages) {
      for (const pending of message.rows) turn.add(pending);
      ends.push(events.length, hits.length);
    }
    if (!this.inferredRecorded && state.visitorsInferred) {
      // The read API marks the day's visitors inferred from this row on; a lost write is retried with the next batch.
      this.inferredRecorded = true;
      markVisitorBudgetDay(this.deps.pool, this.siteId, state.dayStart).catch((error: unknown) => {
        this.inferredRecorded = false;
        this.deps.log.warn("could not record a day past the visitor budget", { site: this.siteId, error: String(error) });
      });
    }
    const count = (): void => {
      turn.count();
      if (this.uncountedTurn === count) this.uncountedTurn = null;
      // Values fold into (other) as they are counted, so the budget is checked once the turn is.
      if (!this.budgetLogged && this.overBudget !== null) {
        this.budgetLogged = true;
        this.deps.log.warn("site past its memory budget today: new visitors count as new on every row (visitor counts inferred), new values fold into (other)", {
          site: this.siteId, day: this.day, visitor_budget: this.deps.budget.visitors, value_budget: this.deps.budget.values, ...this.overBudget,
        });
      }
    };
    this.uncountedTurn = count;
    const generation = this.generation;
    return {
      siteId: this.siteId,
      valid: () => generation === this.generation,
      events,
      hits,
      rollups: sinkDeltas(turn.rollups),
      count,
      hour: turn.hourStart,
      committed: () => {
        // The writer handed the commit's deltas to the ledger, the live stream and the peers before this.
        markConsumed(turn.rollups);
        this.submissionSettled();
        for (const m of messages) m.done();
      },
      failed: (error: unknown) => {
        markConsumed(turn.rollups);
        // A submission that failed while its state was current leaves that state (and maybe the day's
        // rollups, with other commits in flight) assuming rows that do not exist: rebuild both.
        if (generation === this.generation) {
          this.invalidate();
          // Rows the database refused on their data (writer/refused-rows.ts): the database is up, so the site
          // rebuilds now rather than at its next request. After an outage it waits for the next request.
          if (error instanceof ApiError && error.reason === "unstorable") Queue.offerUnsafe(this.mailbox, { rows: [], done: () => undefined });
        }
        this.submissionSettled();
        for (const m of messages) m.done(error);
      },
      requests: () =>
        messages.map((m, i) => ({
          events: events.slice(i === 0 ? 0 : ends[2 * i - 2], ends[2 * i]),
          hits: hits.slice(i === 0 ? 0 : ends[2 * i - 1], ends[2 * i + 1]),
          committed: () => m.done(),
          failed: (error: unknown) => m.done(error),
        })),
    };
  }
}
