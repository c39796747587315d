// Opening the database: DATABASE_URL when given, else the embedded PostgreSQL under the data dir; then
// migrations and the monthly partitions, so the caller gets a ready schema.
import pg from "pg";
import { startEmbeddedServer, type EmbeddedServer } from "./embedded-server.ts";
import { runMigrations } from "./migrations.ts";
import { ensureMonthlyPartitions } from "./partitions.ts";

export interface Database {
  readonly pool: pg.Pool;
  readonly url: string;
  /** True when this is the embedded server (started by this process or by another one on the same data dir). */
  readonly embedded: boolean;
  /** Ends the pool; stops the embedded server only when this process started it. */
  close(): Promise<void>;
}

// 8 connections: the writer holds one per in-flight batch (group commit keeps that at 1–2), plus reads,
// partition maintenance and retention; PostgreSQL's default max_connections is 100.
const DEFAULT_POOL_SIZE = 8;

export async function openDatabase(opts: {
  url: string | null;
  dataDir: string;
  log: (line: string) => void;
  poolSize?: number;
  /** The clock for the partitions made at boot; the wall clock unless a test injects one. */
  nowMs?: () => number;
}): Promise<Database> {
  let server: EmbeddedServer | null = null;
  let url = opts.url;
  if (url === null) {
    server = await startEmbeddedServer({ dataDir: opts.dataDir, log: opts.log });
    url = server.url;
  }
  const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? DEFAULT_POOL_SIZE });
  // An idle pooled connection dropped by the server (restart, network) must not crash the process; the pool
  // replaces it on the next checkout.
  pool.on("error", (error) => opts.log(`database: idle connection lost (${error.message})`));
  try {
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
