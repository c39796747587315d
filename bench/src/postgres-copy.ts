// The workload of `npm run bench:postgres-copy` (postgres-copy-bench.ts): the writer's commits of the scenario's
// rows (scenario-rows.ts: one lane turn a commit, ~37 rows, as at 64 connections), through the gateway's own
// `commitRows` on one connection, into the database of DATABASE_URL. Rows are made before the clock starts; then
// `--commits` commits are timed: this process's CPU (encoding and the protocol) and the CPU of the PostgreSQL
// backend that ran them (its /proc schedstat, in ns: the server must be on this machine). One JSON line.
import fs from "node:fs";
import { parseArgs } from "node:util";
import pg from "pg";
import { commitRows } from "../../gateway/src/writer/commit-rows.ts";
import type { WriteBatch } from "../../gateway/src/storage/rows.ts";
import { ScenarioRows } from "./scenario-rows.ts";

const { values: args } = parseArgs({ options: { commits: { type: "string", default: "3000" }, "warm-up": { type: "string", default: "300" } } });
const COMMITS = Number(args.commits);
const WARM_UP = Number(args["warm-up"]);

const scenario = new ScenarioRows(Date.now());
const batches: WriteBatch[] = Array.from({ length: WARM_UP + COMMITS }, () => {
  const turn = scenario.turn();
  return { events: turn.events, hits: turn.hits };
});

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
const backend = (await pool.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
/** ns the backend has run on a CPU (the first field of schedstat). */
const backendNs = (): number => Number(fs.readFileSync(`/proc/${backend}/schedstat`, "utf8").split(" ")[0]);

for (let i = 0; i < WARM_UP; i++) await commitRows(pool, batches[i]!);
let rows = 0;
const ownBefore = process.cpuUsage();
const backendBefore = backendNs();
for (let i = WARM_UP; i < batches.length; i++) {
  await commitRows(pool, batches[i]!);
  rows += batches[i]!.events.length + batches[i]!.hits.length;
}
const postgresUs = (backendNs() - backendBefore) / 1000;
const own = process.cpuUsage(ownBefore);
await pool.end();
const round = (n: number) => Math.round(n * 1000) / 1000;
console.log(JSON.stringify({ commits: COMMITS, rows, postgres_us_per_row: round(postgresUs / rows), writer_us_per_row: round((own.user + own.system) / rows), postgres_us_per_commit: round(postgresUs / COMMITS) }));
