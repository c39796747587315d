// Every 202 has its row: the gateway acknowledges only after the batch holding the event committed,
// so neither a graceful SIGTERM nor a kill -9 in the middle of load loses an acknowledged event; after
// either, every rollup equals its raw rows. A SIGTERM during startup still ends in a graceful stop.
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { bundleGateway } from "../scripts/bundle.ts";
import { addSite } from "../src/storage/sites.ts";
import { createTestDatabase, type TestDatabase } from "./support/database.ts";
import { launchGateway } from "../src/launch.ts";
import { UA } from "./support/harness.ts";
import { recomputedRollups, storedRollups } from "./support/recompute.ts";
import { readRepairMark } from "../src/rollups/rollup-writes.ts";

async function loadUntil(port: number, stop: { now: boolean }, acked: Set<number>, connections = 16): Promise<number> {
  let next = 0;
  let sent = 0;
  const worker = async () => {
    while (!stop.now) {
      const n = next++;
      sent++;
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/event`, {
          method: "POST",
          headers: { "content-type": "text/plain", "user-agent": UA.chrome },
          body: JSON.stringify({ d: "example.com", u: `https://example.com/d/${n}` }),
        });
        if (res.status === 202) acked.add(n);
        await res.arrayBuffer();
      } catch {
        return; // the process is gone: whatever was not acknowledged may or may not be stored
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  return sent;
}

describe.each(["SIGTERM", "SIGKILL"] as const)("durability under %s during load", (signal) => {
  let db: TestDatabase | null = null;
  afterEach(async () => {
    await db?.drop();
  });

  it("stores every acknowledged event", async () => {
    db = await createTestDatabase();
    await addSite(db.pool, { domain: "example.com" });
    // One client sending as fast as it can: the per-client event limit (429) is not what this test is about.
    const gw = await launchGateway({ DATABASE_URL: db.url, SVC_EVENT_RATE_PER_CLIENT: "0" });
    const acked = new Set<number>();
    const stop = { now: false };
    const loading = loadUntil(gw.port, stop, acked);
    await new Promise((r) => setTimeout(r, 1500));
    gw.child.kill(signal);
    const exit = await gw.exited();
    stop.now = true;
    await loading;

    if (signal === "SIGTERM") expect(exit).toEqual({ code: 0, signal: null });
    else expect(exit.signal).toBe("SIGKILL");
    expect(acked.size).toBeGreaterThan(100);
    const { rows } = await db.pool.query("select page from events");
    const stored = new Set(rows.map((r) => Number(String(r.page).slice(3))));
    const lost = [...acked].filter((n) => !stored.has(n));
    expect(lost).toEqual([]);

    // Rollups: a clean stop wrote every count; after kill -9 the next gateway recomputes them at boot.
    if (signal === "SIGTERM") expect(await readRepairMark(db.pool)).toBe(null);
    else {
      expect(await readRepairMark(db.pool)).not.toBe(null);
      const next = await launchGateway({ DATABASE_URL: db.url });
      next.child.kill("SIGTERM");
      expect(await next.exited()).toEqual({ code: 0, signal: null });
      expect(next.output.join("\n")).toContain("did not stop cleanly");
    }
    const siteId = (await db.pool.query("select id from sites")).rows[0].id;
    for (const grain of ["day", "hour"] as const) expect(await storedRollups(db.pool, siteId, grain)).toEqual(await recomputedRollups(db.pool, siteId, grain));
  });
});

describe("a signal during startup", () => {
  let db: TestDatabase | null = null;
  afterEach(async () => {
    await db?.drop();
  });

  it("is honoured once the gateway is up: a graceful stop, exit 0", async () => {
    db = await createTestDatabase();
    const child = spawn(process.execPath, [await bundleGateway()], {
      env: { ...process.env, DATABASE_URL: db.url, SVC_PORT: "0", SVC_HOST: "127.0.0.1", SVC_LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: string[] = [];
    let signalled = false;
    child.stdout.on("data", (chunk: Buffer) => {
      lines.push(...chunk.toString().split("\n").filter(Boolean));
      // The first log line comes from inside startup, before the HTTP server listens.
      if (!signalled) {
        signalled = true;
        child.kill("SIGTERM");
      }
    });
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
    expect(exit).toEqual({ code: 0, signal: null });
    const messages = lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages.indexOf("shutting down")).toBeGreaterThan(messages.indexOf("gateway listening"));
    expect(messages).toContain("gateway stopped");
  });
});
