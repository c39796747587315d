import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/storage/database.ts";
import { loadMigrations, runMigrations } from "../../src/storage/migrations.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";

const NOW = Date.UTC(2026, 10, 21, 12);
const databases: TestDatabase[] = [];
async function emptyDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase({ migrate: false });
  databases.push(db);
  return db;
}
afterEach(async () => {
  await Promise.all(databases.splice(0).map((db) => db.drop()));
});

async function appliedVersions(db: TestDatabase): Promise<number[]> {
  const result = await db.pool.query<{ version: number }>("select version from schema_migrations order by version");
  return result.rows.map((row) => row.version);
}

describe("migrations", () => {
  it("finds sql/NNN_*.sql in order, starting with the schema", async () => {
    const migrations = await loadMigrations();
    expect(migrations[0]!.name).toBe("001_init");
    expect(migrations.map((m) => m.version)).toEqual([...migrations.map((m) => m.version)].sort((a, b) => a - b));
    expect(migrations.map((m) => m.name)).toContain("002_sites_notify");
  });

  it("applies every migration once; running again applies nothing", async () => {
    const db = await emptyDatabase();
    const all = (await loadMigrations()).map((m) => m.name);
    expect(await runMigrations(db.pool, () => {})).toEqual(all);
    expect(await runMigrations(db.pool, () => {})).toEqual([]);
    expect(await appliedVersions(db)).toEqual((await loadMigrations()).map((m) => m.version));
    const tables = await db.pool.query("select count(*)::int as n from pg_tables where tablename in ('sites', 'salts', 'events', 'hits', 'rollup_hourly', 'rollup_daily')");
    expect(tables.rows[0].n).toBe(6);
  });

  it("two processes migrating at once apply each file exactly once (advisory lock)", async () => {
    const db = await emptyDatabase();
    const [a, b] = await Promise.all([runMigrations(db.pool, () => {}), runMigrations(db.pool, () => {})]);
    const all = (await loadMigrations()).map((m) => m.name);
    expect([...a, ...b].sort()).toEqual(all);
  });

  it("two openDatabase calls in parallel both end up with the migrated schema and this month's partitions", async () => {
    const db = await emptyDatabase();
    const log: string[] = [];
    const opened = await Promise.all([
      openDatabase({ url: db.url, dataDir: "unused", log: (l) => log.push(l), nowMs: () => NOW }),
      openDatabase({ url: db.url, dataDir: "unused", log: (l) => log.push(l), nowMs: () => NOW }),
    ]);
    try {
      expect(opened.map((d) => d.embedded)).toEqual([false, false]);
      expect(await appliedVersions(db)).toEqual((await loadMigrations()).map((m) => m.version));
      expect(log.filter((l) => l.includes("applied migrations"))).toHaveLength(1);
      const partitions = await db.pool.query("select relname from pg_class where relname in ('events_2026_11', 'hits_2026_11', 'events_2026_12', 'hits_2026_12') order by relname");
      expect(partitions.rows.map((r) => r.relname)).toEqual(["events_2026_11", "events_2026_12", "hits_2026_11", "hits_2026_12"]);
    } finally {
      await Promise.all(opened.map((d) => d.close()));
    }
  });

  it("reports a failing migration by name and records nothing of it", async () => {
    const db = await emptyDatabase();
    const { mkdtemp, writeFile } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const dir = await mkdtemp(`${tmpdir()}/svc-migrations-`);
    await writeFile(`${dir}/001_ok.sql`, "create table a (x int);");
    await writeFile(`${dir}/002_broken.sql`, "create table b (x int); select 1/0;");
    await expect(runMigrations(db.pool, () => {}, dir)).rejects.toThrow(/002_broken.*division by zero/);
    expect(await appliedVersions(db)).toEqual([1]);
    const b = await db.pool.query("select to_regclass('b') is null as absent");
    expect(b.rows[0].absent).toBe(true);
  });
});
