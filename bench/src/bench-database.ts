// A fresh, migrated database for one benchmark run: a new database on the server of DATABASE_URL
// (dropped afterwards unless kept), or a throwaway embedded PostgreSQL in a temp dir.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { openDatabase } from "../../gateway/src/storage/database.ts";

export interface BenchDatabase {
  readonly url: string;
  readonly pool: pg.Pool;
  dispose(): Promise<void>;
}

export async function freshBenchDatabase(prefix: string, options: { keep?: boolean; log?: (line: string) => void } = {}): Promise<BenchDatabase> {
  const server = process.env.DATABASE_URL;
  if (server) {
    const name = `svc_${prefix}_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: server });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(server);
    url.pathname = `/${name}`;
    const db = await openDatabase({ url: url.toString(), dataDir: os.tmpdir(), log: () => undefined });
    return {
      url: db.url,
      pool: db.pool,
      async dispose() {
        await db.close();
        if (options.keep) {
          options.log?.(`kept database ${name}`);
          return;
        }
        const a = new pg.Client({ connectionString: server });
        await a.connect();
        await a.query(`drop database if exists ${name} with (force)`);
        await a.end();
      },
    };
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `svc-${prefix}-`));
  const db = await openDatabase({ url: null, dataDir, log: () => undefined });
  return {
    url: db.url,
    pool: db.pool,
    async dispose() {
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
