// Creates site lanes on first use, supervises their fibers, stops idle ones and drains them all on
// shutdown. Each lane's loop runs under the supervisor: a crash answers its pending requests 503, is
// logged and counted (/healthz → supervision.crashes.site_lane), and the loop restarts, rebuilding the
// site's state from the database.
import { Effect, Fiber, FiberSet } from "effect";
import type { Supervisor } from "../supervision/supervisor.ts";
import type { SiteLaneDeps } from "./site-lane.ts";
import { SiteLane } from "./site-lane.ts";
import type { DayState } from "./snapshot.ts";
import { recentVisitorsFromRows } from "../read/recent-visitors.ts";

export interface LaneRegistryOptions {
  readonly mailboxSize: number;
  /** An lane that received nothing for this long (by the injected clock) is stopped and dropped. */
  readonly idleMs: number;
  readonly supervisor: Supervisor;
  /** The fibers of the lanes: owned by the registry's layer scope. */
  readonly fibers: FiberSet.FiberSet<void>;
  /**
   * Cluster: called with the sites of lanes that were stopped and whose submissions all settled, before they
   * leave the registry: writes their counts and lets their locks go (a new lane meanwhile would find the
   * site still owned here and skip the takeover).
   */
  readonly retired?: (siteIds: readonly number[]) => Promise<void>;
}

/** A site whose state of today went past its memory budget (/healthz → lanes.over_budget). */
export interface OverBudget {
  readonly site: number;
  readonly visitors: number;
  readonly visitors_inferred: boolean;
  readonly inferred_rows: number;
  readonly folded_values: number;
}

export class LaneRegistry {
  private readonly lanes = new Map<number, { lane: SiteLane; fiber: Fiber.Fiber<void> }>();
  /** Lanes stopped because they were idle, and the mailbox-full rejections they had counted (for /healthz). */
  private stoppedIdle = 0;
  private rejectedByStopped = 0;
  /** The lanes `stop` drained: their day states are what a clean stop saves. */
  private drained: readonly SiteLane[] = [];

  constructor(
    private readonly options: LaneRegistryOptions,
    private readonly deps: SiteLaneDeps,
  ) {}

  get(siteId: number, restored?: DayState): SiteLane {
    const running = this.lanes.get(siteId);
    if (running) return running.lane;
    const lane = new SiteLane(siteId, this.options.mailboxSize, this.deps);
    // Before its loop starts: the first message takes the saved state up instead of replaying the day.
    if (restored) lane.restore(restored);
    const loop = this.options.supervisor.supervise("site_lane", lane.loop(), (error) => lane.crashed(error), { site: siteId });
    const fiber = Effect.runFork(loop);
    FiberSet.addUnsafe(this.options.fibers, fiber);
    this.lanes.set(siteId, { lane, fiber });
    return lane;
  }

  /** At boot, before traffic: the day states a clean stop saved, one per site. */
  restore(states: readonly DayState[]): void {
    for (const s of states) this.get(s.state.siteId, s);
  }

  /** After `stop`: every drained lane's day state that still matches the raw rows. */
  snapshots(): DayState[] {
    return this.drained.flatMap((a) => a.snapshot() ?? []);
  }

  /**
   * Distinct visitors of the last `windowMs` per actor: from the site's lane, or, in a cluster on a gateway
   * that does not own the site, from the raw rows (a read must not take a site over).
   */
  recentVisitors(siteId: number, windowMs: number): Promise<Record<string, number>> {
    const ownership = this.deps.ownership;
    if (ownership !== null && !ownership.owns(siteId)) return recentVisitorsFromRows(this.deps.pool, siteId, this.deps.clock.now() - windowMs);
    return this.get(siteId).recentVisitors(windowMs);
  }

  /** The running lane of a site, without starting one. */
  find(siteId: number): SiteLane | undefined {
    return this.lanes.get(siteId)?.lane;
  }

  /**
   * Stops the lanes that received nothing for `idleMs` and hold nothing: their visitor state (about
   * 552 B per visitor of the day) is released; the next row of the site starts a new lane, which
   * rebuilds that state from the day's raw rows. Returns how many were stopped.
   */
  stopIdle(now: number): Effect.Effect<number> {
    const self = this;
    return Effect.gen(function* () {
      const idle = [...self.lanes].filter(([, { lane }]) => lane.idle && now - lane.lastActiveAt >= self.options.idleMs);
      yield* self.retire(idle);
      self.stoppedIdle += idle.length;
      return idle.length;
    });
  }

  /**
   * Stops one site's lane (a deleted site): its mailbox ends, its last rows reach the writer and, in a cluster,
   * its lock is released like an idle lane's.
   */
  stopSite(siteId: number): Effect.Effect<void> {
    const running = this.lanes.get(siteId);
    return running === undefined ? Effect.void : this.retire([[siteId, running]]);
  }

  /**
   * Cluster: another gateway asks for the site (HAProxy sends its traffic there now). Given up only when its
   * lane received nothing for `quietMs`, so two gateways that both still get its traffic do not pass it back
   * and forth. Returns whether it was let go.
   */
  releaseIfQuiet(siteId: number, now: number, quietMs: number): Effect.Effect<boolean> {
    const running = this.lanes.get(siteId);
    if (running === undefined || now - running.lane.lastActiveAt < quietMs) return Effect.succeed(false);
    return Effect.as(this.retire([[siteId, running]]), true);
  }

  /**
   * Ends the lanes' mailboxes (a message offered meanwhile is refused: 503) and waits for their last
   * submissions; then, before they leave the registry, `retired` writes their counts and releases them.
   */
  private retire(entries: ReadonlyArray<readonly [number, { lane: SiteLane; fiber: Fiber.Fiber<void> }]>): Effect.Effect<void> {
    const self = this;
    return Effect.gen(function* () {
      for (const [, { lane, fiber }] of entries) {
        yield* lane.end();
        yield* Fiber.await(fiber);
        yield* Effect.promise(() => lane.settled());
      }
      const retired = self.options.retired;
      if (retired !== undefined && entries.length > 0) yield* Effect.promise(() => retired(entries.map(([siteId]) => siteId)));
      for (const [siteId, entry] of entries) {
        if (self.lanes.get(siteId) === entry) self.lanes.delete(siteId);
        self.rejectedByStopped += entry.lane.rejected;
      }
    });
  }

  stats(): { active: number; mailbox_depth: number; rejected_full: number; stopped_idle: number; over_budget: OverBudget[] } {
    let depth = 0;
    let rejected = this.rejectedByStopped;
    const overBudget: OverBudget[] = [];
    for (const { lane } of this.lanes.values()) {
      depth += lane.depth;
      rejected += lane.rejected;
      const use = lane.overBudget;
      if (use !== null) {
        overBudget.push({ site: lane.siteId, visitors: use.visitors, visitors_inferred: use.visitorsInferred, inferred_rows: use.inferredRows, folded_values: use.foldedValues });
      }
    }
    return { active: this.lanes.size, mailbox_depth: depth, rejected_full: rejected, stopped_idle: this.stoppedIdle, over_budget: overBudget };
  }

  /** Ends every mailbox and waits until each lane has handed its last rows to the writer. */
  stop(): Effect.Effect<void> {
    const running = [...this.lanes.values()];
    this.lanes.clear();
    this.drained = running.map((r) => r.lane);
    return Effect.gen(function* () {
      for (const { lane } of running) yield* lane.end();
      for (const { fiber } of running) yield* Fiber.await(fiber);
    });
  }
}
