// Creates site actors on first use and stops them all on shutdown.
import type { SiteActorDeps } from "./site-actor.ts";
import { SiteActor } from "./site-actor.ts";
import type { DayState } from "./snapshot.ts";

export class ActorRegistry {
  private readonly actors = new Map<number, SiteActor>();

  constructor(
    private readonly mailboxSize: number,
    private readonly deps: SiteActorDeps,
  ) {}

  get(siteId: number): SiteActor {
    let actor = this.actors.get(siteId);
    if (!actor) {
      actor = new SiteActor(siteId, this.mailboxSize, this.deps);
      actor.start();
      this.actors.set(siteId, actor);
    }
    return actor;
  }

  /** At boot, before traffic: the day states a clean stop saved, one per site. */
  restore(states: readonly DayState[]): void {
    for (const s of states) this.get(s.state.siteId).restore(s);
  }

  /** After `stop`: every actor's day state that still matches the raw rows. */
  snapshots(): DayState[] {
    return [...this.actors.values()].flatMap((a) => a.snapshot() ?? []);
  }

  /**
   * Their state no longer matches the raw rows. Each is sent an empty message so that it rebuilds (and repairs
   * the day's rollups) now, not only when its next request arrives.
   */
  invalidate(siteIds: ReadonlySet<number>): void {
    for (const id of siteIds) {
      const actor = this.actors.get(id);
      actor?.invalidate();
      actor?.offer({ rows: [], done: () => undefined });
    }
  }

  stats(): { active: number; mailbox_depth: number; rejected_full: number } {
    let depth = 0;
    let rejected = 0;
    for (const a of this.actors.values()) {
      depth += a.depth;
      rejected += a.rejected;
    }
    return { active: this.actors.size, mailbox_depth: depth, rejected_full: rejected };
  }

  async stop(): Promise<void> {
    await Promise.all([...this.actors.values()].map((a) => a.stop()));
  }
}
