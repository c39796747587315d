// Sites whose owner died (kill -9, a lost host) and that get no traffic afterwards: nobody takes them over,
// so the counts the dead owner had not written yet would be missing from their rollups until their next row.
// Every gateway watches the site locks (pg_locks, every SWEEP_MS); a site whose lock went away and stayed
// unowned for ORPHAN_AFTER_MS is adopted by whichever gateway locks it first: its rollups of the days its
// rows may still be in are recounted from the raw rows under the lock, then the lock is released. A site
// released cleanly (its counts written) is recounted too: a recount of exact rollups changes nothing.
//
// At boot, when the rollup repair mark is set (some gateway did not stop cleanly), every site nobody holds is
// adopted from the mark's day on, in the background: the same repair one gateway does before listening, but
// site by site under each site's lock, so gateways booting together or already serving never recount a site
// another one is writing.
import { DAY_MS, HOUR_MS, utcDayStart } from "@svc/core";
import type pg from "pg";
import type { Logger } from "../log.ts";
import { SITE_LOCK_CLASS, type SiteOwnership } from "./ownership.ts";

const SWEEP_MS = 1_000;
// Longer than a site with traffic takes to be locked by its new owner (HAProxy's 3 s, the lock, a retry):
// adopting such a site would only make its new owner wait (measured: at 3 s, sites moving off a paused
// gateway were adopted and recounted first, and their failover gap grew).
const ORPHAN_AFTER_MS = 10_000;

export interface OrphanDeps {
  readonly pool: pg.Pool;
  readonly ownership: SiteOwnership;
  readonly log: Logger;
  readonly now: () => number;
  /** A lane of this gateway serves the site: it recounts it itself when it takes it. */
  readonly hasLane: (siteId: number) => boolean;
  /** Recounts one site-day from the raw rows and replaces its rollups (on the owner session, fenced). */
  readonly recount: (siteId: number, dayStart: number) => Promise<void>;
}

/** The sites whose ownership lock is held in this database now. */
export async function lockedSites(pool: pg.Pool): Promise<Set<number>> {
  const { rows } = await pool.query<{ site: number }>(
    `select objid::int as site from pg_locks
      where locktype = 'advisory' and granted and classid = $1 and objsubid = 2
        and database = (select oid from pg_database where datname = current_database())`,
    [SITE_LOCK_CLASS],
  );
  return new Set(rows.map((r) => r.site));
}

export class OrphanSweeper {
  private previous = new Set<number>();
  private readonly unownedSince = new Map<number, number>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  readonly stats = { adopted: 0 };

  constructor(private readonly deps: OrphanDeps) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running = this.running.then(() => this.sweep()).catch((error: unknown) => this.deps.log.warn("orphaned-site sweep failed", { error: String(error) }));
    }, SWEEP_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Boot after an unclean stop: every site nobody holds, from `fromHour`'s day to today. */
  async repairFrom(fromHour: number): Promise<number> {
    const { rows } = await this.deps.pool.query<{ id: number }>("select id from sites order by id");
    let adopted = 0;
    for (const { id } of rows) if (await this.adopt(id, fromHour)) adopted++;
    return adopted;
  }

  private async sweep(): Promise<void> {
    const held = await lockedSites(this.deps.pool);
    const now = this.deps.now();
    for (const site of this.previous) if (!held.has(site) && !this.unownedSince.has(site)) this.unownedSince.set(site, now);
    this.previous = held;
    for (const [site, since] of this.unownedSince) {
      if (held.has(site) || this.deps.hasLane(site)) this.unownedSince.delete(site);
      else if (now - since >= ORPHAN_AFTER_MS) {
        this.unownedSince.delete(site);
        await this.adopt(site, now - HOUR_MS);
      }
    }
  }

  private async adopt(siteId: number, fromHour: number): Promise<boolean> {
    const { ownership } = this.deps;
    if (this.deps.hasLane(siteId) || ownership.owns(siteId) || !(await ownership.acquire(siteId, true))) return false;
    try {
      const today = utcDayStart(this.deps.now());
      for (let day = utcDayStart(fromHour); day <= today; day += DAY_MS) await this.deps.recount(siteId, day);
      this.stats.adopted++;
      this.deps.log.info("site without an owner: rollups recounted from the raw rows", { site: siteId });
      return true;
    } finally {
      // No lane took it meanwhile (`owns` is false while adopting): a lane asking now takes it over afresh.
      await ownership.release(siteId);
    }
  }
}
