// GET /api/sites/{id}/insights (the last run; any credential) and POST …/insights/run (run now: it spends the
// team's language-model budget, so a session or an admin key, like goal creation).
import type pg from "pg";
import { ApiError } from "../errors.ts";
import type { Router } from "../http/router.ts";
import type { InsightsService } from "../insights/service.ts";
import { jsonResponse } from "./json-response.ts";
import { type Authenticate, resolveTeamSite } from "./sites.ts";

export interface InsightRouteDeps {
  readonly pool: pg.Pool;
  readonly insights: InsightsService;
  readonly authenticate: Authenticate;
  readonly authenticateAdmin: Authenticate;
  readonly flushRollups: () => Promise<void>;
}

export function insightRoutes(router: Router, deps: InsightRouteDeps): void {
  const { pool, insights, authenticate, authenticateAdmin, flushRollups } = deps;
  router
    .on("GET", "/api/sites/:id/insights", async (req, params) => {
      const principal = await authenticate(req);
      const site = await resolveTeamSite(pool, params["id"]!, principal);
      return jsonResponse(200, await insights.view(site));
    })
    .on("POST", "/api/sites/:id/insights/run", async (req, params) => {
      const principal = await authenticateAdmin(req);
      const site = await resolveTeamSite(pool, params["id"]!, principal);
      if (insights.isRunning(site.id)) throw new ApiError("conflict", "an insights run of this site is already in progress");
      await flushRollups();
      const run = insights.run(site);
      if (run === null) throw new ApiError("conflict", "an insights run of this site is already in progress");
      return jsonResponse(200, await run);
    });
}
