// `npm start`: builds what is needed, then runs the gateway (:8080) and the dashboard (:3000) side by side.
// SIGINT (Ctrl-C) and SIGTERM are passed to both and the launcher waits until both have stopped (the
// gateway commits its last batch first); if either exits on its own, the other is stopped too and the
// launcher exits with the first one's code.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dashboardDir = path.join(root, "dashboard");
const dashboardEntry = path.join(dashboardDir, "build", "index.js");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

// 2 s: adapter-node waits SHUTDOWN_TIMEOUT (30 s by default) for open requests, and a live SSE stream never
// ends by itself; two seconds lets ordinary requests finish without holding Ctrl-C up.
const DASHBOARD_SHUTDOWN_SECONDS = "2";

// The dashboard sets X-Forwarded-For to each browser's address on its calls to the gateway
// (dashboard/src/lib/server/gateway.ts); the gateway believes that header only from the proxies in
// SVC_TRUST_PROXY. Both run on this machine, so loopback is trusted unless the operator named their own
// proxies: without it every sign-in through the dashboard would be one client to the login limiter.
const LOOPBACK_PROXY = "127.0.0.1,::1";

function newestMtime(target: string): number {
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

/** The dashboard is rebuilt only when its sources are newer than its build (a vite build takes ~20 s here). */
function dashboardIsStale(): boolean {
  if (!existsSync(dashboardEntry)) return true;
  const sources = ["src", "static", "svelte.config.js", "vite.config.ts", "package.json"].map((p) => path.join(dashboardDir, p)).filter(existsSync);
  const core = path.join(root, "core", "src", "display");
  return Math.max(...sources.map(newestMtime), newestMtime(core)) > statSync(dashboardEntry).mtimeMs;
}

function build(): void {
  const run = (args: string[]) => execFileSync(npm, args, { cwd: root, stdio: "inherit" });
  run(["run", "build:tracker"]);
  run(["run", "build:gateway"]);
  run(["run", "build:adapters"]);
  if (dashboardIsStale()) run(["run", "build", "-w", "dashboard"]);
}

/** A listen address as a browser on this machine opens it: the wildcard ones are `localhost`. */
const browsable = (host: string) => (host === "0.0.0.0" || host === "::" || host === "" ? "localhost" : host.includes(":") ? `[${host}]` : host);

/** Polls the dashboard until it answers, then prints where to open it (one line, so it is not lost in the logs). */
async function announce(dashboardUrl: string, gatewayUrl: string, stopped: () => boolean): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!stopped() && Date.now() < deadline) {
    const up = await fetch(`${dashboardUrl}/app/login`).then((r) => r.status < 500, () => false);
    if (up) {
      process.stdout.write(`\nsvc is running: open ${dashboardUrl}/app (the gateway, for the script tag and the middleware: ${gatewayUrl})\n\n`);
      return;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

function main(): void {
  build();
  const gatewayPort = process.env.SVC_PORT ?? "8080";
  const dashboardPort = process.env.SVC_DASHBOARD_PORT ?? "3000";
  const dashboardHost = process.env.SVC_DASHBOARD_HOST ?? "0.0.0.0";
  const gatewayHost = browsable(process.env.SVC_HOST ?? "localhost");
  // The gateway as browsers and site owners' servers reach it, for the install panel: SVC_PUBLIC_API_URL when
  // set, else this machine at the gateway's port (the panel keeps the dashboard's own host name).
  const publicApi = process.env.SVC_PUBLIC_API_URL?.trim() ? {} : { SVC_PUBLIC_API_PORT: gatewayPort };
  const children: { name: string; child: ChildProcess }[] = [
    {
      name: "gateway",
      child: spawn(process.execPath, ["--enable-source-maps", path.join(root, "gateway", "dist", "main.mjs")], {
        cwd: root,
        stdio: "inherit",
        env: { ...process.env, SVC_TRUST_PROXY: process.env.SVC_TRUST_PROXY || LOOPBACK_PROXY },
      }),
    },
    {
      name: "dashboard",
      child: spawn(process.execPath, [dashboardEntry], {
        cwd: root,
        stdio: "inherit",
        env: {
          ...process.env,
          ...publicApi,
          SVC_DASHBOARD_PORT: dashboardPort,
          SVC_DASHBOARD_HOST: dashboardHost,
          SVC_DASHBOARD_SHUTDOWN_TIMEOUT: process.env.SVC_DASHBOARD_SHUTDOWN_TIMEOUT ?? DASHBOARD_SHUTDOWN_SECONDS,
          SVC_API_URL: process.env.SVC_API_URL ?? `http://127.0.0.1:${gatewayPort}`,
        },
      }),
    },
  ];
  let stopping = false;
  let exitCode: number | null = null;
  const stopAll = (signal: NodeJS.Signals) => {
    for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  const exits = children.map(
    ({ name, child }) =>
      new Promise<void>((resolve) =>
        child.once("exit", (code, signal) => {
          if (!stopping) {
            // One of the two stopped by itself: the other is no use alone.
            process.stderr.write(`svc: the ${name} exited (${signal ?? code}); stopping the other process\n`);
            stopping = true;
            exitCode = code ?? 1;
            stopAll("SIGTERM");
          }
          resolve();
        }),
      ),
  );
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      exitCode = 0;
      stopAll(signal);
    });
  }
  void Promise.all(exits).then(() => process.exit(exitCode ?? 0));
  void announce(`http://${browsable(dashboardHost)}:${dashboardPort}`, process.env.SVC_PUBLIC_API_URL?.trim() || `http://${gatewayHost}:${gatewayPort}`, () => stopping);
}

main();
