// One fiber per active site with a bounded mailbox. It alone owns the site's salt of the day, the
// visitor and visit state and the stamping of time, so per-site rows are hashed, attributed to their visit,
// counted and handed to the writer in order without locks. The IP reaches this fiber only to be hashed and
// is dropped there.
import { Cause, Effect, Fiber, Queue } from "effect";
import type pg from "pg";
import { type Clock, utcDay, utcDayStart, visitorHash } from "@svc/core";
import type { Logger } from "../log.ts";
import type { EventRow, HitRow, RollupDelta } from "../storage/rows.ts";
import type { GroupCommitWriter } from "../writer/group-commit.ts";
import { recountDay, replayRows } from "./day-rows.ts";
import { HOUR_MS, RollupState, newDeltaSink, sinkDeltas } from "./rollup-state.ts";
import type { DayState } from "./snapshot.ts";
import { VisitState } from "./visit-state.ts";

export type EventFields = Omit<EventRow, "site_id" | "ts" | "visitor_hash">;
export type HitFields = Omit<HitRow, "site_id" | "ts" | "visitor_hash">;

/** An enriched row waiting for its time stamp and visitor hash. */
export type PendingRow =
  | { readonly kind: "event"; ip: string; readonly ua: string; readonly fields: EventFields }
  | { readonly kind: "hit"; ip: string; readonly ua: string; readonly requestedTs: number | null; readonly fields: HitFields };

export interface IngestMessage {
  readonly rows: PendingRow[];
  readonly done: (error?: unknown) => void;
}

export interface SiteActorDeps {
  readonly pool: pg.Pool;
  readonly clock: Clock;
  readonly writer: GroupCommitWriter;
  readonly log: Logger;
  readonly loadSalt: (siteId: number, day: string) => Promise<Buffer>;
  /** Replaces one site's rollups of one UTC day with a recount of its raw rows (and forgets its unwritten counts). */
  readonly replaceDay: (siteId: number, dayStart: number, counts: readonly RollupDelta[]) => Promise<void>;
}

export class SiteActor {
  private readonly mailbox: Queue.Queue<IngestMessage, Cause.Done>;
  private fiber: Fiber.Fiber<void, never> | null = null;
  private state: RollupState | null = null;
  private visits: VisitState | null = null;
  /** Today's state from the last clean stop (snapshot.ts), taken up at the first message. */
  private restored: DayState | null = null;
  private salt: Buffer | null = null;
  private day = "";
  private stale = false;
  /** Bumped when the state is invalidated: submissions computed on an older state must not commit. */
  private generation = 0;
  rejected = 0;

  constructor(
    readonly siteId: number,
    mailboxSize: number,
    private readonly deps: SiteActorDeps,
  ) {
    this.mailbox = Effect.runSync(Queue.bounded<IngestMessage, Cause.Done>(mailboxSize));
  }

  get depth(): number {
    return Queue.sizeUnsafe(this.mailbox);
  }

