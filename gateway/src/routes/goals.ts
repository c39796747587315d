// Goals of a site: POST creates one (a name matched exactly against event names), GET reports each with its
// conversions for a window from the rollups, DELETE removes the definition only (the events stay).
import type { Clock } from "@svc/core";
import type pg from "pg";
import { decodeBody, decodeQuery } from "../api-schema/decode.ts";
import { INTEGER_PARAMS } from "../api-schema/read.ts";
import { CreateGoal, GoalsQuery } from "../api-schema/sites.ts";
import { ApiError } from "../errors.ts";
import type { Router } from "../http/router.ts";
import { goalConversions, windowEcho } from "../read/reports.ts";
import { queryWindow } from "../read/window.ts";
import { type GoalRow, deleteGoal, insertGoal, listGoals } from "../storage/goals.ts";
import { jsonResponse } from "./json-response.ts";
import { type Authenticate, resolveTeamSite } from "./sites.ts";

export interface GoalRouteDeps {
  readonly pool: pg.Pool;
  readonly clock: Clock;
  readonly authenticate: Authenticate;
  /** For writes: refuses a read-only API key with 403. */
  readonly authenticateAdmin: Authenticate;
  /** Writes the held rollup counts first, so a conversion right after its 202 is counted (as /stats does). */
  readonly flushRollups: () => Promise<void>;
}

const toGoal = (g: GoalRow) => ({ id: g.id, site_id: g.site_id, name: g.name, created_at: g.created_at.toISOString() });
const GOAL_ID = /^\d{1,10}$/;

export function goalRoutes(router: Router, deps: GoalRouteDeps): void {
  const { pool, clock, authenticate, authenticateAdmin, flushRollups } = deps;
  router
    .on("POST", "/api/sites/:id/goals", async (req, params) => {
      const principal = await authenticateAdmin(req);
      const site = await resolveTeamSite(pool, params["id"]!, principal);
      const { name } = decodeBody(CreateGoal, req.body);
      const goal = await insertGoal(pool, site.id, name.trim());
      if (goal === null) throw new ApiError("conflict", `this site already has a goal named ${JSON.stringify(name.trim())}`);
      return jsonResponse(201, toGoal(goal));
    })
    .on("GET", "/api/sites/:id/goals", async (req, params) => {
      const principal = await authenticate(req);
      const site = await resolveTeamSite(pool, params["id"]!, principal);
      const q = decodeQuery(GoalsQuery, req.query, INTEGER_PARAMS);
      const actor = q.actor ?? "human";
      const window = queryWindow(clock.now(), q, actor);
      await flushRollups();
      const rows = await listGoals(pool, site.id);
      const counts = await goalConversions(pool, site.id, window, rows.map((g) => g.name));
      return jsonResponse(200, {
        site_id: site.id,
        actor,
        ...windowEcho(window),
        goals: rows.map((g) => ({ id: g.id, name: g.name, created_at: g.created_at.toISOString(), ...counts.get(g.name)! })),
      });
    })
    .on("DELETE", "/api/sites/:id/goals/:goalId", async (req, params) => {
      const principal = await authenticateAdmin(req);
      const site = await resolveTeamSite(pool, params["id"]!, principal);
      const goalId = params["goalId"]!;
      if (!GOAL_ID.test(goalId) || Number(goalId) > 2_147_483_647) throw new ApiError("not_found", "unknown goal");
      if (!(await deleteGoal(pool, site.id, Number(goalId)))) throw new ApiError("not_found", "unknown goal");
      return { status: 204 };
    });
}
