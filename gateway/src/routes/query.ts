// POST /api/v2/query: Plausible's Stats API v2 (query/request.ts) for the caller's team sites. The site named
// by `site_id` is checked against the credential's team before anything else of the body is judged, as the
// site routes' preamble does (routes/site-scope.ts).
import type pg from "pg";
import type { QueryEngine } from "../query/engine.ts";
import { parseQuery } from "../query/request.ts";
import { jsonResponse } from "./json-response.ts";
import type { OperationRoutes } from "./operation-routes.ts";
import { resolveTeamSite } from "./site-scope.ts";

export interface QueryRouteDeps {
  readonly pool: pg.Pool;
  readonly engine: QueryEngine;
}

export function queryRoutes(routes: OperationRoutes, { pool, engine }: QueryRouteDeps): void {
  routes.on("POST /api/v2/query", async ({ req, principal, body }) => {
    const decoded = body();
    const site = await resolveTeamSite(pool, decoded.site_id, principal);
    const plan = parseQuery(decoded);
    return jsonResponse(200, await engine.run(site, plan, () => req.aborted));
  });
}

