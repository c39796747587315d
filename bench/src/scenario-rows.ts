// The ingest scenario's requests (scenario.ts) made into rows as the gateway makes them, in process: the pipeline's
// steps (parse, decode, enrich: classify, device, traffic source, country), then a site lane's turn (site-lane.ts
// `LaneTurn`, the lane's own code: visitor hash, stamp, visit rule, rollup counters). The workloads of
// bench:event-path (event-path.ts) and bench:postgres-copy (postgres-copy.ts).
import { RejectionCounters } from "../../gateway/src/errors.ts";
import { openCountryLookup } from "../../gateway/src/geo/country.ts";
import * as pipeline from "../../gateway/src/ingest/pipeline.ts";
import { addressId } from "../../gateway/src/ingest/siphash.ts";
import { LaneTurn, type PendingRow } from "../../gateway/src/lanes/site-lane.ts";
import { VisitState } from "../../gateway/src/lanes/visit-state.ts";
import { RollupState } from "../../gateway/src/rollups/rollup-state.ts";
import type { SiteRecord } from "../../gateway/src/storage/sites.ts";
import { buildScenario } from "./scenario.ts";

const SITE_ID = 1;
/** Requests a lane's turn takes: about what one commit carries at 64 connections. */
export const REQUESTS_A_TURN = 32;

export class ScenarioRows {
  private readonly requests = buildScenario().map((r) => ({ ...r, body: Buffer.from(r.body) }));
  private readonly site = { id: SITE_ID, domain: "bench.example" } as SiteRecord;
  private readonly counters = new RejectionCounters();
  private readonly country = openCountryLookup(null);
  private readonly salt = Buffer.alloc(32, 7);
  readonly state: RollupState;
  private readonly visits = new VisitState();
  private next = 0;
  rows = 0;

  /** Rows stamped from `now` (ms), a millisecond later each turn. */
  constructor(private now: number) {
    const dayStart = now - (now % 86_400_000);
    this.state = new RollupState(SITE_ID, dayStart);
  }

  /** The next `REQUESTS_A_TURN` requests of the scenario, as one lane turn's rows (`turn.events`, `turn.hits`). */
  turn(): LaneTurn {
    const turn = new LaneTurn(SITE_ID, this.salt, this.now, this.state, this.visits);
    for (let i = 0; i < REQUESTS_A_TURN; i++) {
      for (const pending of this.enriched(this.requests[this.next++ % this.requests.length]!)) {
        turn.add(pending);
        this.rows++;
      }
    }
    // The counters, which the gateway's writer runs once the turn's COPY is written (a build from before the
    // nineteenth pass counts in `add` and has no `count`).
    (turn as { count?: () => void }).count?.();
    this.now += 1;
    return turn;
  }

  private enriched(r: (typeof this.requests)[number]): PendingRow[] {
    const json = pipeline.parseJson(r.body);
    if (r.path === "/api/hit") return pipeline.decodeHits(json, this.counters).map((hit) => pipeline.enrichHit(hit, this.site, this.country));
    const ip = r.headers["x-forwarded-for"]!;
    const event = pipeline.decodeEvent(json, this.counters);
    return [pipeline.enrichEvent(event, pipeline.userAgentHeader(r.headers["user-agent"]), ip, this.country, addressId(ip))];
  }
}
