// Funnels of a site: their definitions (list with a read key; create, change and delete with admin scope) and a
// funnel's answer over a window (query/funnel.ts), read by the query engine from the rows POST /api/v2/query
// reads for the same window, actor and filters.
import type pg from "pg";
import type { ActorChoice } from "../api-schema/common.ts";
import { ApiError } from "../errors.ts";
import type { QueryEngine } from "../query/engine.ts";
import { countFunnel, funnelSteps } from "../query/funnel.ts";
import { filtersParam } from "../query/request.ts";
import { type ReadWindow, engineDateRange } from "../read/window.ts";
import { windowEcho } from "../read/reports.ts";
import { type Filter, sharePlan } from "../shares/share-filters.ts";
import { listGoals } from "../storage/goals.ts";
import { type FunnelRow, type FunnelStep, deleteFunnel, findFunnel, insertFunnel, listFunnels, updateFunnel } from "../storage/funnels.ts";
import type { SiteRecord } from "../storage/sites.ts";
import { jsonResponse } from "./json-response.ts";
import type { OperationRoutes } from "./operation-routes.ts";

export const toFunnel = (f: FunnelRow) => ({ id: f.id, site_id: f.site_id, name: f.name, steps: f.steps, created_at: f.created_at.toISOString(), updated_at: f.updated_at.toISOString() });
const FUNNEL_ID = /^\d{1,10}$/;
const bad = (path: string, message: string) => new ApiError("invalid_body", `${path}: ${message}`, [{ path, message }]);

/** The path's funnel id as a number; 404 for anything no funnel can have (2^31 − 1: the id column's largest). */
export function funnelIdOf(params: Readonly<Record<string, string>>): number {
  const raw = params["funnelId"]!;
  if (!FUNNEL_ID.test(raw) || Number(raw) > 2_147_483_647) throw new ApiError("not_found", "unknown funnel");
  return Number(raw);
}

/** The steps as stored: each exactly one of page_path and goal, each goal one the site has (400 naming the step). */
async function checkSteps(pool: pg.Pool, site: SiteRecord, steps: readonly { page_path?: string; goal?: string }[]): Promise<FunnelStep[]> {
  const goals = new Set((await listGoals(pool, site.id)).map((g) => g.name));
  return steps.map((step, i) => {
    if ((step.page_path === undefined) === (step.goal === undefined)) throw bad(`steps[${i}]`, "give exactly one of page_path (a page pattern) and goal (a goal's name)");
    if (step.page_path !== undefined) return { page_path: step.page_path };
    if (!goals.has(step.goal!)) throw bad(`steps[${i}].goal`, `this site has no goal named ${JSON.stringify(step.goal)}`);
    return { goal: step.goal! };
  });
}

/** The `filters` parameter: a JSON array (each filter is then checked by the query parser, naming `filters[i]`). */
export const filtersOf = (raw: string | undefined): Filter[] => (raw === undefined || raw === "" ? [] : (filtersParam(raw) as Filter[]));

/**
 * A funnel's answer over the window for `actor`, over the rows passing `filters` (a shared link's first, then
 * the viewer's): the owner's and a shared view's funnel card. `gone`: the request's client has left.
 */
export async function funnelReport(engine: QueryEngine, site: SiteRecord, funnel: FunnelRow, actor: ActorChoice, window: ReadWindow, filters: readonly Filter[], gone: () => boolean) {
  const dateRange = engineDateRange(window.current);
  // The actor as a visit:actor filter after the caller's: the rows of POST /api/v2/query with both.
  const plan = sharePlan(site.domain, filters, window.visitorActors, { date_range: dateRange, metrics: ["visitors"] });
  const counts = await engine.overRows(site, plan, (connection, ctx) => countFunnel(connection, ctx, funnel.steps), gone);
  return {
    site_id: site.id, actor, ...windowEcho(window),
    funnel: toFunnel(funnel), date_range: dateRange, visitors: counts.visitors, steps: funnelSteps(funnel.steps, counts),
  };
}

export function funnelRoutes(routes: OperationRoutes, pool: pg.Pool, engine: QueryEngine): void {
  routes
    .site("GET /api/sites/{id}/funnels", async ({ site }) => jsonResponse(200, { funnels: (await listFunnels(pool, site.id)).map(toFunnel) }))
    .site("POST /api/sites/{id}/funnels", async ({ site, body }) => {
      const name = body.name.trim();
      const funnel = await insertFunnel(pool, site.id, name, await checkSteps(pool, site, body.steps));
      if (funnel === null) throw new ApiError("conflict", `this site already has a funnel named ${JSON.stringify(name)}`);
      return jsonResponse(201, toFunnel(funnel));
    })
    .site("PATCH /api/sites/{id}/funnels/{funnelId}", async ({ site, params, body }) => {
      const funnelId = funnelIdOf(params);
      const name = body.name?.trim();
      const steps = body.steps === undefined ? undefined : await checkSteps(pool, site, body.steps);
      const funnel = await updateFunnel(pool, site.id, funnelId, { ...(name === undefined ? {} : { name }), ...(steps === undefined ? {} : { steps }) });
      if (funnel === undefined) throw new ApiError("not_found", "unknown funnel");
      if (funnel === null) throw new ApiError("conflict", `this site already has a funnel named ${JSON.stringify(name)}`);
      return jsonResponse(200, toFunnel(funnel));
    })
    .site("DELETE /api/sites/{id}/funnels/{funnelId}", async ({ site, params }) => {
      if (!(await deleteFunnel(pool, site.id, funnelIdOf(params)))) throw new ApiError("not_found", "unknown funnel");
      return { status: 204 };
    })
    .site("GET /api/sites/{id}/funnels/{funnelId}/result", async ({ req, site, params, query, window: windowOf }) => {
      const funnel = await findFunnel(pool, site.id, funnelIdOf(params));
      if (funnel === null) throw new ApiError("not_found", "unknown funnel");
      const actor = query.actor ?? "human";
      return jsonResponse(200, await funnelReport(engine, site, funnel, actor, windowOf(actor), filtersOf(query.filters), () => req.aborted));
    });
}
