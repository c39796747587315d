// The query engine's admission queue: every piece of work on the engine's DuckDB (a query's statements, a
// funnel's, a filter check) waits here for one of a few running slots, first come first served, so a burst —
// the site view sends about a dozen queries at once — runs as a line instead of all at once: with every
// statement sharing 2 threads and one memory limit, nothing finished early and some ran out of memory
// (README "Benchmarks", bench:explorer). First in, first out also means a view's first-sent query (its tiles)
// answers first. The line is bounded in length and in waiting time; past either, the caller gets a 503
// `overloaded` with Retry-After instead of waiting without end or holding memory for a client long gone.
//
// A statement that ran out of memory while others ran beside it may fit alone: it is tried once more, alone
// (at the head of the line, nothing else admitted while it runs). One that failed alone fails for good.
//
// Work whose client has gone (`gone`: the site view asked a newer question and closed the old request) is
// dropped when its turn comes instead of run: the site view's first engine query on load (its visit tiles,
// ~0.8 s over 10M rows) and the cards behind it otherwise ran before the tiles of a filter clicked meanwhile
// (bench:explorer: the click's tiles after 3.7–4.6 s instead of 1.2–1.5 s on a quiet box).
import { performance } from "node:perf_hooks";
import { ApiError } from "../errors.ts";

/**
 * Queries running on the engine's DuckDB at once. 1: each already uses DuckDB's 2 threads, and the site view's
 * burst answered its tiles first after 1.4–2.5 s with one running against 2.3–13 s with two, all of it in about
 * the same time and CPU (query/engine.ts header).
 */
export const QUERY_RUNNING = 1;
/** About five site views' worth of queries (a dozen each) waiting at once. */
export const QUERY_QUEUED = 64;
/**
 * 30 s: longer than a person waits for a card; a query that waited this long is better answered 503 (its
 * client retries or has gone) than run late while newer ones wait behind it.
 */
export const QUERY_WAIT_MS = 30_000;

export interface AdmissionLimits {
  /** Pieces of work running at once. */
  readonly running: number;
  /** Pieces of work waiting at most; one more is answered 503 at once. */
  readonly queued: number;
  /** The longest a piece of work waits for its slot before it is answered 503. */
  readonly waitMs: number;
}

interface Waiter {
  readonly alone: boolean;
  readonly gone: () => boolean;
  readonly drop: () => void;
  readonly start: () => void;
  readonly timer: NodeJS.Timeout;
}

/** A running piece of work: `shared` once another ran at any moment beside it. */
interface Slot {
  shared: boolean;
}

/**
 * Slow work first thing after boot (DuckDB opening, today's rows copied once) would make the first estimate
 * of Retry-After too long; 500 ms is about one filtered query over 10M rows on a quiet box (bench:query).
 */
const FIRST_ESTIMATE_MS = 500;
/** How much one finished piece of work moves the running estimate of a piece's duration (an EWMA). */
const ESTIMATE_WEIGHT = 0.2;

export interface AdmissionStats {
  readonly running: number;
  readonly queued: number;
  /** Work answered 503 because the line was full or the wait too long, since boot. */
  readonly refused: number;
  /** Work tried again alone after running out of memory beside others, since boot. */
  readonly retriedAlone: number;
  /** Work dropped at its turn because its client had gone, since boot. */
  readonly dropped: number;
}

export class AdmissionQueue {
  private readonly active = new Set<Slot>();
  private readonly waiting: Waiter[] = [];
  /** A piece of work tried again alone is running: nothing else starts until it ends. */
  private exclusive = false;
  private estimateMs = FIRST_ESTIMATE_MS;
  private refused = 0;
  private retriedAlone = 0;
  private dropped = 0;

  constructor(private readonly limits: AdmissionLimits) {}

  get stats(): AdmissionStats {
    return { running: this.active.size, queued: this.waiting.length, refused: this.refused, retriedAlone: this.retriedAlone, dropped: this.dropped };
  }

  /**
   * Runs `work` once a slot is free. When it fails with an error `fitsAlone` accepts (out of memory) after
   * sharing the engine with other work, it is run once more alone and that answer stands. When `gone` says
   * the client has left by the time its turn comes, it does not run: a `client_closed` ApiError instead.
   */
  async run<T>(work: () => Promise<T>, fitsAlone: (error: unknown) => boolean = () => false, gone: () => boolean = () => false): Promise<T> {
    const slot = await this.admit(false, gone);
    try {
      return await this.runIn(slot, work);
    } catch (error) {
      if (!slot.shared || !fitsAlone(error)) throw error;
      this.retriedAlone++;
    }
    // It waited its turn already: the retry goes to the head of the line.
    return this.runIn(await this.admit(true, gone), work);
  }

  private async runIn<T>(slot: Slot, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.estimateMs += ESTIMATE_WEIGHT * (performance.now() - started - this.estimateMs);
      this.active.delete(slot);
      if (this.exclusive && this.active.size === 0) this.exclusive = false;
      this.next();
    }
  }

  private admit(alone: boolean, gone: () => boolean): Promise<Slot> {
    if (this.waiting.length === 0 && this.canStart(alone)) return Promise.resolve(this.occupy(alone));
    if (!alone && this.waiting.length >= this.limits.queued) {
      this.refused++;
      return Promise.reject(this.overloaded(`${this.limits.queued} queries are already waiting for the query engine`));
    }
    return new Promise<Slot>((resolve, reject) => {
      const waiter: Waiter = {
        alone,
        gone,
        drop: () => {
          clearTimeout(waiter.timer);
          this.dropped++;
          reject(new ApiError("client_closed"));
        },
        start: () => {
          clearTimeout(waiter.timer);
          resolve(this.occupy(alone));
        },
        timer: setTimeout(() => {
          const at = this.waiting.indexOf(waiter);
          if (at >= 0) this.waiting.splice(at, 1);
          this.refused++;
          reject(this.overloaded(`the query waited ${(this.limits.waitMs / 1000).toLocaleString("en")} s for the query engine without starting`));
          // A waiter alone at the head held the others back: they may start now.
          this.next();
        }, this.limits.waitMs),
      };
      if (alone) this.waiting.unshift(waiter);
      else this.waiting.push(waiter);
    });
  }

  private canStart(alone: boolean): boolean {
    return !this.exclusive && (alone ? this.active.size === 0 : this.active.size < this.limits.running);
  }

  private occupy(alone: boolean): Slot {
    const slot: Slot = { shared: false };
    if (this.active.size > 0) {
      slot.shared = true;
      for (const other of this.active) other.shared = true;
    }
    this.active.add(slot);
    if (alone) this.exclusive = true;
    return slot;
  }

  /** Starts waiters from the head while their turn allows; the head blocks the rest (first in, first out). */
  private next(): void {
    while (this.waiting.length > 0) {
      const head = this.waiting[0]!;
      if (head.gone()) {
        this.waiting.shift();
        head.drop();
      } else if (this.canStart(head.alone)) this.waiting.shift()!.start();
      else break;
    }
  }

  /**
   * 503 with Retry-After: the seconds the line ahead needs at the pace work has been finishing (the estimate
   * of one piece's duration, times the pieces ahead, over the slots), at least 1.
   */
  private overloaded(why: string): ApiError {
    const retryAfter = Math.max(1, Math.ceil(((this.waiting.length + this.active.size) * this.estimateMs) / this.limits.running / 1000));
    return new ApiError("overloaded", `query engine overloaded: ${why}; retry in ${retryAfter} s`, undefined, { "retry-after": String(retryAfter) });
  }
}
