// GET /api/sites/{id}/insights (the last run; any credential) and POST …/insights/run (run now: it spends the
// team's language-model budget, so a session or an admin key, like goal creation).
import { ApiError } from "../errors.ts";
import type { InsightsService } from "../insights/service.ts";
import { jsonResponse } from "./json-response.ts";
import type { OperationRoutes } from "./operation-routes.ts";

// 5 s: a hosted provider answers five findings in 1–4 s, so most runs answer 200 with their result; a local
// model on a CPU (30–90 s) or a hung provider answers 202 with `running: true` instead of holding the request
// (and a proxy's timeout) for the whole provider timeout. The run goes on; GET shows it.
export const RUN_ANSWER_WITHIN_MS = 5000;

export interface InsightRouteDeps {
  readonly insights: InsightsService;
  readonly flushRollups: () => Promise<void>;
}

export function insightRoutes(routes: OperationRoutes, deps: InsightRouteDeps): void {
  const { insights, flushRollups } = deps;
  routes
    .site("GET /api/sites/{id}/insights", async ({ site }) => jsonResponse(200, await insights.view(site)))
    .site("POST /api/sites/{id}/insights/run", async ({ site }) => {
      if (insights.isRunning(site.id)) throw new ApiError("conflict", "an insights run of this site is already in progress");
      // Flushed after the in-flight check, so a second click is refused at once instead of after a flush.
      await flushRollups();
      const run = insights.run(site);
      if (run === null) throw new ApiError("conflict", "an insights run of this site is already in progress");
      const done = await insights.within(run, RUN_ANSWER_WITHIN_MS);
      return done ? jsonResponse(200, done) : jsonResponse(202, await insights.view(site));
    });
}
