// Pending hits leave with the process, and the process still ends the way it would have without us.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { HitSender } from "../src/index.ts";
import { startCollector, type Collector } from "./capture-server.ts";
import { get } from "./http-client.ts";

const CHILD = fileURLToPath(new URL("./fixtures/exit-child.ts", import.meta.url));
const GPTBOT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly ms: number;
}

function run(mode: string, endpoint: string): { child: ChildProcess; exited: Promise<Exit>; port: Promise<number> } {
  const started = Date.now();
  const child = spawn(process.execPath, ["--import", "tsx", CHILD, mode, endpoint], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<Exit>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, ms: Date.now() - started })));
  const port = new Promise<number>((resolve, reject) => {
    child.stdout!.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once("exit", () => reject(new Error("child exited before listening")));
  });
  port.catch(() => undefined);
  return { child, exited, port };
}

let collector: Collector | undefined;
afterEach(async () => {
  await collector?.close();
  collector = undefined;
});

describe("flush on exit", () => {
  it("a process that ends by itself sends its pending hit on the way out, without waiting for the interval", async () => {
    collector = await startCollector();
    const { exited } = run("idle", collector.endpoint);
    const exit = await exited;
    expect(exit).toMatchObject({ code: 0, signal: null });
    // Unref'd timers: the 10-minute interval did not keep the process alive.
    expect(exit.ms).toBeLessThan(15_000);
    expect(collector.hits()).toMatchObject([{ path: "/idle", user_agent: "ClaudeBot/1.0" }]);
  });

  it("SIGTERM with no handler of the host: the hit is sent and the process still dies by SIGTERM", async () => {
    collector = await startCollector();
    const { child, exited, port } = run("server", collector.endpoint);
    expect((await get(`http://127.0.0.1:${await port}/blog`, { "user-agent": GPTBOT })).status).toBe(200);
    child.kill("SIGTERM");
    expect(await exited).toMatchObject({ code: null, signal: "SIGTERM" });
    expect(collector.hits()).toMatchObject([{ path: "/blog", status: 200, user_agent: GPTBOT, ip: "127.0.0.1" }]);
  });

  it("SIGTERM with the host's own handler: the host decides (here: close and exit 0), the hit is sent", async () => {
    collector = await startCollector();
    const { child, exited, port } = run("server-with-handler", collector.endpoint);
    expect((await get(`http://127.0.0.1:${await port}/blog`, { "user-agent": GPTBOT })).status).toBe(200);
    child.kill("SIGTERM");
    expect(await exited).toMatchObject({ code: 0, signal: null });
    expect(collector.hits()).toMatchObject([{ path: "/blog", status: 200 }]);
  });

  it("installs one set of process listeners for any number of senders and removes it when the last one closes", async () => {
    const before = ["beforeExit", "SIGTERM", "SIGINT"].map((e) => process.listenerCount(e));
    const senders = [1, 2, 3].map(() => new HitSender({ endpoint: "http://127.0.0.1:9/api/hit", domain: "example.com" }));
    expect(["beforeExit", "SIGTERM", "SIGINT"].map((e) => process.listenerCount(e))).toEqual(before.map((n) => n + 1));
    for (const s of senders) await s.close();
    expect(["beforeExit", "SIGTERM", "SIGINT"].map((e) => process.listenerCount(e))).toEqual(before);
  });
});
