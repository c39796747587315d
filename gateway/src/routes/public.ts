// Routes that need no credential: the tracker script, the collection manifest and the health check.
import { buildManifest, CLASSIFIER_DATA_VERSION } from "@svc/core";
import type pg from "pg";
import { ApiError, type RejectionCounters } from "../errors.ts";
import type { CountryLookup } from "../geo/country.ts";
import type { Router } from "../http/router.ts";
import type { ActorRegistry } from "../actors/registry.ts";
import type { SiteCache } from "../sites/site-cache.ts";
import type { GroupCommitWriter } from "../writer/group-commit.ts";
import type { LiveHub } from "../live/hub.ts";
import type { RollupFlusher } from "../rollups/flusher.ts";
import type { TrackerAsset } from "./tracker-asset.ts";
import { jsonResponse } from "./json-response.ts";

export interface PublicDeps {
  readonly pool: pg.Pool;
  readonly sites: SiteCache;
  readonly tracker: TrackerAsset;
  readonly country: CountryLookup;
  readonly actors: ActorRegistry;
  readonly writer: GroupCommitWriter;
  readonly rollups: RollupFlusher;
  readonly counters: RejectionCounters;
  readonly live: LiveHub;
  readonly defaultPartitionRows: () => { events: number; hits: number };
}

function memoryMb(): Record<string, number> {
  const m = process.memoryUsage();
  const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
  return { rss: mb(m.rss), heap_used: mb(m.heapUsed), heap_total: mb(m.heapTotal), external: mb(m.external), array_buffers: mb(m.arrayBuffers) };
}

export function publicRoutes(router: Router, deps: PublicDeps): void {
  router
    .on("GET", "/js/svc.js", (req) => deps.tracker.serve(req))
    .on("GET", "/api/sites/:domain/manifest", async (_req, params) => {
      const site = await deps.sites.resolve(params["domain"]!);
      if (!site) throw new ApiError("unknown_site");
      const manifest = buildManifest(site, { city: false, countryDatabase: deps.country.database });
      return jsonResponse(200, manifest, { "cache-control": "public, max-age=300", "access-control-allow-origin": "*" });
    })
    .on("GET", "/healthz", async () => {
      const database = await Promise.race([
        deps.pool.query("select 1").then(() => "up" as const, () => "down" as const),
        new Promise<"down">((r) => setTimeout(() => r("down"), 2000).unref()),
      ]);
      const body = {
        status: database === "up" ? "ok" : "degraded",
        database,
        sites: deps.sites.size,
        tracker: deps.tracker.available,
        actors: deps.actors.stats(),
        writer: deps.writer.stats,
        rollups: deps.rollups.stats,
        live: deps.live.stats,
        rejected: deps.counters.counts,
        default_partition_rows: deps.defaultPartitionRows(),
        memory_mb: memoryMb(),
        classifier_data_version: CLASSIFIER_DATA_VERSION,
      };
      return jsonResponse(database === "up" ? 200 : 503, body, { "cache-control": "no-store" });
    });
}
