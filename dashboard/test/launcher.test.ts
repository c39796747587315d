// `npm start`'s launcher (scripts/start.ts): one command brings up the gateway and the dashboard in front
// of it, trusting the dashboard's forwarded browser address (two browsers, two login buckets); SIGTERM to the
// launcher stops both cleanly and it exits 0.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../gateway/test/support/database.ts";
import { freePort } from "../scripts/launch.ts";
import { wrongLoginFrom } from "./support/traffic.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.drop());

async function until<T>(probe: () => Promise<T | null>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 200));
  }
}

it("starts the gateway and the dashboard, proxies the API, and stops both on SIGTERM", async () => {
  const [gatewayPort, dashboardPort] = [await freePort(), await freePort()];
  const output: string[] = [];
  const launcher = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: db.url, SVC_PORT: String(gatewayPort), SVC_HOST: "127.0.0.1", SVC_DASHBOARD_PORT: String(dashboardPort), SVC_DASHBOARD_HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  launcher.stdout.on("data", (c: Buffer) => output.push(c.toString()));
  launcher.stderr.on("data", (c: Buffer) => output.push(c.toString()));
  const exited = new Promise<number | null>((resolve) => launcher.once("exit", (code) => resolve(code)));
  try {
    const dashboard = `http://127.0.0.1:${dashboardPort}`;
    const login = await until(async () => {
      const res = await fetch(`${dashboard}/app/login`);
      return res.status === 200 ? res.text() : null;
    }, 90_000);
    expect(login).toContain("Sign in");
    const openapi = await until(async () => {
      const res = await fetch(`${dashboard}/api/openapi.json`);
      return res.status === 200 ? res.json() : null;
    }, 30_000);
    expect(openapi.openapi).toMatch(/^3\.1/);
    // SVC_TRUST_PROXY is not in this environment: the launcher's loopback default lets the gateway tell browsers apart.
    expect(process.env.SVC_TRUST_PROXY).toBeUndefined();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push(await wrongLoginFrom(dashboard, "127.0.0.2"));
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
    expect(await wrongLoginFrom(dashboard, "127.0.0.3")).toBe(401);
  } catch (error) {
    throw new Error(`${String(error)}\n${output.join("")}`);
  } finally {
    launcher.kill("SIGTERM");
  }
  expect(await exited).toBe(0);
  await expect(fetch(`http://127.0.0.1:${gatewayPort}/healthz`)).rejects.toThrow();
  await expect(fetch(`http://127.0.0.1:${dashboardPort}/app/login`)).rejects.toThrow();
});
