// Writes the ledger's rollup counts to the rollup tables every `intervalMs`, apart from the raw rows' commits.
//
// Why apart: upserting each batch's counts in the batch's own transaction made every commit take the rollup
// rows' locks, so commits could not overlap, and the upsert was most of each commit's time — 7,000 rows/s
// at 64 connections against 15,000 without it (`npm run bench`). Once a second, the counts of ~1,700
// batches collapse into the ~1,500 keys they touched (`rollup_keys_per_flush` in the bench's output).
//
// Exactness is kept three ways. The ledger holds only counts of committed rows. Reads that must see every
// acknowledged row call `flushBeforeRead()`, which flushes first. And each flush records in `rollup_repair` the
// earliest hour whose counts are still only in memory: a gateway killed before its next flush finds that
// mark at boot and recomputes those days from the raw rows (`repairAfterCrash`) before taking traffic.
//
// One key the database refuses (rollup-writes.ts) is left out of its flush and reported (a log line and
// `refusedKeys` in /healthz) instead of failing the flush: a failing flush keeps every site's counts out of the
// tables, and reads, which flush first, would fail with it.
import { performance } from "node:perf_hooks";
import { Effect } from "effect";
import type pg from "pg";
import type { Logger } from "../log.ts";
import type { FaultInjector } from "../supervision/faults.ts";
import type { PendingCommits } from "../writer/pending-commits.ts";
import { recountDay } from "./day-rows.ts";
import { type RefusedRollup, readRepairMark, replaceDayRollups, setRepairMark, writeRollups } from "./rollup-writes.ts";
import type { RollupDelta } from "../storage/rows.ts";
import { RollupLedger } from "./ledger.ts";
import { DAY_MS, HOUR_MS } from "@svc/core";


/** Writes the deltas and the repair mark; returns the deltas the database refused (not written). */
export type WriteRollupsFn = (pool: pg.Pool, deltas: readonly RollupDelta[], lagFromHour: number | null) => Promise<readonly RefusedRollup[] | void>;

export interface RollupFlusherOptions {
  readonly pool: pg.Pool;
  readonly intervalMs: number;
  readonly now: () => number;
  readonly log: Logger;
  /** Rows handed to the writer and not yet committed or failed: the earliest one's hour bounds the repair mark. */
  readonly pending: PendingCommits;
  readonly faults: FaultInjector;
  /** Reports a failed write's error (a lost connection marks the database down). */
  readonly onWriteError: (error: unknown) => void;
  /** False while the database is known to be down: the periodic flush skips its turn instead of failing it. */
  readonly databaseUp: () => boolean;
  /** Replaceable by tests that need a failing rollup write. */
  readonly write?: WriteRollupsFn;
  /**
   * Called in the same tick as the ledger is taken. The writer adds each commit's counts to the ledger and to the
   * live hub together, so sending the hub's pending deltas here means a read that flushed first includes exactly
   * the commits whose deltas were already sent: a dashboard that reloads its numbers while deltas stream in
   * counts each row once (with the hub's own 500 ms cadence, a delta could follow a read that already held it).
   */
  readonly onLedgerTaken?: () => void;
}

export interface RollupFlushStats {
  flushes: number;
  keys: number;
  failures: number;
  /** Rollup deltas the database refused, left out of the tables (each logged). */
  refusedKeys: number;
  lastFlushMs: number;
  /** Counts of committed rows not yet in the rollup tables (summed entries). */
  readonly held: number;
}

/** A flush whose write failed (the database refused it or is down): its counts are held for the next one. */
export class RollupWriteFailed extends Error {
  override readonly name = "RollupWriteFailed";
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

export class RollupFlusher {
  readonly ledger = new RollupLedger();
  readonly stats: RollupFlushStats;
  /** Flushes and repairs run one at a time, in call order. */
  private lane: Promise<void> = Promise.resolve();
  /** A flush waiting on the lane and not yet started: later callers join it. */
  private queued: Promise<void> | null = null;
  /** The repair mark last written; undefined until the first flush, which always writes it. */
  private mark: number | null | undefined = undefined;
  private readonly write: WriteRollupsFn;

  constructor(private readonly options: RollupFlusherOptions) {
    this.write = options.write ?? writeRollups;
    const ledger = this.ledger;
    this.stats = {
      flushes: 0,
      keys: 0,
      failures: 0,
      refusedKeys: 0,
      lastFlushMs: 0,
      get held() {
        return ledger.size;
      },
    };
  }

