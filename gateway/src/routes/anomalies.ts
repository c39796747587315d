// GET /api/sites/{id}/anomalies: flags computed from the rollup series (anomalies/detector.ts).
import { DEFAULT_ANOMALY_DAYS, AnomaliesQuery } from "../api-schema/insights.ts";
import { decodeQuery } from "../api-schema/decode.ts";
import type { AnomalyDetector } from "../anomalies/detector.ts";
import type { Router } from "../http/router.ts";
import type pg from "pg";
import { jsonResponse } from "./json-response.ts";
import { type Authenticate, resolveTeamSite } from "./sites.ts";

export interface AnomalyRouteDeps {
  readonly pool: pg.Pool;
  readonly detector: AnomalyDetector;
  readonly authenticate: Authenticate;
  readonly flushRollups: () => Promise<void>;
}

export function anomalyRoutes(router: Router, deps: AnomalyRouteDeps): void {
  const { pool, detector, authenticate, flushRollups } = deps;
  router.on("GET", "/api/sites/:id/anomalies", async (req, params) => {
    const principal = await authenticate(req);
    const site = await resolveTeamSite(pool, params["id"]!, principal);
    const q = decodeQuery(AnomaliesQuery, req.query, ["days"]);
    await flushRollups();
    return jsonResponse(200, await detector.report(site.id, q.days ?? DEFAULT_ANOMALY_DAYS));
  });
}
