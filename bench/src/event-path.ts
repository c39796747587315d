// The workload of `npm run bench:event-path` (event-path-bench.ts): the gateway's own work on ingested rows, in
// process, without HTTP or PostgreSQL. The ingest scenario's requests (scenario.ts) go through the pipeline's steps
// (parse, decode, enrich: classify, device, traffic source, country), then through what a site lane does with each
// row (site-lane.ts `LaneTurn`, the lane's own code: visitor hash, stamp, visit rule, rollup counters). Each batch
// of 32 requests is encoded as binary COPY, and its rollup deltas are marked consumed as at its commit's settle.
// After `--warm-up` requests it times `--requests` more; one JSON line: rows (all of them), CPU µs a measured row,
// COPY bytes a row, the rollup counters' value lookups a row.
import { parseArgs } from "node:util";
import { CopyBytes, encodeEvents, encodeHits } from "../../gateway/src/writer/copy-binary.ts";
import { REQUESTS_A_TURN, ScenarioRows } from "./scenario-rows.ts";

const { values: args } = parseArgs({ options: { requests: { type: "string", default: "200000" }, "warm-up": { type: "string", default: "20000" } } });
const REQUESTS = Number(args.requests);
const WARM_UP = Number(args["warm-up"]);

const scenario = new ScenarioRows(Date.UTC(2026, 10, 26, 12));
let bytes = 0;

/** One lane turn's requests, then their COPY, then what the lane does once their commit settled. */
function batch(): void {
  const turn = scenario.turn();
  const out = new CopyBytes();
  encodeHits(turn.hits, encodeEvents(turn.events, out));
  bytes += out.length;
  // rollup-state.ts `markConsumed`, as a plain store so that a bundle with an older build's code runs it too.
  (turn.rollups as { consumed?: boolean }).consumed = true;
}

for (let i = 0; i < WARM_UP; i += REQUESTS_A_TURN) batch();
const rowsBefore = scenario.rows;
const before = process.cpuUsage();
for (let i = 0; i < REQUESTS; i += REQUESTS_A_TURN) batch();
const used = process.cpuUsage(before);
const rows = scenario.rows;
const measured = rows - rowsBefore;
const usPerRow = (used.user + used.system) / Math.max(1, measured);
// The rollup counters' value-Map lookups (RollupState.valueLookups; null for a build from before the sixteenth pass).
const lookups = (scenario.state as { valueLookups?: number }).valueLookups;
const lookupsPerRow = lookups === undefined ? null : Math.round((lookups / rows) * 100) / 100;
console.log(JSON.stringify({ rows, measured_rows: measured, visitors: scenario.state.visitors, us_per_row: Math.round(usPerRow * 1000) / 1000, copy_bytes_per_row: Math.round(bytes / rows), value_lookups_per_row: lookupsPerRow }));
