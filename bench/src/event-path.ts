// The workload of `npm run bench:event-path` (event-path-bench.ts): the gateway's own work on ingested rows, in
// process, without HTTP or PostgreSQL. The ingest scenario's requests (scenario.ts) go through the pipeline's steps
// (parse, decode, enrich: classify, device, traffic source, country), then through what a site lane does with each
// row (site-lane.ts `LaneTurn`, the lane's own code: visitor hash, stamp, visit rule, rollup counters), and each
// batch of 32 requests is encoded as COPY text. After `--warm-up` requests it times `--requests` more; one JSON
// line: rows (all of them), CPU µs a measured row, COPY bytes a row.
import { parseArgs } from "node:util";
import { RejectionCounters } from "../../gateway/src/errors.ts";
import { openCountryLookup } from "../../gateway/src/geo/country.ts";
import * as pipeline from "../../gateway/src/ingest/pipeline.ts";
import { addressId } from "../../gateway/src/ingest/siphash.ts";
import { LaneTurn, type PendingRow } from "../../gateway/src/lanes/site-lane.ts";
import { VisitState } from "../../gateway/src/lanes/visit-state.ts";
import { RollupState } from "../../gateway/src/rollups/rollup-state.ts";
import type { SiteRecord } from "../../gateway/src/storage/sites.ts";
import { CopyBytes, encodeEvents, encodeHits } from "../../gateway/src/writer/copy-text.ts";
import { buildScenario } from "./scenario.ts";

const { values: args } = parseArgs({ options: { requests: { type: "string", default: "200000" }, "warm-up": { type: "string", default: "20000" } } });
const REQUESTS = Number(args.requests);
const WARM_UP = Number(args["warm-up"]);

const SITE_ID = 1;
const BATCH = 32;
const requests = buildScenario().map((r) => ({ ...r, body: Buffer.from(r.body) }));
const site = { id: SITE_ID, domain: "bench.example" } as SiteRecord;
const counters = new RejectionCounters();
const country = openCountryLookup(null);
const salt = Buffer.alloc(32, 7);
const dayStart = Date.UTC(2026, 10, 26);
const state = new RollupState(SITE_ID, dayStart);
const visits = new VisitState();
let now = dayStart + 12 * 3_600_000;
let rows = 0;
let bytes = 0;

function enriched(r: (typeof requests)[number]): PendingRow[] {
  const json = pipeline.parseJson(r.body);
  if (r.path === "/api/hit") return pipeline.decodeHits(json, counters).map((hit) => pipeline.enrichHit(hit, site, country));
  const ip = r.headers["x-forwarded-for"]!;
  const event = pipeline.decodeEvent(json, counters);
  return [pipeline.enrichEvent(event, pipeline.userAgentHeader(r.headers["user-agent"]), ip, country, addressId(ip))];
}

/** One batch of requests, as the ingest steps and then a site lane's turn handle them. */
function batch(from: number): void {
  const turn = new LaneTurn(SITE_ID, salt, now, state, visits);
  for (let i = from; i < from + BATCH; i++) {
    for (const pending of enriched(requests[i % requests.length]!)) {
      turn.add(pending);
      rows++;
    }
  }
  const out = new CopyBytes();
  encodeHits(turn.hits, encodeEvents(turn.events, out));
  bytes += out.length;
  now += 1;
}

for (let i = 0; i < WARM_UP; i += BATCH) batch(i);
const rowsBefore = rows;
const before = process.cpuUsage();
for (let i = 0; i < REQUESTS; i += BATCH) batch(WARM_UP + i);
const used = process.cpuUsage(before);
const measured = rows - rowsBefore;
const usPerRow = (used.user + used.system) / Math.max(1, measured);
console.log(JSON.stringify({ rows, measured_rows: measured, visitors: state.visitors, us_per_row: Math.round(usPerRow * 1000) / 1000, copy_bytes_per_row: Math.round(bytes / rows) }));
