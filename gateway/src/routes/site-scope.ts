// The one preamble of every `/api/sites/{id}/…` operation: the credential (checked by the router from the
// operation's security) → the site named by {id}, 404 when unknown and 403 when another team's → the query and
// body decoded with the operation's Schemas → for reads, every acknowledged row's counts written to the rollups.
// In that order: a caller learns nothing about a site (not even that its query was wrong) before the team check.
import type { Clock } from "@svc/core";
import type pg from "pg";
import type { ActorChoice } from "../api-schema/common.ts";
import type { OperationKey } from "../api-schema/operations.ts";
import type { Principal } from "../auth/principal.ts";
import { ApiError } from "../errors.ts";
import type { HttpRequest, HttpResponse } from "../http/transport.ts";
import { type ReadWindow, queryWindow } from "../read/window.ts";
import { type SiteRecord, findSiteByDomain, findSiteById } from "../storage/sites.ts";
import type { DecodedInput, OperationHandler } from "./operation-routes.ts";

const SITE_PATH = "/api/sites/{id}";
export const isSiteScoped = (path: string): boolean => path === SITE_PATH || path.startsWith(`${SITE_PATH}/`);
export type SiteOperationKey = Extract<OperationKey, `${string} ${typeof SITE_PATH}` | `${string} ${typeof SITE_PATH}/${string}`>;

export interface SiteScope {
  readonly pool: pg.Pool;
  readonly clock: Clock;
  /** Resolves once every acknowledged row's counts are in the rollup tables. */
  readonly flushRollups: () => Promise<void>;
}

export interface SiteScopeOptions {
  /** The handler reads rollups: they are flushed first, so a read sees every 202 answered before it. */
  readonly readsRollups?: boolean;
}

export interface SiteRequest<K extends SiteOperationKey> {
  readonly req: HttpRequest;
  readonly params: Readonly<Record<string, string>>;
  readonly principal: Principal;
  readonly site: SiteRecord;
  readonly query: DecodedInput<K, "query">;
  readonly body: DecodedInput<K, "body">;
  /** The window of the query's `days` (default 30) or `hours` ending now by the injected clock, counting `actor`. */
  window(actor: ActorChoice): ReadWindow;
}

const NUMERIC_ID = /^\d{1,10}$/;

/** The site named by `{id}` (its id or its domain) if it belongs to the principal's team. */
export async function resolveTeamSite(pool: pg.Pool, idOrDomain: string, principal: Principal): Promise<SiteRecord> {
  const site = NUMERIC_ID.test(idOrDomain) ? await findSiteById(pool, Number(idOrDomain)) : await findSiteByDomain(pool, idOrDomain);
  if (site === null) throw new ApiError("unknown_site");
  if (site.team_id !== principal.teamId) throw new ApiError("forbidden", "this site belongs to another team");
  return site;
}

export function siteScoped<K extends SiteOperationKey>(
  scope: SiteScope,
  handle: (request: SiteRequest<K>) => Promise<HttpResponse> | HttpResponse,
  options: SiteScopeOptions,
): OperationHandler<K> {
  return async ({ req, params, principal, query, body }) => {
    // Every site operation has a credential (operations.ts), so the router has checked one.
    const site = await resolveTeamSite(scope.pool, params["id"]!, principal as Principal);
    const decodedQuery = query();
    const decodedBody = body();
    if (options.readsRollups) await scope.flushRollups();
    const span = (decodedQuery ?? {}) as { days?: number; hours?: number };
    return handle({
      req,
      params,
      principal: principal as Principal,
      site,
      query: decodedQuery,
      body: decodedBody,
      window: (actor) => queryWindow(scope.clock.now(), span, actor, site.time_zone),
    });
  };
}
