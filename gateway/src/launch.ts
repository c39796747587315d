// Launches the real gateway as a child process, from the bundle `npm start` runs (built first), and waits
// until it listens: used by the durability tests (signals, kill -9) and by the ingest benchmark.
import { type ChildProcess, spawn } from "node:child_process";
import { GATEWAY_BUNDLE, bundleGateway } from "../scripts/bundle.ts";
import { repoRoot } from "./repo-root.ts";


export interface GatewayProcess {
  readonly child: ChildProcess;
  readonly port: number;
  readonly output: string[];
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `rebuild: false` runs the bundle as it is (a benchmark timing a restart must not time esbuild); `bundle` runs
 * another checkout's bundle as it is (the ingest benchmark's A/B against a previous build); `onLine` sees
 * every output line as it comes, also before the gateway listens (a test waiting on a log line).
 */
export async function launchGateway(
  env: Record<string, string>,
  options: { rebuild?: boolean; bundle?: string; onLine?: (line: string) => void } = {},
): Promise<GatewayProcess> {
  // SVC_NODE_OPTIONS adds node flags to the child only, e.g. "--cpu-prof" to profile a benchmark run.
  const nodeFlags = (process.env.SVC_NODE_OPTIONS ?? "").split(" ").filter(Boolean);
  const bundle = options.bundle ?? (options.rebuild === false ? GATEWAY_BUNDLE : await bundleGateway());
  const child = spawn(process.execPath, [...nodeFlags, "--enable-source-maps", bundle], {
    cwd: repoRoot,
    // The "gateway listening" line is at info level: that is how the port is learned.
    env: { ...process.env, SVC_PORT: "0", SVC_HOST: "127.0.0.1", ...env, SVC_LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const port = await new Promise<number>((resolve, reject) => {
    let buffer = "";
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      for (const line of lines) {
        output.push(line);
        options.onLine?.(line);
        const m = /"msg":"gateway listening".*"port":(\d+)/.exec(line);
        if (m) resolve(Number(m[1]));
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (c: Buffer) => output.push(c.toString()));
    void exit.then(({ code }) => reject(new Error(`gateway exited (${code}) before listening:\n${output.join("\n")}`)));
  });
  return { child, port, output, exited: () => exit };
}
