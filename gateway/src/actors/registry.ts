// Creates site actors on first use, supervises their fibers, stops idle ones and drains them all on
// shutdown. Each actor's loop runs under the supervisor: a crash answers its pending requests 503, is
// logged and counted (/healthz → supervision.crashes.site_actor), and the loop restarts, rebuilding the
// site's state from the database.
import { Effect, Fiber, FiberSet } from "effect";
import type { Supervisor } from "../supervision/supervisor.ts";
import type { SiteActorDeps } from "./site-actor.ts";
import { SiteActor } from "./site-actor.ts";
import type { DayState } from "./snapshot.ts";

export interface ActorRegistryOptions {
  readonly mailboxSize: number;
  /** An actor that received nothing for this long (by the injected clock) is stopped and dropped. */
  readonly idleMs: number;
  readonly supervisor: Supervisor;
  /** The fibers of the actors: owned by the registry's layer scope. */
  readonly fibers: FiberSet.FiberSet<void>;
}

/** A site whose state of today went past its memory budget (/healthz → actors.over_budget). */
export interface OverBudget {
  readonly site: number;
  readonly visitors: number;
  readonly visitors_inferred: boolean;
  readonly inferred_rows: number;
  readonly folded_values: number;
}

export class ActorRegistry {
  private readonly actors = new Map<number, { actor: SiteActor; fiber: Fiber.Fiber<void> }>();
  /** Actors stopped because they were idle, and the mailbox-full rejections they had counted (for /healthz). */
  private stoppedIdle = 0;
  private rejectedByStopped = 0;
  /** The actors `stop` drained: their day states are what a clean stop saves. */
  private drained: readonly SiteActor[] = [];

  constructor(
    private readonly options: ActorRegistryOptions,
    private readonly deps: SiteActorDeps,
  ) {}

  get(siteId: number, restored?: DayState): SiteActor {
    const running = this.actors.get(siteId);
    if (running) return running.actor;
    const actor = new SiteActor(siteId, this.options.mailboxSize, this.deps);
    // Before its loop starts: the first message takes the saved state up instead of replaying the day.
    if (restored) actor.restore(restored);
    const loop = this.options.supervisor.supervise("site_actor", actor.loop(), (error) => actor.crashed(error), { site: siteId });
    const fiber = Effect.runFork(loop);
    FiberSet.addUnsafe(this.options.fibers, fiber);
    this.actors.set(siteId, { actor, fiber });
    return actor;
  }

  /** At boot, before traffic: the day states a clean stop saved, one per site. */
  restore(states: readonly DayState[]): void {
    for (const s of states) this.get(s.state.siteId, s);
  }

  /** After `stop`: every drained actor's day state that still matches the raw rows. */
  snapshots(): DayState[] {
    return this.drained.flatMap((a) => a.snapshot() ?? []);
  }

  /** The running actor of a site, without starting one. */
  find(siteId: number): SiteActor | undefined {
    return this.actors.get(siteId)?.actor;
  }

  /**
   * Stops the actors that received nothing for `idleMs` and hold nothing: their visitor state (about
   * 536 B per visitor of the day) is released; the next row of the site starts a new actor, which
   * rebuilds that state from the day's raw rows. Returns how many were stopped.
   */
  stopIdle(now: number): Effect.Effect<number> {
    const self = this;
    return Effect.gen(function* () {
      const idle = [...self.actors].filter(([, { actor }]) => actor.idle && now - actor.lastActiveAt >= self.options.idleMs);
      for (const [siteId, { actor }] of idle) {
        self.actors.delete(siteId);
        self.rejectedByStopped += actor.rejected;
      }
      for (const [, { actor, fiber }] of idle) {
        yield* actor.end();
        yield* Fiber.await(fiber);
      }
      self.stoppedIdle += idle.length;
      return idle.length;
    });
  }

  stats(): { active: number; mailbox_depth: number; rejected_full: number; stopped_idle: number; over_budget: OverBudget[] } {
    let depth = 0;
    let rejected = this.rejectedByStopped;
    const overBudget: OverBudget[] = [];
    for (const { actor } of this.actors.values()) {
      depth += actor.depth;
      rejected += actor.rejected;
      const use = actor.overBudget;
      if (use !== null) {
        overBudget.push({ site: actor.siteId, visitors: use.visitors, visitors_inferred: use.visitorsInferred, inferred_rows: use.inferredRows, folded_values: use.foldedValues });
      }
    }
    return { active: this.actors.size, mailbox_depth: depth, rejected_full: rejected, stopped_idle: this.stoppedIdle, over_budget: overBudget };
  }

  /** Ends every mailbox and waits until each actor has handed its last rows to the writer. */
  stop(): Effect.Effect<void> {
    const running = [...this.actors.values()];
    this.actors.clear();
    this.drained = running.map((r) => r.actor);
    return Effect.gen(function* () {
      for (const { actor } of running) yield* actor.end();
      for (const { fiber } of running) yield* Fiber.await(fiber);
    });
  }
}
