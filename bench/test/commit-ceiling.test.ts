// The commit ceiling of `npm run bench -- --commit-ceiling` keeps the promise it measures: a 202 only once the
// request's rows are committed, every row of a hit array its own row, batches shared by concurrent requests.
// A real server process on a real socket, on a real PostgreSQL database.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../gateway/test/support/database.ts";
import { COMMIT_CEILING_TABLE } from "../src/ceiling-app.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

describe("commit ceiling server", () => {
  let db: TestDatabase;
  let child: ChildProcess;
  let output = "";
  let base = "";
  const stored = async (): Promise<number> => (await db.pool.query<{ n: number }>(`select count(*)::int as n from ${COMMIT_CEILING_TABLE}`)).rows[0]!.n;

  beforeAll(async () => {
    db = await createTestDatabase({ migrate: false });
    child = spawn(process.execPath, ["--import", "tsx", "bench/src/commit-ceiling-server.ts"], {
      cwd: root, stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, DATABASE_URL: db.url },
    });
    child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout!.on("data", () => {
        const m = /"port":(\d+)/.exec(output);
        if (m) resolve(Number(m[1]));
      });
      child.once("exit", (code) => reject(new Error(`exited ${code}`)));
    });
    base = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    if (child.exitCode === null) child.kill("SIGKILL");
    await db.drop();
  });

  it.each([
    { label: "an event", path: "/api/event", body: JSON.stringify({ d: "x.example", n: "pageview", u: "https://x.example/a\tb\\c" }), rows: 1, cors: "*" },
    { label: "a hit array of three", path: "/api/hit", body: JSON.stringify([{ path: "/a" }, { path: "/b" }, { path: "/c" }]), rows: 3, cors: null },
  ])("answers $label 202 once its rows are committed", async ({ path: route, body, rows, cors }) => {
    const before = await stored();
    const res = await fetch(`${base}${route}`, { method: "POST", body });
    expect(res.status).toBe(202);
    expect(res.headers.get("access-control-allow-origin")).toBe(cors);
    expect(await stored()).toBe(before + rows);
  });

  it("stores a row's JSON text as it came", async () => {
    const { rows } = await db.pool.query<{ body: string }>(`select body from ${COMMIT_CEILING_TABLE} order by ts, body`);
    expect(rows.map((r) => JSON.parse(r.body) as unknown)).toContainEqual({ d: "x.example", n: "pageview", u: "https://x.example/a\tb\\c" });
    expect(rows.map((r) => JSON.parse(r.body) as unknown)).toContainEqual({ path: "/b" });
  });

  it("commits concurrent requests in shared batches, and reports them when stopped", async () => {
    const before = await stored();
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => fetch(`${base}/api/event`, { method: "POST", body: JSON.stringify({ i }) })));
    expect(answers.map((r) => r.status)).toEqual(Array(200).fill(202));
    expect(await stored()).toBe(before + 200);
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    const report = JSON.parse(output.trim().split("\n").at(-1)!) as { commits: number; rows: number; copyMs: number; answerMs: number };
    expect(report.rows).toBe(before + 200);
    // Its cycle's parts, as the gateway's writer sums them: every commit waited for PostgreSQL, and answered.
    expect(report.copyMs).toBeGreaterThan(0);
    expect(report.answerMs).toBeGreaterThan(0);
    // 202 requests, fewer commits: requests that arrive while a commit is in flight share the next one.
    expect(report.commits).toBeLessThan(2 + 200);
  });
});
