// Opening the database: DATABASE_URL when given, else the embedded PostgreSQL under the data dir; then
// migrations and the monthly partitions, so the caller gets a ready schema.
import pg from "pg";
import { startEmbeddedServer, type EmbeddedServer } from "./embedded-server.ts";
import { runMigrations } from "./migrations.ts";
import { ensureMonthlyPartitions } from "./partitions.ts";
import { isConnectionError } from "./database-health.ts";
import { DEFAULT_ACQUIRE_TIMEOUT_MS, type PoolLimits, poolLimitOptions } from "./pool-limits.ts";

export interface Database {
  readonly pool: pg.Pool;
  readonly url: string;
  /** True when this is the embedded server (started by this process or by another one on the same data dir). */
  readonly embedded: boolean;
  /** Ends the pool; stops the embedded server only when this process started it. */
  close(): Promise<void>;
}

// 8 connections: reads, authentication, site look-ups, the site lanes' recounts, partition maintenance and
// retention (the writer and the rollup flusher have their own pool, pool-limits.ts); PostgreSQL's default
// max_connections is 100.
const DEFAULT_POOL_SIZE = 8;
// Waiting for a server that is still starting: 250 ms doubling to 5 s between attempts.
const WAIT_FIRST_MS = 250;
const WAIT_MAX_MS = 5_000;

const guarded = new WeakSet<pg.Pool>();

/**
 * Makes a lost connection an error its user sees, never a crash. node-postgres emits `'error'` on a client
 * whose socket breaks even while it is checked out, and pg-pool listens only on idle clients: a PostgreSQL
 * restart under load killed the process with an unhandled `terminating connection due to administrator
 * command`. The query in progress fails on its own; the pool drops the broken client on release.
 */
export function guardPool(pool: pg.Pool, log: (line: string) => void): void {
  if (guarded.has(pool)) return;
  guarded.add(pool);
  pool.on("connect", (client) => client.on("error", () => undefined));
  pool.on("error", (error) => log(`database: idle connection lost (${error.message})`));
}

/**
 * Resolves once the server answers. A connection error (the server is starting, restarting or not up yet)
 * is logged and retried with backoff for as long as it takes; any other error (a wrong password, a missing
 * database) is thrown.
 */
export async function waitForDatabase(pool: pg.Pool, url: string, log: (line: string) => void): Promise<void> {
  let delay = WAIT_FIRST_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      await pool.query("select 1");
      if (attempt > 1) log(`database: reachable after ${attempt} attempts`);
      return;
    } catch (error) {
      if (!isConnectionError(error)) throw error;
      log(`database: waiting for the database at ${redactUrl(url)} (${(error as Error).message}); attempt ${attempt}, next in ${delay} ms`);
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, WAIT_MAX_MS);
    }
  }
}

export async function openDatabase(opts: {
  url: string | null;
  dataDir: string;
  log: (line: string) => void;
  poolSize?: number;
  /** Acquire and statement timeouts (pool-limits.ts); without, a 5 s acquire timeout and no statement timeout. */
  limits?: PoolLimits;
  /** The clock for the partitions made at boot; the wall clock unless a test injects one. */
  nowMs?: () => number;
  /** Wait for a DATABASE_URL server that is not up yet (the gateway) instead of failing at once (the CLI). */
  waitForServer?: boolean;
}): Promise<Database> {
  let server: EmbeddedServer | null = null;
  let url = opts.url;
  if (url === null) {
    server = await startEmbeddedServer({ dataDir: opts.dataDir, log: opts.log });
    url = server.url;
  }
  const limits = opts.limits ?? { acquireTimeoutMs: DEFAULT_ACQUIRE_TIMEOUT_MS, statementTimeoutMs: 0 };
  const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? DEFAULT_POOL_SIZE, ...poolLimitOptions(limits) });
  guardPool(pool, opts.log);
  try {
    if (opts.waitForServer === true) await waitForDatabase(pool, url, opts.log);
    await runMigrations(pool, opts.log);
    const created = await ensureMonthlyPartitions(pool, (opts.nowMs ?? Date.now)());
    if (created.length > 0) opts.log(`database: created partitions ${created.join(", ")}`);
  } catch (error) {
    await pool.end().catch(() => undefined);
    if (server !== null) await server.stop();
    throw error;
  }
  let closing: Promise<void> | null = null;
  return {
    pool,
    url,
    embedded: server !== null,
    close: () => {
      closing ??= (async () => {
        await pool.end();
        if (server !== null) await server.stop();
      })();
      return closing;
    },
  };
}

/**
 * The writer's and flusher's own pool on the database at `url` (pool-limits.ts says why). `inFlight` commits
 * at once, plus one connection for the rollup flush and one for a commit retried after a failure (bisect-write.ts).
 */
export function openWritePool(url: string, inFlight: number, limits: PoolLimits, log: (line: string) => void): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: inFlight + 2, ...poolLimitOptions(limits) });
  guardPool(pool, log);
  return pool;
}

/** A connection URL shown in logs: the password replaced by ***. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable database URL)";
  }
}
