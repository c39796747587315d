// Launches the built dashboard (`node dashboard/build`, exactly what `npm start` and the image run) as a
// child process on a free port in front of a given gateway: for the browser tests and bench:dashboard.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

export const DASHBOARD_DIR = fileURLToPath(new URL("..", import.meta.url));
export const DASHBOARD_ENTRY = fileURLToPath(new URL("../build/index.js", import.meta.url));

export interface DashboardServer {
  readonly base: string;
  readonly output: string[];
  close(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** `port`: a given one (a test that restarts the dashboard where the browser expects it), else a free one. */
// SHUTDOWN_TIMEOUT 1 s: adapter-node otherwise holds a live stream open for 30 s after SIGTERM.
export async function startDashboard(apiUrl: string, env: Record<string, string> = {}, port?: number): Promise<DashboardServer> {
  port ??= await freePort();
  const output: string[] = [];
  const child: ChildProcess = spawn(process.execPath, [DASHBOARD_ENTRY], {
    env: { ...process.env, SVC_DASHBOARD_PORT: String(port), SVC_DASHBOARD_HOST: "127.0.0.1", SVC_API_URL: apiUrl, SVC_PUBLIC_API_URL: apiUrl, SVC_DASHBOARD_SHUTDOWN_TIMEOUT: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dashboard did not start: ${output.join("")}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (output.join("").includes("Listening on")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`dashboard exited with ${code}: ${output.join("")}`));
    });
  });
  return {
    base: `http://127.0.0.1:${port}`,
    output,
    async close() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
