// GET /api/sites/{id}/stats, /breakdown and /ai: aggregates from the rollups for the caller's team.
import type { Clock } from "@svc/core";
import type pg from "pg";
import { AiQuery, BreakdownQuery, DEFAULT_LIMIT, INTEGER_PARAMS, StatsQuery } from "../api-schema/read.ts";
import { decodeQuery } from "../api-schema/decode.ts";
import type { Router } from "../http/router.ts";
import { type RollupSource, aiReport, breakdownReport, statsReport } from "../read/reports.ts";
import { SettledCache } from "../read/settled-cache.ts";
import { queryWindow } from "../read/window.ts";
import { jsonResponse } from "./json-response.ts";
import { type Authenticate, resolveTeamSite } from "./sites.ts";

export interface ReadRouteDeps {
  readonly pool: pg.Pool;
  readonly clock: Clock;
  readonly authenticate: Authenticate;
  /** Resolves once every acknowledged row's counts are in the rollup tables: a read sees every 202 before it. */
  readonly flushRollups: () => Promise<void>;
}

export function readRoutes(router: Router, deps: ReadRouteDeps): void {
  const { pool, clock, authenticate, flushRollups } = deps;
  const src: RollupSource = { pool, cache: new SettledCache(clock.now), now: clock.now };
  router
    .on("GET", "/api/sites/:id/stats", async (req, params) => {
      const principal = await authenticate(req);
      const site = await resolveTeamSite(pool, params["id"]!, principal);
      const q = decodeQuery(StatsQuery, req.query, INTEGER_PARAMS);
      const actor = q.actor ?? "human";
      await flushRollups();
      return jsonResponse(200, await statsReport(pool, site.id, actor, queryWindow(clock.now(), q, actor)));
    })
    .on("GET", "/api/sites/:id/breakdown", async (req, params) => {
      const principal = await authenticate(req);
      const site = await resolveTeamSite(pool, params["id"]!, principal);
      const q = decodeQuery(BreakdownQuery, req.query, INTEGER_PARAMS);
      // Rules are counted for non-human rows only, so `human` (the default elsewhere) would always be empty.
      const actor = q.actor ?? (q.field === "rule" ? "all" : "human");
      const window = queryWindow(clock.now(), q, actor);
      await flushRollups();
      return jsonResponse(200, await breakdownReport(src, site.id, actor, window, q.field, q.limit ?? DEFAULT_LIMIT));
    })
    .on("GET", "/api/sites/:id/ai", async (req, params) => {
      const principal = await authenticate(req);
      const site = await resolveTeamSite(pool, params["id"]!, principal);
      const q = decodeQuery(AiQuery, req.query, INTEGER_PARAMS);
      // Each list of the panel is one actor by definition; the window's actor set is unused here.
      const window = queryWindow(clock.now(), q, "all");
      await flushRollups();
      return jsonResponse(200, await aiReport(src, site.id, window, q.limit ?? DEFAULT_LIMIT));
    });
}
