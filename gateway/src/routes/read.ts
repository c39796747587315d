// GET /api/sites/{id}/stats, /breakdown and /ai: aggregates from the rollups for the caller's team.
import type { Clock } from "@svc/core";
import type pg from "pg";
import { DEFAULT_LIMIT } from "../api-schema/read.ts";
import { type RollupSource, aiReport, breakdownReport, statsReport } from "../read/reports.ts";
import { SettledCache } from "../read/settled-cache.ts";
import { jsonResponse } from "./json-response.ts";
import type { OperationRoutes } from "./operation-routes.ts";

export interface ReadRouteDeps {
  readonly pool: pg.Pool;
  readonly clock: Clock;
  /** The settled-days cache (shared so a history import can drop a site from it); a fresh one when absent. */
  readonly cache?: SettledCache;
}

export function readRoutes(routes: OperationRoutes, deps: ReadRouteDeps): void {
  const { pool, clock } = deps;
  const src: RollupSource = { pool, cache: deps.cache ?? new SettledCache(clock.now), now: clock.now };
  const readsRollups = { readsRollups: true };
  routes
    .site("GET /api/sites/{id}/stats", async ({ site, query, window }) => {
      const actor = query.actor ?? "human";
      return jsonResponse(200, await statsReport(pool, site.id, actor, window(actor)));
    }, readsRollups)
    .site("GET /api/sites/{id}/breakdown", async ({ site, query, window }) => {
      // Rules are counted for non-human rows only, so `human` (the default elsewhere) would always be empty.
      const actor = query.actor ?? (query.field === "rule" ? "all" : "human");
      return jsonResponse(200, await breakdownReport(src, site.id, actor, window(actor), query.field, query.limit ?? DEFAULT_LIMIT));
    }, readsRollups)
    .site("GET /api/sites/{id}/ai", async ({ site, query, window }) => {
      // Each list of the panel is one actor by definition; the window's actor set is unused here.
      return jsonResponse(200, await aiReport(src, site.id, window("all"), query.limit ?? DEFAULT_LIMIT));
    }, readsRollups);
}