  get visitorsToday(): number {
    return this.state?.visitors ?? 0;
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

  /** False when the mailbox is full: the caller answers 503 and nothing was taken. */
  offer(message: IngestMessage): boolean {
    const ok = Queue.offerUnsafe(this.mailbox, message);
    if (!ok) this.rejected++;
    return ok;
  }

  /** The database no longer matches the in-memory state (a batch failed): rebuild before the next message. */
  invalidate(): void {
    this.stale = true;
    this.generation++;
  }

  start(): void {
    this.fiber = Effect.runFork(this.loop());
  }

  /** Before `start`: the state a clean stop saved; rows committed after it are replayed at the first message. */
  restore(state: DayState): void {
    this.restored = state;
  }

  /** After `stop`: the state of the day, unless it no longer matches the raw rows (a batch failed). */
  snapshot(): DayState | null {
    if (this.stale || this.state === null || this.visits === null) return this.restored;
    return { state: this.state, visits: this.visits };
  }

  /** Processes what is already in the mailbox, then stops. */
  async stop(): Promise<void> {
    await Effect.runPromise(Queue.end(this.mailbox));
    if (this.fiber) await Effect.runPromise(Fiber.await(this.fiber));
  }

  private loop(): Effect.Effect<void> {
    const self = this;
    return Effect.gen(function* () {
      while (true) {
        const taken = yield* Effect.result(Queue.takeAll(self.mailbox));
        if (taken._tag === "Failure") return;
        yield* self.deps.writer.awaitCapacity();
        const messages = taken.success.concat(yield* Queue.clear(self.mailbox));
        const now = self.deps.clock.now();
        const ready = yield* Effect.result(Effect.tryPromise(() => self.prepareDay(now)));
        if (ready._tag === "Failure") {
          self.deps.log.error("site state unavailable; requests answered 503", { site: self.siteId, error: String(ready.failure) });
          for (const m of messages) m.done(ready.failure);
          continue;
        }
        yield* self.deps.writer.submit(self.process(messages, now));
      }
    });
  }

  /** Loads the salt of `now`'s day and rebuilds the visitor state when the day changed or it went stale. */
  private async prepareDay(now: number): Promise<void> {
    const day = utcDay(now);
    if (day === this.day && !this.stale && this.state) return;
    const restored = this.restored;
    this.restored = null;
    const dayStart = utcDayStart(now);
    const { pool, log } = this.deps;
    let recounted: DayState & { rows: number } | null = null;
    if (this.stale && this.state) {
      // After a failed batch, a batch committed meanwhile may hold counts that assumed the failed rows:
      // recount that day from the raw rows and replace its rollups; the recount is also today's state.
      const stale = this.state.dayStart;
      const recount = await recountDay(pool, this.siteId, stale, { counts: true });
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
      const { rows } = await replayRows(pool, restored, restored.state.watermark + 1, { counts: false });
      log.info("site state restored from the last clean stop", { site: this.siteId, rows_after: rows, visitors: restored.state.visitors });
      recounted = { ...restored, rows: 0 };
    }
    const { state, visits, rows } = recounted ?? (await recountDay(pool, this.siteId, dayStart, { counts: false }));
    if (rows > 0) log.info("site state rebuilt from today's rows", { site: this.siteId, rows, visitors: state.visitors });
    this.salt = salt;
    this.state = state;
    this.visits = visits;
    this.day = day;
    this.stale = false;
  }

  private process(messages: readonly IngestMessage[], now: number) {
    const state = this.state!;
    const visits = this.visits!;
    const salt = this.salt!;
    const events: EventRow[] = [];
    const hits: HitRow[] = [];
    const rollups = newDeltaSink();
    const hourStart = now - (now % HOUR_MS);
    // Where each message's rows end in `events` and `hits`: lets the writer commit request by request
    // around a row the database refuses (writer/refused-rows.ts).
    const ends: number[] = [];
    for (const message of messages) {
      for (const pending of message.rows) {
        const visitor_hash = visitorHash(salt, this.siteId, pending.ip, pending.ua);
        pending.ip = "";
        // The enriched fields object becomes the row itself: no copy per row on the hot path.
        if (pending.kind === "event") {
          const row = Object.assign(pending.fields, { site_id: this.siteId, ts: now, visitor_hash }) as EventRow;
          const key = visitor_hash.toString("latin1");
          visits.attribute(row, key);
          events.push(row);
          state.observe(Object.assign(row, { kind: "event" as const }), rollups, key);
        } else {
          // A middleware's own timestamp is kept when it lies in the current hour (it batches for
          // at most ~1 s); anything else would land in a bucket whose visitor state is gone.
          const t = pending.requestedTs;
          const ts = t !== null && t >= hourStart && t <= now ? t : now;
          const row = Object.assign(pending.fields, { site_id: this.siteId, ts, visitor_hash }) as HitRow;
          hits.push(row);
          state.observe(Object.assign(row, { kind: "hit" as const }), rollups);
        }
      }
      ends.push(events.length, hits.length);
    }
    const generation = this.generation;
    return {
      siteId: this.siteId,
      valid: () => generation === this.generation,
      events,
      hits,
      rollups: sinkDeltas(rollups),
      hour: hourStart,
      committed: () => {
        for (const m of messages) m.done();
      },
      failed: (error: unknown) => {
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
