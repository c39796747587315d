// npm run bench:event-path [-- --against OTHER_CHECKOUT --rounds 3 --instructions]
// The gateway's own work on an ingested row, without HTTP or PostgreSQL (the workload: event-path.ts), as one
// bundle per checkout: this checkout's workload and scenario with the gateway's and core's code of `--against`
// for the other, so both do the same work. Each bundle runs in its own process, alternated for `--rounds` rounds,
// and prints the CPU time a row after a warm-up.
//
// `--instructions` counts instructions instead: CPU time on this shared box moves ±30 % from run to run, an
// instruction count does not. Each bundle runs under callgrind at three request counts, and the difference in
// instructions over the difference in rows is its cost a row (start-up, module loading and most of the JIT's
// warm-up cancel). V8 runs single-threaded with its hash and random seeds fixed: the same build then counts the
// same to 0.05–0.25 %. Two builds compare less well than one with itself: where a code change moves the JIT's
// tier-ups and the heap's collections, whole compilations and mark-compacts (~50 million instructions, ~0.8 % of a
// window) move into or out of the window. So the collector is held off (64 MB semi-spaces, a 1 GB old space, no
// memory reducer, whose timers fire by the clock and so at a different row under callgrind each run: 6 scavenges and
// no mark-compact in 128,000 requests, against 36 and one by default; its cost is the gateway bench's "garbage
// collection" row), and each build is counted over two windows, 16,000 → 64,000 and
// 64,000 → 128,000 requests. Measured on one pair of bundles, the difference between the builds was +0.2 % in one
// window and −0.9 % in the other (by default −0.9 % and +1.5 % over 16k → 64k and 32k → 128k): a difference smaller
// than the windows' disagreement is not one this tool resolves. ~4 minutes a checkout.
import { spawn } from "node:child_process";
import path from "node:path";
import { parseArgs } from "node:util";
import { repoRoot } from "../../gateway/src/repo-root.ts";
import { bundleWithCodeOf } from "./checkout-bundle.ts";

const { values: args } = parseArgs({
  options: { against: { type: "string" }, rounds: { type: "string", default: "3" }, instructions: { type: "boolean", default: false }, requests: { type: "string", default: "200000" } },
});

interface Run {
  readonly rows: number;
  readonly us_per_row: number;
  readonly value_lookups_per_row?: number | null;
}

function run(file: string, nodeArgs: string[], workloadArgs: string[], under: string[] = []): Promise<{ run: Run; stderr: string }> {
  const command = [...under, process.execPath, ...nodeArgs, file, ...workloadArgs];
  const child = spawn(command[0]!, command.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) reject(new Error(`${command.join(" ")} exited ${code}: ${stderr.slice(-2000)}`));
      else resolve({ run: JSON.parse(stdout.trim().split("\n").at(-1)!) as Run, stderr });
    });
  });
}

// Three request counts: two windows of ~58,000 and ~78,000 rows (16,000 → 64,000 → 128,000 requests of the scenario).
const COUNTS = [16_000, 64_000, 128_000] as const;
// The collector held off in the counted runs (see the top of this file).
const COLLECTOR_HELD_OFF = ["--min-semi-space-size=64", "--max-semi-space-size=64", "--initial-old-space-size=1024", "--no-memory-reducer"];

interface PerRow {
  /** Instructions a row over the whole span, 16,000 → 128,000 requests. */
  readonly span: number;
  /** The same over each window: how far apart they are is what a comparison can resolve. */
  readonly windows: readonly [number, number];
}

/** The three counts of one build at once: on 2 cores they take about as long as the largest. */
async function instructionsPerRow(file: string): Promise<PerRow> {
  const counted = await Promise.all(COUNTS.map(async (requests) => {
    const nodeArgs = ["--single-threaded", "--hash-seed=1", "--random-seed=1", ...COLLECTOR_HELD_OFF];
    const { run: r, stderr } = await run(file, nodeArgs, ["--requests", String(requests), "--warm-up", "0"], ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]);
    const collected = /Collected : (\d+)/.exec(stderr);
    if (!collected) throw new Error(`no instruction count from callgrind: ${stderr.slice(-500)}`);
    return { rows: r.rows, instructions: Number(collected[1]) };
  }));
  const perRow = (a: number, b: number) => Math.round((counted[b]!.instructions - counted[a]!.instructions) / (counted[b]!.rows - counted[a]!.rows));
  return { span: perRow(0, 2), windows: [perRow(0, 1), perRow(1, 2)] };
}

const builds = [{ label: "this", root: repoRoot }];
if (args.against) builds.push({ label: "against", root: path.resolve(args.against) });
const files = new Map<string, string>();
for (const b of builds) files.set(b.label, await bundleWithCodeOf("event-path.ts", b.label, b.root));

const results: Record<string, number[]> = Object.fromEntries(builds.map((b) => [b.label, []]));
// The rollup counters' value lookups a row (CPU-time mode; the same in every round of one build).
const lookups: Record<string, number | null> = {};
const windows: Record<string, (readonly [number, number])[]> = Object.fromEntries(builds.map((b) => [b.label, []]));
const rounds = args.instructions ? 1 : Number(args.rounds);
for (let round = 0; round < rounds; round++) {
  // Alternated: each build goes first every other round.
  const order = round % 2 === 0 ? builds : [...builds].reverse();
  for (const b of order) {
    if (args.instructions) {
      const counted = await instructionsPerRow(files.get(b.label)!);
      results[b.label]!.push(counted.span);
      windows[b.label]!.push(counted.windows);
    } else {
      const r = (await run(files.get(b.label)!, [], ["--requests", args.requests!])).run;
      results[b.label]!.push(r.us_per_row);
      lookups[b.label] = r.value_lookups_per_row ?? null;
    }
  }
  const detail = (label: string) =>
    args.instructions
      ? ` (windows ${windows[label]!.at(-1)!.map((n) => n.toLocaleString("en-US")).join(" · ")})`
      : lookups[label] === null ? "" : ` (${lookups[label]} value lookups a row)`;
  const figure = (label: string) => `${label} ${results[label]!.at(-1)!.toLocaleString("en-US")}${detail(label)}`;
  console.log(`round ${round + 1}: ${builds.map((b) => figure(b.label)).join(" · ")} ${args.instructions ? "instructions" : "µs of CPU"} a row`);
}
if (args.instructions && args.against) {
  // The difference in each window: one that changes sign, or moves by more than itself, is not resolved.
  const change = (i: number) => ((windows.this![0]![i]! / windows.against![0]![i]! - 1) * 100).toFixed(2);
  console.log(`this against the other build: ${change(0)} % over 16,000 → 64,000 requests, ${change(1)} % over 64,000 → 128,000`);
}
console.log(JSON.stringify({ unit: args.instructions ? "instructions_per_row" : "cpu_us_per_row", ...results, ...(args.instructions ? { windows } : { value_lookups_per_row: lookups }) }));
