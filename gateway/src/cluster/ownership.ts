// Site ownership across gateways (SVC_CLUSTER): one gateway at a time writes a site's rows and rollups,
// enforced by a PostgreSQL advisory lock per site held on the one connection that runs every commit of
// this gateway (its "owner session").
//
// Fencing: the lock and the COPY share a connection, so a gateway that lost its lock has lost the only
// connection that could commit for the site. A paused gateway (kill -STOP, a long GC, a partition) cannot
// commit after resuming: PostgreSQL ended its session after `idle_session_timeout` (or the TCP keepalives
// for a dead host), which freed the locks, and every commit goes through `run`, which hands out the
// session only for sites locked on it. Rollup flushes and day recounts go through `run` too, so a lost
// site's counts are never written twice (its new owner recounts them from the raw rows).
//
// Lock slots: one per site owned (session-level, two-int key), in PostgreSQL's shared lock table of
// max_locks_per_transaction × (max_connections + max_prepared_transactions) entries (64 × 100 = 6,400 by
// default). Idle lanes release theirs, so it is one slot per site with traffic in the last SVC_LANE_IDLE_MS.
import { performance } from "node:perf_hooks";
import pg from "pg";
import type { Logger } from "../log.ts";
import { guardPool } from "../storage/database.ts";
import { isConnectionError } from "../storage/database-health.ts";
import { type PoolLimits, poolLimitOptions } from "../storage/pool-limits.ts";
import type { WriteBatch } from "../storage/rows.ts";
import type { CommitFn } from "../writer/group-commit.ts";

/** The advisory lock space of site ownership ("SVC1"); the second key is the site id. */
export const SITE_LOCK_CLASS = 0x53564331;

/** A write for a site this gateway does not own (any more): nothing was written; the request gets a 503. */
export class OwnershipLost extends Error {
  override readonly name = "OwnershipLost";
}

export interface OwnershipOptions {
  readonly url: string;
  /** This gateway's name (SVC_GATEWAY_NAME), in the session's application_name: `svc-owner:<name>`. */
  readonly name: string;
  /** How long PostgreSQL keeps the locks of a session that went silent (SVC_OWNER_TIMEOUT_MS). */
  readonly timeoutMs: number;
  readonly limits: PoolLimits;
  readonly log: Logger;
}

export interface OwnershipStats {
  owned: number;
  acquired: number;
  denied: number;
  released: number;
  /** Owner sessions that ended while holding sites (pg_terminate_backend, a timeout after a pause). */
  sessions_lost: number;
  sites_lost: number;
  /** Writes refused because a site of theirs was not owned by the current session. */
  fenced_writes: number;
  /**
   * The latest a heartbeat came after it was due (ms): how long the event loop was held at that moment. Past
   * SVC_OWNER_TIMEOUT_MS minus the heartbeat interval, PostgreSQL ends the session.
   */
  heartbeat_late_max_ms: number;
}

const NOT_OWNED: ReadonlySet<number> = new Set();

export class SiteOwnership {
  private readonly pool: pg.Pool;
  /** The connection holding the locks of `owned`; null until the first lock. */
  private session: pg.PoolClient | null = null;
  private readonly owned = new Set<number>();
  /** Sites locked only to recount them (cluster/orphans.ts): no lane may take them meanwhile. */
  private readonly adopting = new Set<number>();
  private closing = false;
  /** A heartbeat waiting for the session (busy with a commit or a recount's transaction): the next one skips its turn. */
  private beating = false;
  private readonly heartbeat: NodeJS.Timeout;
  private lostListener: (sites: readonly number[]) => void = () => undefined;
  private readonly counts = { acquired: 0, denied: 0, released: 0, sessions_lost: 0, sites_lost: 0, fenced_writes: 0, heartbeat_late_max_ms: 0 };

