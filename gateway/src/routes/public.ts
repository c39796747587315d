// Routes that need no credential: the tracker script, the collection manifest and the health check (whose
// details — memory, counters, site count — need one: they tell an attacker how the process is doing).
import { buildManifest, CLASSIFIER_DATA_VERSION } from "@svc/core";
import type pg from "pg";
import { ApiError, type RejectionCounters } from "../errors.ts";
import type { CountryLookup } from "../geo/country.ts";
import type { LaneRegistry } from "../lanes/registry.ts";
import type { SiteCache } from "../sites/site-cache.ts";
import type { GroupCommitWriter } from "../writer/group-commit.ts";
import type { LiveHub } from "../live/hub.ts";
import type { RollupFlusher } from "../rollups/flusher.ts";
import { type DatabaseHealth, pingDatabase } from "../storage/database-health.ts";
import type { Supervisor } from "../supervision/supervisor.ts";
import type { TrackerAsset } from "./tracker-asset.ts";
import type { Authenticator } from "../auth/index.ts";
import { jsonResponse } from "./json-response.ts";
import type { OperationRoutes } from "./operation-routes.ts";

export interface PublicDeps {
  readonly pool: pg.Pool;
  readonly sites: SiteCache;
  readonly tracker: TrackerAsset;
  readonly adaptersPackage: TrackerAsset;
  readonly country: CountryLookup;
  readonly lanes: LaneRegistry;
  readonly writer: GroupCommitWriter;
  readonly rollups: RollupFlusher;
  readonly counters: RejectionCounters;
  readonly live: LiveHub;
  /** SVC_CLUSTER: this gateway's name, the sites it owns and its notifications to the others; null with one gateway. */
  readonly cluster: (() => Record<string, unknown>) | null;
  readonly health: DatabaseHealth;
  readonly supervisor: Supervisor;
  readonly defaultPartitionRows: () => { events: number; hits: number };
  /** Ingest rate limiters' sizes, for the health details. */
  readonly limits: () => Record<string, number>;
  /** Any valid credential unlocks the health details. */
  readonly authenticate: Authenticator["authenticate"];
}

function memoryMb(): Record<string, number> {
  const m = process.memoryUsage();
  const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
  return { rss: mb(m.rss), heap_used: mb(m.heapUsed), heap_total: mb(m.heapTotal), external: mb(m.external), array_buffers: mb(m.arrayBuffers) };
}

export function publicRoutes(routes: OperationRoutes, deps: PublicDeps): void {
  routes
    .on("GET /js/svc.js", ({ req }) => deps.tracker.serve(req))
    .on("GET /adapters.tgz", ({ req }) => deps.adaptersPackage.serve(req))
    .on("GET /api/sites/{domain}/manifest", async ({ params }) => {
      const site = await deps.sites.resolve(params["domain"]!);
      if (!site) throw new ApiError("unknown_site");
      const manifest = buildManifest(site, { city: false, countryDatabase: deps.country.database });
      return jsonResponse(200, manifest, { "cache-control": "public, max-age=300", "access-control-allow-origin": "*" });
    })
    .on("GET /healthz", async ({ req }) => {
      // While the probe knows the database is down, /healthz answers at once instead of waiting on a pool checkout.
      const database = !deps.health.up
        ? "down"
        : await Promise.race([
            pingDatabase(deps.pool).then(() => "up" as const, (error: unknown) => (deps.health.report(error), "down" as const)),
            new Promise<"down">((r) => setTimeout(() => r("down"), 2000).unref()),
          ]);
      const status = database === "up" ? "ok" : "degraded";
      // A missing or bad credential gets the public answer: a load balancer's probe never needs one. (With the
      // database down a credential cannot be checked either, so the answer is the public one.)
      const detailed = database === "up" && (await deps.authenticate(req).then(() => true, () => false));
      if (!detailed) return jsonResponse(database === "up" ? 200 : 503, { status }, { "cache-control": "no-store" });
      const body = {
        status,
        database,
        database_health: deps.health.stats,
        supervision: { crashes: deps.supervisor.crashes },
        sites: deps.sites.size,
        tracker: deps.tracker.available,
        lanes: deps.lanes.stats(),
        writer: deps.writer.stats,
        rollups: deps.rollups.stats,
        live: deps.live.stats,
        ...(deps.cluster !== null ? { cluster: deps.cluster() } : {}),
        rejected: deps.counters.counts,
        rate_limiters: deps.limits(),
        default_partition_rows: deps.defaultPartitionRows(),
        memory_mb: memoryMb(),
        classifier_data_version: CLASSIFIER_DATA_VERSION,
      };
      return jsonResponse(database === "up" ? 200 : 503, body, { "cache-control": "no-store" });
    });
}
