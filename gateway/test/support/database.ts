// A fresh, uniquely named, migrated database per test file (or per test), on the server of the global
// setup, so test files are isolated from each other and may run in parallel.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { runMigrations } from "../../src/storage/migrations.ts";
import { ensureMonthlyPartitions } from "../../src/storage/partitions.ts";

export interface TestDatabase {
  /** URL of the new database: give it to a spawned gateway or CLI as DATABASE_URL. */
  url: string;
  pool: pg.Pool;
  /** Ends the pool and drops the database (connections of other processes are terminated). */
  drop(): Promise<void>;
}

export function databaseServerUrl(): string {
  const fromEnv = process.env.DATABASE_URL;
  return fromEnv !== undefined && fromEnv !== "" ? fromEnv : inject("svcDatabaseServerUrl");
}

export function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * @param opts.migrate false for an empty database (the migration tests); default true.
 * @param opts.nowMs when given, the monthly partitions of that month and the next are created too (the
 *   gateway does this at boot); without it, rows land in the default partitions.
 */
export async function createTestDatabase(opts: { nowMs?: number; poolSize?: number; migrate?: boolean } = {}): Promise<TestDatabase> {
  const serverUrl = databaseServerUrl();
  const name = `svc_test_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(serverUrl, name);
  const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 5 });
  pool.on("error", () => {});
  if (opts.migrate !== false) await runMigrations(pool, () => {});
  if (opts.nowMs !== undefined) await ensureMonthlyPartitions(pool, opts.nowMs);
  let dropped: Promise<void> | null = null;
  return {
    url,
    pool,
    drop: () => {
      dropped ??= (async () => {
        await pool.end();
        const client = new pg.Client({ connectionString: serverUrl });
        await client.connect();
        try {
          await client.query(`drop database if exists ${name} with (force)`);
        } finally {
          await client.end();
        }
      })();
      return dropped;
    },
  };
}
