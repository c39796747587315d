// Goals of a site: POST creates one (a name matched exactly against event names), GET reports each with its
// conversions for a window from the rollups, DELETE removes the definition only (the events stay).
import type pg from "pg";
import type { ActorChoice } from "../api-schema/common.ts";
import { ApiError } from "../errors.ts";
import { type ReadWindow, engineWindowRange } from "../read/window.ts";
import { goalConversions, windowEcho } from "../read/reports.ts";
import { type GoalRow, deleteGoal, insertGoal, listGoals } from "../storage/goals.ts";
import type { QueryEngine } from "../query/engine.ts";
import { type Filter, sharePlan } from "../shares/share-filters.ts";
import type { SiteRecord } from "../storage/sites.ts";
import { jsonResponse } from "./json-response.ts";
import type { OperationRoutes } from "./operation-routes.ts";

const toGoal = (g: GoalRow) => ({ id: g.id, site_id: g.site_id, name: g.name, page_path: g.page_path, created_at: g.created_at.toISOString() });
const GOAL_ID = /^\d{1,10}$/;

/**
 * Goals' conversions over a window from the query engine: page-path goals' (the rollups know pages, not
 * patterns), and every goal's for a shared link with fixed filters (`filters`, applied with the actors).
 */
async function engineGoalConversions(engine: QueryEngine, site: SiteRecord, window: ReadWindow, filters: readonly Filter[], gone?: () => boolean): Promise<Map<string, { conversions: number; visitors: number }>> {
  const answer = await engine.run(site, sharePlan(site.domain, filters, window.actors, {
    date_range: engineWindowRange(window, "current"),
    metrics: ["visitors", "events"], dimensions: ["event:goal"],
  }), gone);
  return new Map(answer.results.map((r) => [r.dimensions[0]!, { visitors: r.metrics[0]!, conversions: r.metrics[1]! }]));
}

/**
 * Every goal of the site with its conversions in the window (the owner's and a shared view's goals card);
 * with a shared link's fixed `filters`, every goal's from the engine. `gone`: the request's client has left (the
 * engine drops or interrupts its query, query/admission.ts).
 */
export async function goalsReport(pool: pg.Pool, engine: QueryEngine, site: SiteRecord, actor: ActorChoice, window: ReadWindow, filters: readonly Filter[] = [], gone?: () => boolean) {
  const rows = await listGoals(pool, site.id);
  const fromEngine = (g: GoalRow) => g.page_path !== null || filters.length > 0;
  const counts = await goalConversions(pool, site.id, window, rows.filter((g) => !fromEngine(g)).map((g) => g.name));
  if (rows.some(fromEngine)) {
    const engineCounts = await engineGoalConversions(engine, site, window, filters, gone);
    for (const g of rows) if (fromEngine(g)) counts.set(g.name, engineCounts.get(g.name) ?? { conversions: 0, visitors: 0 });
  }
  return {
    site_id: site.id,
    actor,
    ...windowEcho(window),
    goals: rows.map((g) => ({ id: g.id, name: g.name, page_path: g.page_path, created_at: g.created_at.toISOString(), ...counts.get(g.name)! })),
  };
}

export function goalRoutes(routes: OperationRoutes, pool: pg.Pool, engine: QueryEngine): void {
  routes
    .site("POST /api/sites/{id}/goals", async ({ site, body }) => {
      if ((body.name === undefined) === (body.page_path === undefined)) {
        const message = "give exactly one of name (an event-name goal) and page_path (a page-path goal)";
        throw new ApiError("invalid_body", message, [{ path: body.name === undefined ? "name" : "page_path", message }]);
      }
      // Plausible's display name of a page goal.
      const name = body.page_path !== undefined ? `Visit ${body.page_path}` : body.name!.trim();
      const goal = await insertGoal(pool, site.id, name, body.page_path ?? null);
      if (goal === null) throw new ApiError("conflict", `this site already has a goal named ${JSON.stringify(name)}`);
      return jsonResponse(201, toGoal(goal));
    })
    // Rollups are flushed first, so a conversion right after its 202 is counted (as /stats does).
    .site("GET /api/sites/{id}/goals", async ({ req, site, query, window: windowOf }) => {
      const actor = query.actor ?? "human";
      return jsonResponse(200, await goalsReport(pool, engine, site, actor, windowOf(actor), [], () => req.aborted));
    }, { readsRollups: true })
    .site("DELETE /api/sites/{id}/goals/{goalId}", async ({ site, params }) => {
      const goalId = params["goalId"]!;
      // 2^31 - 1: the largest value of the integer id column.
      if (!GOAL_ID.test(goalId) || Number(goalId) > 2_147_483_647) throw new ApiError("not_found", "unknown goal");
      if (!(await deleteGoal(pool, site.id, Number(goalId)))) throw new ApiError("not_found", "unknown goal");
      return { status: 204 };
    });
}
