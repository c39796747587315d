// The whole database as text: every row of every table in every non-system schema (bytea as hex),
// plus pg_dump's own output when a compatible pg_dump is installed.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type pg from "pg";

export async function dumpDatabase(pool: pg.Pool, url: string): Promise<string> {
  const tables = await pool.query(
    `select quote_ident(schemaname) || '.' || quote_ident(tablename) as t from pg_tables where schemaname not in ('pg_catalog', 'information_schema')`,
  );
  const parts: string[] = [];
  for (const { t } of tables.rows) {
    const { rows } = await pool.query(`select row_to_json(x)::text as j from ${t} as x`);
    parts.push(`-- ${t}`, ...rows.map((r) => r.j as string));
  }
  try {
    const { stdout } = await promisify(execFile)("pg_dump", ["--data-only", url], { maxBuffer: 1 << 30 });
    parts.push("-- pg_dump", stdout);
  } catch {
    // No pg_dump, or one older than the server: the SQL dump above already holds every row.
  }
  return parts.join("\n");
}
