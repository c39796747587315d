// npm run bench:http [-- --rate 6000 --seconds 8 --rounds 4 --against OTHER_CHECKOUT --browser-headers]
// The HTTP transport's own CPU per request: the bare uWebSockets.js app (ceiling-server.ts) and this checkout's
// transport + router answering 202 (http-transport-server.ts), each in its own process, driven by the ingest
// bench's client at one fixed request rate, alternating; each process's CPU over the driven seconds (from /proc)
// divided by the requests answered. At a fixed rate below every server's capacity the figures compare on a box
// loaded by others, where throughput does not. `--against` adds another checkout's transport (A/B).
// `--browser-headers` sends each /api/event with the headers a browser's beacon carries besides the scenario's.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { parseArgs } from "node:util";
import { repoRoot } from "../../gateway/src/repo-root.ts";
import { driveScenario } from "./load.ts";
import { buildScenario } from "./scenario.ts";

const { values: args } = parseArgs({
  options: {
    rate: { type: "string", default: "6000" },
    seconds: { type: "string", default: "8" },
    rounds: { type: "string", default: "4" },
    against: { type: "string" },
    "browser-headers": { type: "boolean", default: false },
  },
});
const rate = Number(args.rate);
const seconds = Number(args.seconds);
// What Chrome 131's navigator.sendBeacon from the tracker adds to the scenario's Host, Content-Type, User-Agent,
// X-Forwarded-For and Content-Length: 12 headers more (a proxy in front adds its own).
const BROWSER_HEADERS: Record<string, string> = {
  "sec-ch-ua": '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"', "sec-ch-ua-mobile": "?0",
  "sec-ch-ua-platform": '"Windows"', accept: "*/*", origin: "https://bench.example", "sec-fetch-site": "cross-site",
  "sec-fetch-mode": "no-cors", "sec-fetch-dest": "empty", referer: "https://bench.example/pricing",
  "accept-encoding": "gzip, deflate, br, zstd", "accept-language": "en-US,en;q=0.9,de;q=0.8", priority: "u=4, i",
};
const scenario = args["browser-headers"]
  ? buildScenario().map((r) => (r.path === "/api/event" ? { ...r, headers: { ...r.headers, ...BROWSER_HEADERS } } : r))
  : buildScenario();

function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(stat[11]) + Number(stat[12])) / 100;
}

/** µs of the server's CPU per answered request at the fixed rate (1.5 s of warm-up first). */
async function measure(argv: string[]): Promise<{ us: number; requestsPerS: number; errors: number }> {
  const child = spawn(process.execPath, ["--import", "tsx", ...argv], { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let buffer = "";
      child.stdout.on("data", (c: Buffer) => {
        const m = /"port":(\d+)/.exec((buffer += c.toString()));
        if (m) resolve(Number(m[1]));
      });
      child.once("exit", (code) => reject(new Error(`${argv.join(" ")} exited (${code}) before listening`)));
    });
    await driveScenario(port, scenario, 1.5, 64, rate);
    const before = cpuSeconds(child.pid!);
    const load = await driveScenario(port, scenario, seconds, 64, rate);
    const cpu = cpuSeconds(child.pid!) - before;
    return { us: Math.round((1e7 * cpu) / Math.max(1, load.requestsPerS * seconds)) / 10, requestsPerS: load.requestsPerS, errors: load.errors };
  } finally {
    child.kill("SIGTERM");
  }
}

const servers: Array<[string, string[]]> = [
  ["bare uWebSockets.js", ["bench/src/ceiling-server.ts"]],
  ["this transport", ["bench/src/http-transport-server.ts", repoRoot]],
];
if (args.against) servers.push([`transport of ${args.against}`, ["bench/src/http-transport-server.ts", args.against]]);

console.log(`transport CPU per request at ${rate} requests/s, 64 connections, ${seconds} s each, alternating`);
const results: Array<Record<string, number>> = [];
for (let round = 0; round < Number(args.rounds); round++) {
  const order = round % 2 === 0 ? servers : [...servers].reverse();
  const figures: Record<string, number> = {};
  for (const [name, argv] of order) figures[name] = (await measure(argv)).us;
  const load = fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(`round ${round + 1}: ${servers.map(([name]) => `${name} ${figures[name]} µs`).join(" · ")} · load ${load}`);
  results.push(figures);
}
console.log(JSON.stringify(results));
