// The order in which the site view's questions reach POST /api/v2/query. A filtered view asks about eight at
// once (tiles, chart, one per visible card tab, goals) and the gateway answers them from one embedded DuckDB of
// 2 threads, 0.3–0.8 s each over 10M rows: sent together, every answer waited for all the others and the tiles
// came about seventh. Here the tiles go first, the chart second, the cards after; at most 2 are in flight (the
// engine's 2 threads: a third would only share them, so the first answer would come later); one body is asked
// once while it is queued or in flight; a question nobody waits for any more (the filters changed again) leaves
// the queue, or has its request aborted. While the tiles' question is in flight nothing else is sent: two sent
// together reach the engine in either order, and the chart's first put ~0.8 s before the tiles over 10M rows
// (bench:explorer, quiet box: the click's numbers after 2.0–2.2 s with the chart beside them).
export type QueryPriority = "tiles" | "chart" | "card";
const RANK: Readonly<Record<QueryPriority, number>> = { tiles: 0, chart: 1, card: 2 };
export const MAX_IN_FLIGHT = 2;

type Send<T> = (body: unknown, signal: AbortSignal) => Promise<T>;

interface Entry<T> {
  readonly key: string;
  readonly body: unknown;
  rank: number;
  readonly seq: number;
  waiters: number;
  started: boolean;
  readonly controller: AbortController;
  readonly answer: Promise<T>;
  settle: { resolve: (value: T) => void; reject: (error: unknown) => void };
}

export class QueryQueue<T> {
  private readonly byKey = new Map<string, Entry<T>>();
  private waiting: Entry<T>[] = [];
  private running = 0;
  /** The tiles' question is in flight: the rest waits for its answer. */
  private tilesInFlight = false;
  private seq = 0;
  private pumpTimer: ReturnType<typeof setTimeout> | null = null;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly send: Send<T>,
    private readonly limit = MAX_IN_FLIGHT,
  ) {}

  /** The answer to `body`; rejects with the signal's reason when `signal` aborts first (the answer is then never given). */
  run(body: unknown, priority: QueryPriority, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const key = JSON.stringify(body);
    let entry = this.byKey.get(key);
    if (entry === undefined) {
      let settle!: Entry<T>["settle"];
      const answer = new Promise<T>((resolve, reject) => (settle = { resolve, reject }));
      // Nobody may be waiting any more when it settles: never an unhandled rejection.
      answer.catch(() => {});
      entry = { key, body, rank: RANK[priority], seq: this.seq++, waiters: 0, started: false, controller: new AbortController(), answer, settle };
      this.byKey.set(key, entry);
      this.waiting.push(entry);
    } else entry.rank = Math.min(entry.rank, RANK[priority]);
    entry.waiters++;
    this.schedule();
    const mine = entry;
    return new Promise<T>((resolve, reject) => {
      let done = false;
      const abandon = () => {
        if (done) return;
        done = true;
        reject(signal!.reason);
        this.release(mine);
      };
      signal?.addEventListener("abort", abandon, { once: true });
      mine.answer.then(
        (value) => {
          if (done) return;
          done = true;
          signal?.removeEventListener("abort", abandon);
          resolve(value);
        },
        (error: unknown) => {
          if (done) return;
          done = true;
          signal?.removeEventListener("abort", abandon);
          reject(error);
        },
      );
    });
  }

  /**
   * Resolves when nothing is queued or in flight: the reads the engine answers outside this queue (a filtered AI
   * panel, a funnel) wait for it, so they never run beside the tiles.
   */
  whenIdle(): Promise<void> {
    // Judged a macrotask later, after the pump a question asked in the same click set off: the view's effects
    // that ask may run after the one that waits.
    return new Promise((resolve) =>
      setTimeout(() => {
        if (this.running === 0 && this.waiting.length === 0 && this.pumpTimer === null) resolve();
        else this.idleWaiters.push(resolve);
      }, 0),
    );
  }

  /** How many requests are in flight and queued (for tests). */
  get size(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private release(entry: Entry<T>): void {
    if (--entry.waiters > 0) return;
    if (this.byKey.get(entry.key) === entry) this.byKey.delete(entry.key);
    if (!entry.started) {
      this.waiting = this.waiting.filter((e) => e !== entry);
      entry.settle.reject(new DOMException("nobody waits for this query", "AbortError"));
      this.schedule();
    } else entry.controller.abort();
  }

  // A macrotask, not a microtask: the view's effects that ask in one click may run in more than one flush, and
  // all of them must be queued before the first request is chosen.
  private schedule(): void {
    if (this.pumpTimer !== null) return;
    this.pumpTimer = setTimeout(() => {
      this.pumpTimer = null;
      this.pump();
    }, 0);
  }

  private pump(): void {
    if (this.running === 0 && this.waiting.length === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
      return;
    }
    while (this.running < this.limit && this.waiting.length > 0 && !this.tilesInFlight) {
      this.waiting.sort((a, b) => a.rank - b.rank || a.seq - b.seq);
      const entry = this.waiting.shift()!;
      entry.started = true;
      this.running++;
      const tiles = entry.rank === RANK.tiles;
      if (tiles) this.tilesInFlight = true;
      this.send(entry.body, entry.controller.signal)
        .then(entry.settle.resolve, entry.settle.reject)
        .finally(() => {
          this.running--;
          if (tiles) this.tilesInFlight = false;
          // Answered: the next identical question is asked again (a live tick wants fresh numbers).
          if (this.byKey.get(entry.key) === entry) this.byKey.delete(entry.key);
          this.pump();
        });
    }
  }
}
