// Group commit: raw rows from every site lane are merged into one transaction (one COPY per table) and
// each submitter is told only after that transaction committed, so a 202 always means "on disk". The
// rollup counts of committed submissions go to the rollup ledger, which is flushed about once a second.
//
// A request waits for the commit of its batch, so at a fixed concurrency throughput is bounded by commit
// latency. SVC_WRITER_IN_FLIGHT transactions may run at once (raw-row COPYs take no row locks, so they
// overlap); with PostgreSQL on the same box one at a time measured best, since each then carries more rows.
// The writer only waits `flushMs` to gather a batch when it was idle; when it is busy, whatever arrived
// meanwhile is the next batch.
//
// A batch the database refuses on its data is not retried as it is: refused-rows.ts commits it around the
// refused rows, whose requests alone get a 422.
import { performance } from "node:perf_hooks";
import { Cause, Effect, Queue } from "effect";
import type pg from "pg";
import { ApiError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { isRefusedData } from "./bisect-write.ts";
import { OwnershipLost } from "../cluster/ownership.ts";
import type { EventRow, HitRow, RollupDelta, WriteBatch } from "../storage/rows.ts";
import { commitAroundRefusedRows, type Isolation } from "./refused-rows.ts";
import { ConnectionHold, type Connections } from "./connection-hold.ts";

/** One request's rows inside a submission, and how to answer it. */
export interface SubmissionRequest {
  readonly events: readonly EventRow[];
  readonly hits: readonly HitRow[];
  readonly committed: () => void;
  readonly failed: (error: unknown) => void;
}
import type { FaultInjector } from "../supervision/faults.ts";
import type { PendingCommits } from "./pending-commits.ts";

export interface Submission {
  readonly siteId: number;
  readonly events: EventRow[];
  readonly hits: HitRow[];
  /** The rows' rollup counts: complete once `count` has run, which the writer does before it reads them. */
  readonly rollups: readonly RollupDelta[];
  /**
   * Makes `rollups` (site-lane.ts `LaneTurn`); later calls do nothing. The writer calls it right after the batch's
   * COPY is written, so the counting runs while PostgreSQL works on the commit rather than before the write.
   */
  readonly count: () => void;
  /** Start (ms) of the UTC hour of the earliest row's time stamp. */
  readonly hour: number;
  /** False once the site's state was invalidated after this submission was computed: it must not commit. */
  readonly valid: () => boolean;
  readonly committed: () => void;
  /**
   * The rows were not stored. The site lane answers the requests and, if the submission was still valid,
   * rebuilds its state (and that day's rollups) from the database before taking more rows: its in-memory
   * state, and with commits in flight the rollups, assumed these rows exist.
   */
  readonly failed: (error: unknown) => void;
  /** The same rows split by request, to commit around a refused row (refused-rows.ts). */
  readonly requests: () => SubmissionRequest[];
}

/** Commits one batch on a connection of `connections` (the writer passes its hold: connection-hold.ts). */
export type CommitFn = (connections: Connections, batch: WriteBatch) => Promise<void>;

export interface WriterOptions {
  readonly pool: pg.Pool;
  readonly commit: CommitFn;
  readonly batchMaxRows: number;
  readonly flushMs: number;
  /** Backlog (submissions) at which site lanes wait before handing over more rows. */
  readonly capacity: number;
  /** Transactions in flight at once (SVC_WRITER_IN_FLIGHT). */
  readonly inFlight: number;
  readonly log: Logger;
  /** Submissions handed over and not settled, by hour (read by the rollup flusher). */
  readonly pending: PendingCommits;
  readonly faults: FaultInjector;
  /** Reports a failed commit's error (a lost connection marks the database down). */
  readonly onCommitError: (error: unknown) => void;
  /** The rollup counts of each committed submission: the rollup ledger and the live stream. */
  readonly onCommitted: (rollups: readonly RollupDelta[]) => void;
}

export interface WriterStats {
  batches: number;
  /** Site lanes' hand-overs committed (a batch merges several). */
  submissions: number;
  rows: number;
  failedBatches: number;
  /** Batches the database refused on their data, committed around the refused rows. */
  isolatedBatches: number;
  /** Requests whose rows the database refused (answered 422). */
  refusedRequests: number;
  retries: number;
  backlog: number;
  lastCommitMs: number;
  /**
   * Where the commit cycle goes, summed over the batches committed whole (ms): from taking a batch to PostgreSQL's
   * reply (the COPY's encoding, the round trip, the commit's flush to disk), and from that reply to the commit
   * slot's release (each request's 202, the counts handed to the rollup ledger). At full load the rest of the cycle
   * is the lanes' next turns: `npm run bench` prints the three per commit.
   */
  copyMs: number;
  answerMs: number;
}

// 3 retries over ~1.3 s ride out a PostgreSQL restart or a failover hiccup without holding requests long.
const RETRY_DELAYS_MS = [50, 250, 1000];

export class GroupCommitWriter {
  private readonly queue: Queue.Queue<Submission, Cause.Done>;
  /** Commits in flight, by batch number. */
  private readonly running = new Map<number, Promise<void>>();
  private nextBatch = 0;
  private failing = false;
  /** When the last commit settled (performance.now()). */
  private lastSettledAt = -Infinity;
  /** Submissions taken from the queue by the loop and not yet handed to a commit: failed if the loop crashes. */
  private inHand: Submission[] = [];
  /**
   * Who waits for a commit to settle: the site lanes, resumed first so that their hand-overs are queued when
   * the batching loop, resumed last, takes the queue (one resume of the loop per commit, not one by the
   * settle and one by the first hand-over after it). Callbacks rather than `Promise.race` over the commits in
   * flight: a fiber waiting here is resumed in the settle's own turn, with no promise made per wait.
   */
  private readonly laneWaiters: Array<() => void> = [];
  /** The connections between commits (connection-hold.ts); handed back by `releaseConnections`. */
  private readonly connections: ConnectionHold;
  private loopWaiter: (() => void) | null = null;
  readonly stats: WriterStats = { batches: 0, submissions: 0, rows: 0, failedBatches: 0, isolatedBatches: 0, refusedRequests: 0, retries: 0, backlog: 0, lastCommitMs: 0, copyMs: 0, answerMs: 0 };

  constructor(private readonly options: WriterOptions) {
    this.queue = Effect.runSync(Queue.bounded<Submission, Cause.Done>(options.capacity));
    this.connections = new ConnectionHold(options.pool);
  }

  /** Hands rows over; suspends while the backlog is full so actors' mailboxes absorb the pressure. */
  submit(submission: Submission): Effect.Effect<void> {
    this.options.pending.add(submission, submission.hour);
    // Room in the queue (nearly always): offered now, no Queue.offer effect to run (~0.2 µs a turn alone).
    if (Queue.offerUnsafe(this.queue, submission)) return Effect.void;
    return Effect.asVoid(Queue.offer(this.queue, submission));
  }

  /**
   * Resolves at once while a commit slot is free, otherwise when one frees up. A site lane waits here
   * before it processes its mailbox, so under load it hands over everything that arrived meanwhile as one
   * submission (measured: 1.2 rows a submission without the wait, one submission a batch with it).
   */
  awaitCapacity(): Effect.Effect<void> {
    // Decided when called (the lane yields it at once): no Effect.suspend to run per lane turn.
    return this.running.size < this.options.inFlight ? Effect.void : this.settleOf(this.laneWaiters);
  }

  /**
   * For a site lane before it takes its mailbox: waits for the next commit to settle while the commit slots are
   * full, or while a hand-over is queued that the loop, resumed right after the lanes by the same settle, commits
   * next. Under load the lane's rows then arrive while it waits here and it takes them all at the next settle:
   * one resume of the lane per commit, where waiting for the first row and then for the slot (`awaitCapacity`)
   * made two. An idle loop (gathering for `flushMs` after a quiet spell) is not waited for: rows arriving in
   * its gather still join that batch.
   */
  awaitTurn(): Effect.Effect<void> {
    const next = this.running.size >= this.options.inFlight || (this.loopWaiter !== null && Queue.sizeUnsafe(this.queue) > 0);
    return next ? this.settleOf(this.laneWaiters) : Effect.void;
  }

  /** Resumes at the next settle of a commit (an interrupted waiter's callback is ignored by Effect). */
  private settleOf(waiters: Array<() => void>): Effect.Effect<void> {
    return Effect.callback<void>((resume) => {
      waiters.push(() => resume(Effect.void));
    });
  }

  /** A commit settled: the lanes waiting for it run first, then the batching loop (see `laneWaiters`). */
  private settled(): void {
    for (const resume of this.laneWaiters.splice(0)) resume();
    const loop = this.loopWaiter;
    this.loopWaiter = null;
    loop?.();
  }

  /** Start of the UTC hour of the oldest row handed over and not yet committed, or null. */
  oldestUncommittedHour(): number | null {
    return this.options.pending.oldestHour();
  }

  /** Ends the queue: the loop commits what was already submitted and then returns. */
  end(): Effect.Effect<void> {
    return Effect.asVoid(Queue.end(this.queue));
  }

  /** After the last commit: the held connections back to the pool, which can then end. */
  releaseConnections(): void {
    this.connections.close();
  }

  /** Resolves when every commit started so far has finished (committed or failed). */
  commitsFinished(): Promise<void> {
    return Promise.all(this.running.values()).then(() => undefined);
  }

  /**
   * After a crash of the loop: the submissions it held are answered 503 (their sites rebuild from the
   * database); the queue and the commits in flight are untouched, so the restarted loop goes on with them.
   */
  crashed(error: unknown): void {
    const lost = this.inHand;
    this.inHand = [];
    for (const s of lost) this.answerSubmission(s, error);
    // The lanes that waited for these hand-overs' commit (awaitTurn) wait for no commit now.
    for (const resume of this.laneWaiters.splice(0)) resume();
  }

  /** The batching loop; supervised by the writer's layer, which restarts it after a crash. */
  loop(): Effect.Effect<void> {
    const self = this;
    const maxInFlight = this.options.inFlight;
    return Effect.gen(function* () {
      while (true) {
        if (self.running.size >= maxInFlight || self.failing) {
          yield* Effect.callback<void>((resume) => {
            self.loopWaiter = () => resume(Effect.void);
          });
          continue;
        }
        // Idle means nothing ran for a while: right after a commit the site lanes are already handing over
        // everything that waited for it, and gathering longer only adds latency (with one commit in flight
        // the gather after every commit cut throughput from ~30,000 to 11,749 events/s).
        const idle = self.running.size === 0 && performance.now() - self.lastSettledAt > self.options.flushMs;
        const first = yield* Effect.result(Queue.takeAll(self.queue));
        if (first._tag === "Failure") return; // ended and drained
        let pending = first.success as Submission[];
        self.inHand = pending;
        if (idle && self.options.flushMs > 0 && countRows(pending) < self.options.batchMaxRows) {
          yield* Effect.sleep(self.options.flushMs);
          pending = self.inHand = pending.concat(yield* Queue.clear(self.queue));
        }
        self.options.faults.trip("writer");
        self.inHand = [];
        self.stats.backlog = Queue.sizeUnsafe(self.queue);
        const id = self.nextBatch++;
        self.running.set(
          id,
          self.commit(id, pending).finally(() => {
            self.running.delete(id);
            self.lastSettledAt = performance.now();
            self.settled();
          }),
        );
      }
    });
  }

  private async commit(id: number, submissions: Submission[]): Promise<void> {
    const stale = submissions.filter((s) => !s.valid());
    for (const s of stale) this.answerSubmission(s, new Error("site state was rebuilt"));
    const pending = stale.length === 0 ? submissions : submissions.filter((s) => s.valid());
    if (pending.length === 0) return;
    const batch: WriteBatch = { events: [], hits: [] };
    for (const s of pending) {
      for (const e of s.events) batch.events.push(e);
      for (const h of s.hits) batch.hits.push(h);
    }
    const rows = batch.events.length + batch.hits.length;
    const started = performance.now();
    const write = (): Promise<void> => {
      try {
        // Writes the batch before it returns when the held connection is free (copy-batch.ts), as at full load.
        return this.options.commit(this.connections, batch);
      } finally {
        // The counts are read only once the commit settles; made here, they run while PostgreSQL works.
        for (const s of pending) s.count();
      }
    };
    for (let attempt = 0; ; attempt++) {
      try {
        await write();
        break;
      } catch (error) {
        if (isRefusedData(error)) return this.isolate(id, pending, error);
        // Another gateway may own the site now (cluster/ownership.ts): a retry cannot help, and must not.
        if (error instanceof OwnershipLost) return this.fail(id, pending, error);
        this.options.onCommitError(error);
        const delay = RETRY_DELAYS_MS[attempt];
        if (delay === undefined) return this.fail(id, pending, error);
        this.stats.retries++;
        this.options.log.warn("batch commit failed, retrying", { attempt: attempt + 1, rows, error: describe(error) });
        await new Promise((r) => setTimeout(r, delay));
      }
    }
    const replied = performance.now();
    this.stats.batches++;
    this.stats.submissions += pending.length;
    this.stats.rows += rows;
    this.stats.lastCommitMs = replied - started;
    this.stats.copyMs += replied - started;
    for (const s of pending) {
      this.options.onCommitted(s.rollups);
      this.answerSubmission(s, null);
    }
    this.stats.answerMs += performance.now() - replied;
  }

  private answerSubmission(s: Submission, error: unknown): void {
    this.options.pending.delete(s);
    if (error === null) s.committed();
    else s.failed(error);
  }

  private async fail(id: number, pending: Submission[], error: unknown): Promise<void> {
    // Everything queued behind the failed batch was computed on visitor state that assumed the failed
    // rows exist. Stop taking batches, let the other commit in flight settle, fail what is queued, and
    // have the affected sites rebuild their state (and repair their rollups) from the database.
    this.failing = true;
    await this.othersSettled(id);
    const queued = Effect.runSync(Queue.clear(this.queue));
    const all = pending.concat(queued);
    const sites = new Set(all.map((s) => s.siteId));
    this.stats.failedBatches++;
    this.options.log.error("batch commit failed; requests answered 503", { rows: countRows(all), sites: sites.size, error: describe(error) });
    for (const s of all) this.answerSubmission(s, error);
    this.failing = false;
  }

  private othersSettled(id: number): Promise<unknown> {
    return Promise.allSettled([...this.running].filter(([other]) => other !== id).map(([, p]) => p));
  }

  /** A batch refused on its data: commit around the refused rows; only their requests and sites pay. */
  private async isolate(id: number, pending: Submission[], error: unknown): Promise<void> {
    const started = performance.now();
    const result: Isolation = await commitAroundRefusedRows(this.connections, this.options.commit, pending, error);
    this.stats.isolatedBatches++;
    this.stats.batches++;
    this.stats.lastCommitMs = performance.now() - started;
    let rows = 0;
    let refusedRequests = 0;
    const exact: Submission[] = [...result.committed];
    // Submissions answered request by request: their counts assumed the refused rows.
    const partial: Submission[] = [];
    for (const r of result.refused) {
      // All of its requests committed one by one after all: its counts are exact.
      if (r.refused.length === 0 && r.unfinished === null) {
        exact.push(r.submission);
        continue;
      }
      partial.push(r.submission);
      for (const request of r.committed) {
        rows += request.events.length + request.hits.length;
        request.committed();
      }
      for (const { item, error: refusal } of r.refused) {
        this.options.log.error("rows refused by the database; their request answered 422", { site: r.submission.siteId, error: describe(refusal) });
        item.failed(new ApiError("unstorable"));
      }
      refusedRequests += r.refused.length;
      for (const request of r.unfinished?.requests ?? []) request.failed(r.unfinished!.error);
    }
    for (const s of exact) {
      rows += s.events.length + s.hits.length;
      this.options.onCommitted(s.rollups);
      this.answerSubmission(s, null);
    }
    this.stats.submissions += exact.length;
    this.stats.rows += rows;
    this.stats.refusedRequests += refusedRequests;
    this.options.log.warn("batch refused on its data; committed around the refused rows", { submissions: pending.length, committed_whole: exact.length, refused_requests: refusedRequests, sites_rebuilt: new Set(partial.map((s) => s.siteId)).size });
    if (result.unfinished !== null) {
      for (const s of partial) this.answerSubmission(s, new ApiError("unstorable"));
      return this.fail(id, [...result.unfinished.submissions], result.unfinished.error);
    }
    if (partial.length === 0) return;
    // A refused submission's counts assumed its refused rows: its site rebuilds from the raw rows once every
    // other commit in flight (which may hold its later rows) has settled. Settling it as failed does that (the
    // actor invalidates its state); its requests were already answered one by one, so the second answer is a
    // no-op. Its queued submissions were computed on the same state and fail as stale (503).
    this.failing = true;
    await this.othersSettled(id);
    for (const s of partial) this.answerSubmission(s, new ApiError("unstorable"));
    this.failing = false;
  }
}

const countRows = (subs: readonly Submission[]) => subs.reduce((n, s) => n + s.events.length + s.hits.length, 0);

function describe(error: unknown): string {
  // Database errors carry no request data (rows travel by COPY, not in SQL text), so the message is safe to log.
  return error instanceof Error ? error.message : String(error);
}