  /**
   * The periodic flush, supervised by the flusher's layer. A failed write is logged by flushOnce and its
   * counts stay held for the next one; anything else thrown (a bug) crashes the loop, which is restarted.
   */
  loop(): Effect.Effect<void> {
    const tick = Effect.tryPromise({ try: () => this.flush(), catch: (error) => error }).pipe(
      Effect.catch((error) => (error instanceof RollupWriteFailed ? Effect.void : Effect.die(error))),
    );
    const turn = Effect.suspend(() => (this.options.databaseUp() ? tick : Effect.void));
    return Effect.forever(Effect.andThen(Effect.sleep(this.options.intervalMs), turn));
  }

  /** Resolves once every count committed before the call is in the rollup tables. */
  flushBeforeRead(): Promise<void> {
    return this.flush();
  }

  flush(): Promise<void> {
    if (this.queued) return this.queued;
    const flush = this.inLane(() => {
      this.queued = null;
      return this.flushOnce(false);
    });
    this.queued = flush;
    return flush;
  }

  /** Runs `work` (a recomputation of some rollups) with no flush in progress. */
  exclusive<T>(work: (ledger: RollupLedger) => Promise<T>): Promise<T> {
    return this.inLane(() => work(this.ledger));
  }

  /** After the writer has stopped: writes what is held and clears the repair mark (a clean stop). */
  finalFlush(): Promise<void> {
    return this.inLane(() => this.flushOnce(true));
  }

  /** Counts and logs deltas the database refused (a flush's, or a recount's written by replaceDayRollups). */
  reportRefused(refused: readonly RefusedRollup[] | void): void {
    if (!refused || refused.length === 0) return;
    this.stats.refusedKeys += refused.length;
    logRefused(this.options.log, refused);
  }

  private inLane<T>(work: () => Promise<T>): Promise<T> {
    const run = this.lane.then(work);
    this.lane = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async flushOnce(final: boolean): Promise<void> {
    const taken = this.ledger.take();
    this.options.onLedgerTaken?.();
    // Rows still on their way to a commit were stamped no earlier than the hour before now (an actor
    // stamps rows with its clock, a middleware's timestamp is kept only within the current hour).
    const now = this.options.now();
    const uncommitted = this.options.pending.oldestHour();
    const lagFrom = final && uncommitted === null ? null : Math.min(now - (now % HOUR_MS) - HOUR_MS, uncommitted ?? Infinity);
    if (taken.length === 0 && lagFrom === this.mark) return;
    const started = performance.now();
    try {
      this.options.faults.trip("rollup_flusher");
    } catch (crash) {
      this.ledger.restore(taken); // a crash with counts in hand must not lose them
      throw crash;
    }
    try {
      this.reportRefused(await this.write(this.options.pool, taken, lagFrom));
    } catch (error) {
      this.ledger.restore(taken);
      this.stats.failures++;
      this.options.onWriteError(error);
      this.options.log.warn("rollup flush failed; counts kept for the next one", { keys: taken.length, error: error instanceof Error ? error.message : String(error) });
      throw new RollupWriteFailed(error);
    }
    this.mark = lagFrom;
    this.stats.flushes++;
    this.stats.keys += taken.length;
    this.stats.lastFlushMs = performance.now() - started;
  }
}

/**
 * At boot, before any traffic: if the last gateway did not stop cleanly, recount every site's rollups for
 * the days from the repair mark's day to today from the raw rows (a day of 333,333 rows takes ~4.5 s here: bench:read recounts 30 such days in 136 s). Then mark from the hour before now, so a
 * crash before the first flush is repaired too.
 */
export async function repairAfterCrash(pool: pg.Pool, now: number, log: Logger): Promise<void> {
  const from = await readRepairMark(pool);
  if (from !== null) {
    const started = performance.now();
    const { rows: sites } = await pool.query<{ id: number }>("select id from sites order by id");
    let days = 0;
    for (let day = from - (from % DAY_MS); day <= now; day += DAY_MS) {
      for (const site of sites) {
        const { counts } = await recountDay(pool, site.id, day, { counts: true });
        logRefused(log, await replaceDayRollups(pool, site.id, day, counts));
      }
      days++;
    }
    log.warn("the last gateway did not stop cleanly: rollups recomputed from raw rows", { from: new Date(from).toISOString(), days, sites: sites.length, ms: Math.round(performance.now() - started) });
  }
  await setRepairMark(pool, now - (now % HOUR_MS) - HOUR_MS);
}

function logRefused(log: Logger, refused: readonly RefusedRollup[]): void {
  // The value is visitor-supplied text (a page, a UTM value): the line names the key by everything else.
  for (const { item, error } of refused) {
    log.error("rollup key refused by the database; left out of the rollups", {
      site: item.site_id,
      hour: new Date(item.hour).toISOString(),
      actor: item.actor,
      dim: item.dim,
      value_chars: item.value.length,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
