// Goals of a site: POST creates one (a name matched exactly against event names), GET reports each with its
// conversions for a window from the rollups, DELETE removes the definition only (the events stay).
import type pg from "pg";
import type { ActorLabel } from "../api-schema/common.ts";
import { ApiError } from "../errors.ts";
import type { ReadWindow } from "../read/window.ts";
import { goalConversions, windowEcho } from "../read/reports.ts";
import { type GoalRow, deleteGoal, insertGoal, listGoals } from "../storage/goals.ts";
import { jsonResponse } from "./json-response.ts";
import type { OperationRoutes } from "./operation-routes.ts";

const toGoal = (g: GoalRow) => ({ id: g.id, site_id: g.site_id, name: g.name, created_at: g.created_at.toISOString() });
const GOAL_ID = /^\d{1,10}$/;

/** Every goal of the site with its conversions in the window (the owner's and a shared view's goals card). */
export async function goalsReport(pool: pg.Pool, siteId: number, actor: ActorLabel | "all", window: ReadWindow) {
  const rows = await listGoals(pool, siteId);
  const counts = await goalConversions(pool, siteId, window, rows.map((g) => g.name));
  return {
    site_id: siteId,
    actor,
    ...windowEcho(window),
    goals: rows.map((g) => ({ id: g.id, name: g.name, created_at: g.created_at.toISOString(), ...counts.get(g.name)! })),
  };
}

export function goalRoutes(routes: OperationRoutes, pool: pg.Pool): void {
  routes
    .site("POST /api/sites/{id}/goals", async ({ site, body }) => {
      const name = body.name.trim();
      const goal = await insertGoal(pool, site.id, name);
      if (goal === null) throw new ApiError("conflict", `this site already has a goal named ${JSON.stringify(name)}`);
      return jsonResponse(201, toGoal(goal));
    })
    // Rollups are flushed first, so a conversion right after its 202 is counted (as /stats does).
    .site("GET /api/sites/{id}/goals", async ({ site, query, window: windowOf }) => {
      const actor = query.actor ?? "human";
      return jsonResponse(200, await goalsReport(pool, site.id, actor, windowOf(actor)));
    }, { readsRollups: true })
    .site("DELETE /api/sites/{id}/goals/{goalId}", async ({ site, params }) => {
      const goalId = params["goalId"]!;
      // 2^31 - 1: the largest value of the integer id column.
      if (!GOAL_ID.test(goalId) || Number(goalId) > 2_147_483_647) throw new ApiError("not_found", "unknown goal");
      if (!(await deleteGoal(pool, site.id, Number(goalId)))) throw new ApiError("not_found", "unknown goal");
      return { status: 204 };
    });
}
