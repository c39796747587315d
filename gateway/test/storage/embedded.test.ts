// The embedded PostgreSQL of a machine without DATABASE_URL: started by the first process, joined by the
// next (the operator CLI while the gateway runs), stopped only by the process that started it.
import { mkdtemp, readFile, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../src/storage/database.ts";
import { socketDirFor } from "../../src/storage/embedded-server.ts";
import { addSite, listSites } from "../../src/storage/sites.ts";
import { runCli } from "../support/cli.ts";

const NOW = Date.UTC(2026, 10, 21, 12);
let parent: string;
let dataDir: string;
const opened: Database[] = [];

beforeAll(async () => {
  // Inside a mode-0700 folder (what mkdtemp makes), like a checkout under /root: as root, the postgres
  // user must still reach the data dir.
  parent = await mkdtemp(join(tmpdir(), "svc-embedded-"));
  dataDir = join(parent, "data");
});
afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
  await rm(parent, { recursive: true, force: true });
});

async function open(log: string[] = []): Promise<Database> {
  const db = await openDatabase({ url: null, dataDir, log: (line) => log.push(line), nowMs: () => NOW });
  opened.push(db);
  return db;
}

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe("the embedded server's Unix socket", () => {
  it.each([
    ["a data directory", "/var/lib/svc/data/pg", "/var/lib/svc/data/pg"],
    ["a path whose socket file just fits (107 bytes)", `/${"d".repeat(107 - "/".length - "/.s.PGSQL.54321".length)}`, `/${"d".repeat(107 - "/".length - "/.s.PGSQL.54321".length)}`],
    ["a path one byte too long: TCP only", `/${"d".repeat(108 - "/".length - "/.s.PGSQL.54321".length)}`, null],
    ["non-ASCII counted in bytes (62 characters, 108 bytes)", `/${"ü".repeat(46)}`, null],
    ["a comma (the setting's list separator)", "/srv/a,b/pg", null],
    ["a space", "/srv/my data/pg", null],
    ["a quote", "/srv/it's/pg", null],
  ])("%s", (_name, pgDir, expected) => {
    expect(socketDirFor(pgDir, 54321)).toBe(expected);
  });
});

describe("embedded PostgreSQL", () => {
  it("initialises under the data dir, on a port other than 5432, with migrations and partitions", async () => {
    const log: string[] = [];
    const gateway = await open(log);
    expect(gateway.embedded).toBe(true);
    const settings = JSON.parse(await readFile(join(dataDir, "embedded-postgres.json"), "utf8"));
    expect(settings.port).not.toBe(5432);
    expect(new URL(gateway.url).port).toBe(String(settings.port));
    expect(log.some((l) => l.includes("initialising"))).toBe(true);
    expect(log.some((l) => l.includes("started on 127.0.0.1"))).toBe(true);
    // Its connections go through the Unix socket in its own data directory; TCP on loopback still answers.
    const pgDir = join(dataDir, "pg");
    expect(new URL(gateway.url).searchParams.get("host")).toBe(pgDir);
    expect(log.some((l) => l.includes(`Unix socket in ${pgDir}`))).toBe(true);
    const client = (await gateway.pool.query<{ address: string | null }>("select inet_client_addr()::text as address")).rows[0]!;
    expect(client.address).toBeNull();
    expect(await reachable(`postgres://postgres:${encodeURIComponent(settings.password)}@127.0.0.1:${settings.port}/postgres`)).toBe(true);
    // Quiet: the server's own output goes to a file, not to our log.
    expect(log.every((l) => !l.includes("database system is ready"))).toBe(true);
    expect(await readFile(join(dataDir, "postgres.log"), "utf8")).toContain("database system is ready to accept connections");
    const partitions = await gateway.pool.query("select count(*)::int as n from pg_class where relname in ('events_2026_11', 'events_2026_12')");
    expect(partitions.rows[0].n).toBe(2);
  });

  it("a second process attaches to the running server, and closing it leaves the server up", async () => {
    const gateway = opened[0]!;
    await addSite(gateway.pool, { domain: "embedded.example" });
    const log: string[] = [];
    const cli = await open(log);
    // The socket as the running server's postmaster.pid names it.
    expect(cli.url).toBe(gateway.url);
    expect(log.some((l) => l.includes("attached"))).toBe(true);
    expect((await listSites(cli.pool)).map((s) => s.domain)).toEqual(["embedded.example"]);
    await cli.close();
    expect((await listSites(gateway.pool)).map((s) => s.domain)).toEqual(["embedded.example"]);
  });

  it("the operator CLI in another process uses the same running server", async () => {
    const added = await runCli(["site", "add", "from-cli.example"], { DATABASE_URL: undefined, SVC_DATA_DIR: dataDir });
    expect(added.code).toBe(0);
    expect(added.stderr).toMatch(/attached to the embedded PostgreSQL/);
    expect((await listSites(opened[0]!.pool)).map((s) => s.domain)).toEqual(["embedded.example", "from-cli.example"]);
  });

  it("the starting process stops the server on close; the next start keeps the data", async () => {
    const gateway = opened[0]!;
    await gateway.close();
    expect(await reachable(gateway.url)).toBe(false);
    const log: string[] = [];
    const again = await open(log);
    expect(log.some((l) => l.includes("initialising"))).toBe(false);
    expect((await listSites(again.pool)).map((s) => s.domain)).toEqual(["embedded.example", "from-cli.example"]);
    await again.close();
    expect(await reachable(again.url)).toBe(false);
  });

  it("the CLI alone starts the server for its command and stops it afterwards", async () => {
    const listed = await runCli(["site", "list", "--json"], { DATABASE_URL: undefined, SVC_DATA_DIR: dataDir });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toHaveLength(2);
    expect(listed.stderr).toMatch(/embedded PostgreSQL started/);
    const settings = JSON.parse(await readFile(join(dataDir, "embedded-postgres.json"), "utf8"));
    expect(await reachable(`postgres://postgres:${encodeURIComponent(settings.password)}@127.0.0.1:${settings.port}/postgres`)).toBe(false);
  });

  it("refuses to start with a clear message when the file holding the password is gone", async () => {
    const file = join(dataDir, "embedded-postgres.json");
    await rename(file, `${file}.moved`);
    try {
      await expect(open()).rejects.toThrow(/embedded-postgres\.json is missing: it holds the password/);
    } finally {
      await rename(`${file}.moved`, file);
    }
  });
});
