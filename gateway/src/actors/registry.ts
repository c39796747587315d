// Creates site actors on first use, supervises their fibers, stops idle ones and drains them all on
// shutdown. Each actor's loop runs under the supervisor: a crash answers its pending requests 503, is
// logged and counted (/healthz → supervision.crashes.site_actor), and the loop restarts, rebuilding the
// site's state from the database.
import { Effect, Fiber, FiberSet } from "effect";
import type { Supervisor } from "../supervision/supervisor.ts";
import type { SiteActorDeps } from "./site-actor.ts";
import { SiteActor } from "./site-actor.ts";

export interface ActorRegistryOptions {
  readonly mailboxSize: number;
  /** An actor that received nothing for this long (by the injected clock) is stopped and dropped. */
  readonly idleMs: number;
  readonly supervisor: Supervisor;
  /** The fibers of the actors: owned by the registry's layer scope. */
  readonly fibers: FiberSet.FiberSet<void>;
}

export class ActorRegistry {
  private readonly actors = new Map<number, { actor: SiteActor; fiber: Fiber.Fiber<void> }>();
  /** Actors stopped because they were idle, and the mailbox-full rejections they had counted (for /healthz). */
  private stoppedIdle = 0;
  private rejectedByStopped = 0;

  constructor(
    private readonly options: ActorRegistryOptions,
    private readonly deps: SiteActorDeps,
  ) {}

  get(siteId: number): SiteActor {
    const running = this.actors.get(siteId);
    if (running) return running.actor;
    const actor = new SiteActor(siteId, this.options.mailboxSize, this.deps);
    const loop = this.options.supervisor.supervise("site_actor", actor.loop(), (error) => actor.crashed(error), { site: siteId });
    const fiber = Effect.runFork(loop);
    FiberSet.addUnsafe(this.options.fibers, fiber);
    this.actors.set(siteId, { actor, fiber });
    return actor;
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

  stats(): { active: number; mailbox_depth: number; rejected_full: number; stopped_idle: number } {
    let depth = 0;
    let rejected = this.rejectedByStopped;
    for (const { actor } of this.actors.values()) {
      depth += actor.depth;
      rejected += actor.rejected;
    }
    return { active: this.actors.size, mailbox_depth: depth, rejected_full: rejected, stopped_idle: this.stoppedIdle };
  }

  /** Ends every mailbox and waits until each actor has handed its last rows to the writer. */
  stop(): Effect.Effect<void> {
    const running = [...this.actors.values()];
    this.actors.clear();
    return Effect.gen(function* () {
      for (const { actor } of running) yield* actor.end();
      for (const { fiber } of running) yield* Fiber.await(fiber);
    });
  }
}
