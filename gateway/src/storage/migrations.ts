// Plain-SQL migrations from sql/NNN_name.sql, applied in order, each in its own transaction, recorded in
// schema_migrations. A session advisory lock serialises processes that boot together (gateway + CLI, or two
// gateways), so each file runs exactly once.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type pg from "pg";
import { repoRoot } from "../repo-root.ts";

export const MIGRATIONS_DIR = path.join(repoRoot, "sql");

// Arbitrary constant shared by every svc process: "svc" in ASCII followed by 01 (migrations).
const MIGRATION_LOCK_KEY = 0x73766301;

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export async function loadMigrations(dir: string = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => /^\d{3}_[a-z0-9_]+\.sql$/.test(file)).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const sql = await readFile(`${dir}/${file}`, "utf8");
    migrations.push({
      version: Number(file.slice(0, 3)),
      name: file.slice(0, -4),
      sql,
      checksum: createHash("sha256").update(sql).digest("hex"),
    });
  }
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]!.version === migrations[i - 1]!.version) {
      throw new Error(`two migrations share version ${migrations[i]!.version}: ${migrations[i - 1]!.name}, ${migrations[i]!.name}`);
    }
  }
  return migrations;
}

/** Applies the pending migrations; returns the names applied by this call (empty when up to date). */
export async function runMigrations(pool: pg.Pool, log: (line: string) => void, dir: string = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = await loadMigrations(dir);
  const client = await pool.connect();
  const applied: string[] = [];
  let broken = false;
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    try {
      await client.query(`
        create table if not exists schema_migrations (
          version    integer primary key,
          name       text        not null,
          checksum   text        not null,
          applied_at timestamptz not null default now()
        )`);
      const done = new Map<number, { name: string; checksum: string }>();
      const rows = await client.query<{ version: number; name: string; checksum: string }>("select version, name, checksum from schema_migrations");
      for (const row of rows.rows) done.set(row.version, row);
      for (const migration of migrations) {
        const previous = done.get(migration.version);
        if (previous !== undefined) {
          if (previous.checksum !== migration.checksum) {
            log(`database: migration ${migration.name} changed after it was applied; the database keeps the applied version (add a new migration instead)`);
          }
          continue;
        }
        await client.query("begin");
        try {
          // A migration may rebuild an index over millions of rows: the pool's statement timeout is for requests.
          await client.query("set local statement_timeout = 0");
          await client.query(migration.sql);
          await client.query("insert into schema_migrations (version, name, checksum) values ($1, $2, $3)", [migration.version, migration.name, migration.checksum]);
          await client.query("commit");
        } catch (error) {
          await client.query("rollback").catch(() => undefined);
          throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`);
        }
        applied.push(migration.name);
      }
    } finally {
      // A failed unlock means a broken connection: destroying it releases the session lock too.
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => { broken = true; });
    }
  } finally {
    client.release(broken);
  }
  if (applied.length > 0) log(`database: applied migrations ${applied.join(", ")}`);
  return applied;
}
