// Group commit: rows from every site actor are merged into one transaction (COPY + rollup upserts)
// and each submitter is told only after that transaction committed, so a 202 always means "on disk".
// The writer waits `flushMs` for a batch to fill unless it already holds `batchMaxRows` rows: at
// 25,000 events/s a 4 ms window gives ~100-row batches while one commit (~3-6 ms) is in flight,
// which is where COPY stops being dominated by per-transaction cost.
import { Cause, Effect, Fiber, Queue } from "effect";
import type pg from "pg";
import type { Logger } from "../log.ts";
import type { EventRow, HitRow, RollupDelta, WriteBatch } from "../storage/rows.ts";

export interface Submission {
  readonly siteId: number;
  readonly events: EventRow[];
  readonly hits: HitRow[];
  readonly rollups: Iterable<RollupDelta>;
  readonly committed: () => void;
  readonly failed: (error: unknown) => void;
}

export type CommitFn = (pool: pg.Pool, batch: WriteBatch) => Promise<void>;

export interface WriterOptions {
  readonly pool: pg.Pool;
  readonly commit: CommitFn;
  readonly batchMaxRows: number;
  readonly flushMs: number;
  /** Backlog (submissions) at which site actors wait before handing over more rows. */
  readonly capacity: number;
  readonly log: Logger;
  /** Sites whose in-memory state no longer matches the database after a failed batch. */
  readonly onSitesInvalidated: (siteIds: ReadonlySet<number>) => void;
  /** Every committed batch, for the live stream. */
  readonly onCommitted?: (rollups: readonly RollupDelta[]) => void;
}

export interface WriterStats {
  batches: number;
  rows: number;
  failedBatches: number;
  retries: number;
  backlog: number;
  lastCommitMs: number;
}

// 3 retries over ~1.3 s ride out a PostgreSQL restart or a failover hiccup without holding requests long.
const RETRY_DELAYS_MS = [50, 250, 1000];

export class GroupCommitWriter {
  private readonly queue: Queue.Queue<Submission, Cause.Done>;
  private fiber: Fiber.Fiber<void, never> | null = null;
  readonly stats: WriterStats = { batches: 0, rows: 0, failedBatches: 0, retries: 0, backlog: 0, lastCommitMs: 0 };

  constructor(private readonly options: WriterOptions) {
    this.queue = Effect.runSync(Queue.bounded<Submission, Cause.Done>(options.capacity));
  }

  /** Hands rows over; suspends while the backlog is full so actors' mailboxes absorb the pressure. */
  submit(submission: Submission): Effect.Effect<void> {
    return Effect.asVoid(Queue.offer(this.queue, submission));
  }

  start(): void {
    this.fiber = Effect.runFork(this.loop());
  }

  /** Commits everything already submitted, then stops. */
  async stop(): Promise<void> {
    await Effect.runPromise(Queue.end(this.queue));
    if (this.fiber) await Effect.runPromise(Fiber.await(this.fiber));
  }

  private loop(): Effect.Effect<void> {
    const self = this;
    return Effect.gen(function* () {
      while (true) {
        const first = yield* Effect.result(Queue.takeAll(self.queue));
        if (first._tag === "Failure") return; // ended and drained
        let pending = first.success as Submission[];
        let rows = countRows(pending);
        if (rows < self.options.batchMaxRows && self.options.flushMs > 0) {
          yield* Effect.sleep(self.options.flushMs);
          pending = pending.concat(yield* Queue.clear(self.queue));
          rows = countRows(pending);
        }
        self.stats.backlog = Queue.sizeUnsafe(self.queue);
        yield* Effect.promise(() => self.commit(pending, rows));
      }
    });
  }

  private async commit(pending: Submission[], rows: number): Promise<void> {
    const batch: WriteBatch = { events: [], hits: [], rollups: [] };
    for (const s of pending) {
      for (const e of s.events) batch.events.push(e);
      for (const h of s.hits) batch.hits.push(h);
      for (const r of s.rollups) batch.rollups.push(r);
    }
    const started = performance.now();
    for (let attempt = 0; ; attempt++) {
      try {
        await this.options.commit(this.options.pool, batch);
        break;
      } catch (error) {
        const delay = RETRY_DELAYS_MS[attempt];
        if (delay === undefined) {
          this.fail(pending, error);
          return;
        }
        this.stats.retries++;
        this.options.log.warn("batch commit failed, retrying", { attempt: attempt + 1, rows, error: describe(error) });
        await new Promise((r) => setTimeout(r, delay));
      }
    }
    this.stats.batches++;
    this.stats.rows += rows;
    this.stats.lastCommitMs = performance.now() - started;
    for (const s of pending) s.committed();
    this.options.onCommitted?.(batch.rollups);
  }

  private fail(pending: Submission[], error: unknown): void {
    // Everything queued behind the failed batch was computed on visitor state that assumed the
    // failed rows exist; fail it too and let the affected sites rebuild their state from the database.
    const queued = Effect.runSync(Queue.clear(this.queue));
    const all = pending.concat(queued);
    const sites = new Set(all.map((s) => s.siteId));
    this.stats.failedBatches++;
    this.options.log.error("batch commit failed; requests answered 503", { rows: countRows(all), sites: sites.size, error: describe(error) });
    this.options.onSitesInvalidated(sites);
    for (const s of all) s.failed(error);
  }
}

const countRows = (subs: readonly Submission[]) => subs.reduce((n, s) => n + s.events.length + s.hits.length, 0);

function describe(error: unknown): string {
  // Database errors carry no request data (rows travel by COPY, not in SQL text), so the message is safe to log.
  return error instanceof Error ? error.message : String(error);
}
