// GET /api/sites/{id}/anomalies: flags computed from the rollup series (anomalies/detector.ts).
import { DEFAULT_ANOMALY_DAYS } from "../api-schema/insights.ts";
import type { AnomalyDetector } from "../anomalies/detector.ts";
import { jsonResponse } from "./json-response.ts";
import type { OperationRoutes } from "./operation-routes.ts";

export function anomalyRoutes(routes: OperationRoutes, detector: AnomalyDetector): void {
  routes.site(
    "GET /api/sites/{id}/anomalies",
    async ({ site, query }) => jsonResponse(200, await detector.report(site.id, query.days ?? DEFAULT_ANOMALY_DAYS)),
    { readsRollups: true },
  );
}