  constructor(private readonly options: OwnershipOptions) {
    const { timeoutMs } = options;
    const seconds = Math.max(1, Math.round(timeoutMs / 1000));
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: 1,
      application_name: `svc-owner:${options.name}`.slice(0, 63),
      keepAlive: true,
      keepAliveInitialDelayMillis: 1000,
      // The server ends a session silent for timeoutMs (a paused or dead gateway), idle or inside a transaction,
      // and probes the peer's TCP every second: a dead host's locks free within about timeoutMs.
      options: [
        `-c idle_session_timeout=${timeoutMs}`,
        `-c idle_in_transaction_session_timeout=${timeoutMs}`,
        "-c tcp_keepalives_idle=1",
        "-c tcp_keepalives_interval=1",
        `-c tcp_keepalives_count=${seconds}`,
        `-c tcp_user_timeout=${timeoutMs}`,
      ].join(" "),
      ...poolLimitOptions(options.limits),
    });
    guardPool(this.pool, (line) => options.log.warn(line));
    this.pool.on("connect", (client) => client.on("end", () => this.ended(client as pg.PoolClient)));
    // A live gateway keeps its session from looking silent: a third of the timeout between heartbeats.
    const every = Math.max(100, Math.floor(timeoutMs / 3));
    let due = performance.now() + every;
    this.heartbeat = setInterval(() => {
      const late = performance.now() - due;
      due = performance.now() + every;
      if (late > this.counts.heartbeat_late_max_ms) this.counts.heartbeat_late_max_ms = Math.round(late);
      // Held for a whole interval: the session was two thirds of the way to being ended for silence.
      if (late >= every && this.owned.size > 0) options.log.warn("the event loop held the owner heartbeat back", { late_ms: Math.round(late), timeout_ms: timeoutMs });
      if (this.owned.size === 0 || this.beating) return;
      this.beating = true;
      this.pool.query("select 1").then(
        () => (this.beating = false),
        () => (this.beating = false),
      );
    }, every);
    this.heartbeat.unref();
  }

  /** Called when the owner session ends: every site it held is lost at once (the lanes and the ledger forget them). */
  onLost(listener: (sites: readonly number[]) => void): void {
    this.lostListener = listener;
  }

  /** Whether a lane of this gateway may write the site now. */
  owns(siteId: number): boolean {
    return this.owned.has(siteId) && !this.adopting.has(siteId);
  }

  get stats(): OwnershipStats {
    return { owned: this.owned.size, ...this.counts };
  }

  /**
   * Takes the site's lock on the owner session; false when another gateway holds it (or this one is
   * recounting it as an orphan). `adoption`: locked to recount it, released by `release` afterwards.
   */
  async acquire(siteId: number, adoption = false): Promise<boolean> {
    if (this.adopting.has(siteId)) return false;
    if (adoption) this.adopting.add(siteId);
    const client = await this.pool.connect();
    let broken = false;
    try {
      const { rows } = await client.query<{ ok: boolean }>("select pg_try_advisory_lock($1, $2) as ok", [SITE_LOCK_CLASS, siteId]);
      if (rows[0]?.ok !== true) {
        this.adopting.delete(siteId);
        this.counts.denied++;
        return false;
      }
      if (this.session !== client) {
        // The locks of an earlier session went with it (its end may not have been reported yet).
        if (this.session !== null) this.ended(this.session);
        this.session = client;
      }
      this.owned.add(siteId);
      this.counts.acquired++;
      return true;
    } catch (error) {
      this.adopting.delete(siteId);
      broken = isConnectionError(error);
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /** Lets the site go (its lane drained and its counts written). */
  async release(siteId: number): Promise<void> {
    this.adopting.delete(siteId);
    if (!this.owned.delete(siteId)) return;
    this.counts.released++;
    await this.run(async (pool) => {
      const client = await pool.connect();
      await client.query("select pg_advisory_unlock($1, $2)", [SITE_LOCK_CLASS, siteId]);
    }).catch(() => undefined); // a lost session released it already
  }

  /**
   * Runs `work` on the owner session. `owned` is the set of sites locked on it: empty when the session
   * changed since (every lock was lost with the old one). `pool` hands out that one connection.
   */
  async run<T>(work: (pool: pg.Pool, owned: ReadonlySet<number>) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const owned = client === this.session ? this.owned : NOT_OWNED;
    // What the work sees as a pool: the same connection, never released by it (a failed COPY releasing
    // with `true` would otherwise end the session and every lock with it).
    const session = { query: client.query.bind(client), release: () => undefined };
    const pool = { connect: () => Promise.resolve(session), query: client.query.bind(client) } as unknown as pg.Pool;
    let broken = false;
    try {
      return await work(pool, owned);
    } catch (error) {
      broken = isConnectionError(error);
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /** Throws OwnershipLost unless every site of `sites` is in `owned`. */
  assertOwned(owned: ReadonlySet<number>, sites: Iterable<number>): void {
    for (const site of sites) {
      if (!owned.has(site)) {
        this.counts.fenced_writes++;
        throw new OwnershipLost(`site ${site} is not owned by this gateway's session`);
      }
    }
  }

  /** The batch commit, fenced: it runs on the owner session and only when every site of the batch is locked on it. */
  fencedCommit(commit: CommitFn): CommitFn {
    return (_pool, batch) =>
      this.run((pool, owned) => {
        this.assertOwned(owned, sitesOf(batch));
        return commit(pool, batch);
      });
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.heartbeat);
    // Ending the session releases every lock at once.
    await this.pool.end();
  }

  private ended(client: pg.PoolClient): void {
    if (client !== this.session) return;
    this.session = null;
    const lost = [...this.owned];
    this.owned.clear();
    this.adopting.clear();
    if (lost.length === 0 || this.closing) return;
    this.counts.sessions_lost++;
    this.counts.sites_lost += lost.length;
    this.options.log.warn("the owner session ended: its sites are lost and will be taken over (or back) from the raw rows", { sites: lost.length });
    this.lostListener(lost);
  }
}

/** The distinct sites of a batch (rows of one site come in runs, so this is a comparison per row). */
export function sitesOf(batch: WriteBatch): Set<number> {
  const sites = new Set<number>();
  let last = -1;
  for (const rows of [batch.events, batch.hits]) {
    for (const row of rows) {
      if (row.site_id === last) continue;
      last = row.site_id;
      sites.add(last);
    }
  }
  return sites;
}
