// How long a pool's user waits for a connection and how long one statement may run (the writer's and the
// rollup flusher's own pool is opened by storage/database.ts `openWritePool`).
//
// The gateway has two pools. Reads, authentication, site look-ups, maintenance and the site lanes' day
// recounts share the first (storage/database.ts); the group-commit writer and the rollup flusher have the
// second to themselves, so a flood of unknown domains, random API keys or slow reads holding every read
// connection cannot delay a commit, and so an acknowledgement. Both wait a bounded time for a connection
// and cancel a statement that runs too long, instead of holding requests and memory forever.
import type pg from "pg";

export interface PoolLimits {
  /** How long a checkout waits for a connection (SVC_DB_ACQUIRE_TIMEOUT_MS); also bounds connecting. */
  readonly acquireTimeoutMs: number;
  /** statement_timeout of the pool's sessions, 0 = none (SVC_DB_STATEMENT_TIMEOUT_MS, SVC_DB_WRITE_STATEMENT_TIMEOUT_MS). */
  readonly statementTimeoutMs: number;
}

// 5 s: with the server gone, connecting fails at once, but a server that accepts and never answers (a
// network partition) or a pool held by a flood must not hold requests forever; a healthy checkout takes < 1 ms.
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 5_000;
// 60 s for the shared pool: its longest statements are the anomaly scans (p95 0.9 s, bench:anomalies) and a
// busy day's rollup replacement after a failed batch; a minute leaves room, a hung query still ends.
export const DEFAULT_STATEMENT_TIMEOUT_MS = 60_000;
// 30 s for the writer's pool: a batch of 5,000 rows commits in a few ms and a rollup flush in tens; anything
// near 30 s is a stuck server, and the writer answers 503 and retries instead of waiting on it.
export const DEFAULT_WRITE_STATEMENT_TIMEOUT_MS = 30_000;

/** The pg.Pool options for `limits` (statement_timeout is sent at connect, once per session). */
export function poolLimitOptions(limits: PoolLimits): Pick<pg.PoolConfig, "connectionTimeoutMillis" | "statement_timeout"> {
  return { connectionTimeoutMillis: limits.acquireTimeoutMs, ...(limits.statementTimeoutMs > 0 ? { statement_timeout: limits.statementTimeoutMs } : {}) };
}
