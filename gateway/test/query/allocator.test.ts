// DuckDB's allocator hands freed memory back within 100 ms (engine.ts DUCKDB_ALLOCATOR_CONF). jemalloc reads its
// settings once, when DuckDB's library loads, so the engine loads the library itself, after setting them: a
// static import anywhere in the gateway would load it at start, with jemalloc's default decay, and RSS would stay
// up by what the last statement used. Each check in a process of its own.
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchGateway } from "../../src/launch.ts";
import { repoRoot } from "../../src/repo-root.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

/** Runs `source` (an ES module, top-level await) with tsx in a child process; its last stdout line as JSON. */
function runModule(source: string): Promise<Record<string, number>> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env["DUCKDB_JE_MALLOC_CONF"];
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", source], { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) =>
    child.once("exit", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").at(-1)!)) : reject(new Error(`exit ${code}: ${err}`)))),
  );
}

it("after a statement that used ~250 MB, the engine's DuckDB gives it back within 250 ms: RSS within 60 MB of before", async () => {
  const tempDir = mkdtempSync(path.join(os.tmpdir(), "svc-allocator-"));
  const figures = await runModule(`
    import { readFileSync } from "node:fs";
    import { openDuckDB } from "./gateway/src/query/engine.ts";
    const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]) / 1024;
    const db = await openDuckDB(${JSON.stringify(tempDir)}, { threads: 2, memoryLimit: "512MB" });
    const connection = await db.connect();
    const before = rss();
    // A hash table of 15M distinct values: ~250 MB while it runs.
    await connection.run("select count(distinct i) from range(15000000) t(i)");
    // jemalloc's default hands it back 1–2 s later (+240–300 MB still at 250 ms); the engine's, after 100 ms.
    await new Promise((resolve) => setTimeout(resolve, 250));
    const after = rss();
    console.log(JSON.stringify({ before, after }));
  `);
  expect(figures["after"]! - figures["before"]!).toBeLessThan(60);
}, 60_000);

it("the gateway starts without DuckDB's library loaded, so the engine's settings reach jemalloc", async () => {
  const gateway = await launchGateway({ DATABASE_URL: db.url, SVC_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "svc-allocator-")) });
  try {
    const maps = await readFile(`/proc/${gateway.child.pid}/maps`, "utf8");
    expect(maps).toContain("uws_linux");
    expect(maps).not.toContain("libduckdb");
  } finally {
    gateway.child.kill("SIGTERM");
    await gateway.exited();
  }
}, 60_000);
