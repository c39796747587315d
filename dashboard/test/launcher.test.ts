// `npm start`'s launcher (scripts/start.ts): one command brings up the gateway and the dashboard in front
// of it, trusting the dashboard's forwarded browser address (two browsers, two login buckets), and prints
// the URL to open; on ports that are not the defaults the install panel names this gateway, and its
// `npm install` command installs the middleware package the gateway serves; SIGTERM to the launcher stops
// both cleanly and it exits 0.
import { execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../gateway/test/support/database.ts";
import { launchBrowser } from "../../tracker/test/support/browser.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD } from "../../gateway/test/support/auth.ts";
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

    // The URL to open, printed once both answer.
    await until(async () => (output.join("").includes("svc is running: open") ? true : null), 10_000);
    expect(output.join("")).toContain(`svc is running: open http://127.0.0.1:${dashboardPort}/app`);

    // The install panel, as a newcomer sees it after adding a site: this gateway's port, not 8080.
    const gateway = `http://127.0.0.1:${gatewayPort}`;
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ baseURL: dashboard });
      await page.goto("/app/login");
      await page.getByLabel("Email").fill(ADMIN_EMAIL);
      await page.getByLabel("Password").fill(ADMIN_PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL((url) => url.pathname === "/app");
      await page.getByRole("button", { name: "Add site" }).click();
      await page.getByLabel("Domain").fill("launch.example");
      await page.getByRole("button", { name: "Add", exact: true }).click();
      await page.getByTestId("install-panel").waitFor();
      expect(await page.getByTestId("snippet-script").textContent()).toBe(`<script defer data-domain="launch.example" src="${gateway}/js/svc.js"></script>`);
      await page.getByRole("tab", { name: /Express/ }).click();
      expect(await page.getByTestId("snippet-express").textContent()).toContain(`"${gateway}/api/hit"`);
      const install = await page.getByTestId("adapters-install").textContent();
      expect(install).toBe(`npm install ${gateway}/adapters.tgz`);
      // The pasted script tag tracks: its src answers, and so does the command (npm, from this gateway only).
      expect((await fetch(`${gateway}/js/svc.js`)).status).toBe(200);
      const project = await mkdtemp(join(tmpdir(), "svc-install-"));
      try {
        await writeFile(join(project, "package.json"), JSON.stringify({ name: "site", version: "1.0.0", type: "module" }));
        const [npm, ...args] = install!.split(" ");
        await promisify(execFile)(npm!, [...args, "--no-audit", "--no-fund"], { cwd: project, timeout: 60_000 });
        const manifest = JSON.parse(await readFile(join(project, "node_modules/@svc/adapters/package.json"), "utf8"));
        expect(manifest.name).toBe("@svc/adapters");
        const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", 'const m = await import("@svc/adapters/express"); console.log(typeof m.svc)'], { cwd: project });
        expect(stdout.trim()).toBe("function");
      } finally {
        await rm(project, { recursive: true, force: true });
      }
    } finally {
      await browser.close();
    }
  } catch (error) {
    throw new Error(`${String(error)}\n${output.join("")}`);
  } finally {
    launcher.kill("SIGTERM");
  }
  expect(await exited).toBe(0);
  await expect(fetch(`http://127.0.0.1:${gatewayPort}/healthz`)).rejects.toThrow();
  await expect(fetch(`http://127.0.0.1:${dashboardPort}/app/login`)).rejects.toThrow();
});
