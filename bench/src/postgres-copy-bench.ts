// npm run bench:postgres-copy [-- --against OTHER_CHECKOUT --rounds 4 --commits 3000]
// PostgreSQL's CPU a committed row of the ingest's writer, and the writer's own (the workload: postgres-copy.ts), one
// bundle per checkout (checkout-bundle.ts), on a fresh database (DATABASE_URL's server, or a throwaway embedded
// one). The PostgreSQL side is what `npm run bench` can only show as "PostgreSQL µs an event", which swings with the
// box's minute; here one backend runs nothing but the commits, and its own CPU time is read from the kernel. Rounds
// alternate the builds, each on emptied tables.
import { spawn } from "node:child_process";
import path from "node:path";
import { parseArgs } from "node:util";
import { repoRoot } from "../../gateway/src/repo-root.ts";
import { freshBenchDatabase } from "./bench-database.ts";
import { bundleWithCodeOf } from "./checkout-bundle.ts";

const { values: args } = parseArgs({ options: { against: { type: "string" }, rounds: { type: "string", default: "4" }, commits: { type: "string", default: "3000" } } });

interface Run {
  readonly rows: number;
  readonly postgres_us_per_row: number;
  readonly writer_us_per_row: number;
  readonly postgres_us_per_commit: number;
}

function run(file: string, url: string): Promise<Run> {
  const child = spawn(process.execPath, [file, "--commits", args.commits!], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, DATABASE_URL: url } });
  let stdout = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as Run) : reject(new Error(`${file} exited ${code}`))));
  });
}

const builds = [{ label: "this", root: repoRoot }];
if (args.against) builds.push({ label: "against", root: path.resolve(args.against) });
const files = new Map<string, string>();
for (const b of builds) files.set(b.label, await bundleWithCodeOf("postgres-copy.ts", b.label, b.root));

const db = await freshBenchDatabase("postgres_copy", { log: console.log });
const results: Record<string, Run[]> = Object.fromEntries(builds.map((b) => [b.label, []]));
try {
  for (let round = 0; round < Number(args.rounds); round++) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const b of order) {
      await db.pool.query("truncate events, hits");
      await db.pool.query("checkpoint");
      results[b.label]!.push(await run(files.get(b.label)!, db.url));
    }
    const figure = (label: string) => {
      const r = results[label]!.at(-1)!;
      return `${label} PostgreSQL ${r.postgres_us_per_row} µs a row (${r.postgres_us_per_commit} a commit), writer ${r.writer_us_per_row}`;
    };
    console.log(`round ${round + 1}: ${builds.map((b) => figure(b.label)).join(" · ")}`);
  }
} finally {
  await db.dispose();
}
console.log(JSON.stringify({ unit: "cpu_us_per_row", ...results }));
