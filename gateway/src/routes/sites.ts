// GET/POST /api/sites, PATCH and DELETE /api/sites/{id}, scoped to the caller's team.
import { Effect } from "effect";
import type pg from "pg";
import type { Site } from "../api-schema/sites.ts";
import { ApiError } from "../errors.ts";
import type { SiteCache } from "../sites/site-cache.ts";
import { generateHitToken, hashHitToken } from "../sites/hit-token.ts";
import type { LaneRegistry } from "../lanes/registry.ts";
import { type SiteRecord, addSite, deleteSite, deleteSiteRows, describeSite, listSites, setHitTokenHash, updateSite } from "../storage/sites.ts";
import { isStorageError } from "../storage/storage-error.ts";
import { jsonResponse } from "./json-response.ts";
import type { OperationRoutes } from "./operation-routes.ts";

export interface SiteRouteDeps {
  readonly pool: pg.Pool;
  /** This process's ingest cache: reloaded before a domain change is answered (other processes get the NOTIFY). */
  readonly sites: SiteCache;
  /** A deleted site's lane is drained before its rows are deleted. */
  readonly lanes: LaneRegistry;
  /** Resolves once every acknowledged row is committed with its rollups. */
  readonly flushRollups: () => Promise<void>;
}

const toSite = (s: SiteRecord, hitToken?: string): typeof Site.Type => {
  const d = describeSite(s);
  const site = { id: d.id, domain: d.domain, name: d.name, team_id: d.team_id, retention_days: d.retention_days, created_at: d.created_at, time_zone: d.time_zone, hit_token_set: d.hit_token_set };
  return hitToken === undefined ? site : { ...site, hit_token: hitToken };
};

/** Applies `hit_token: true|false` of a body: a fresh token (returned, to be shown once) or none. */
async function applyHitToken(pool: pg.Pool, site: SiteRecord, wanted: boolean | undefined): Promise<{ site: SiteRecord; token?: string }> {
  if (wanted === undefined) return { site };
  const token = wanted ? generateHitToken() : undefined;
  const hash = token === undefined ? null : hashHitToken(token);
  if (!(await setHitTokenHash(pool, site.id, hash))) throw new ApiError("unknown_site");
  return token === undefined ? { site: { ...site, hit_token_hash: null } } : { site: { ...site, hit_token_hash: hash }, token };
}

// StorageError kinds → the field they are about, for a 400 that names it.
const FIELD_OF = { invalid_domain: "domain", invalid_retention: "retention_days", invalid_name: "name", invalid_time_zone: "time_zone" } as const;

function storageToApi(error: unknown): never {
  if (!isStorageError(error)) throw error;
  switch (error.kind) {
    case "domain_taken":
      throw new ApiError("conflict", error.message);
    case "not_found":
      throw new ApiError("unknown_site");
    default:
      throw new ApiError("invalid_body", "invalid body", [{ path: FIELD_OF[error.kind], message: error.message }]);
  }
}

export function siteRoutes(routes: OperationRoutes, deps: SiteRouteDeps): void {
  const { pool } = deps;
  routes
    .on("GET /api/sites", async ({ principal }) => {
      const sites = await listSites(pool);
      return jsonResponse(200, { sites: sites.filter((s) => s.team_id === principal.teamId).map((s) => toSite(s)) });
    })
    .on("POST /api/sites", async ({ principal, body }) => {
      const { hit_token, ...fields } = body();
      const added = await addSite(pool, { ...fields, team_id: principal.teamId }).catch(storageToApi);
      const { site, token } = await applyHitToken(pool, added, hit_token);
      if (token !== undefined) await deps.sites.reload();
      return jsonResponse(201, toSite(site, token));
    })
    .site("PATCH /api/sites/{id}", async ({ site, body }) => {
      const { hit_token, ...patch } = body;
      if (Object.keys(patch).length === 0 && hit_token === undefined) {
        throw new ApiError("invalid_body", "invalid body", [{ path: "", message: "must change at least one of domain, name, retention_days, time_zone, hit_token" }]);
      }
      const changed = await updateSite(pool, site.id, patch).catch(storageToApi);
      const { site: updated, token } = await applyHitToken(pool, changed, hit_token);
      // The NOTIFY reaches this process's cache a moment later; reloading now makes the old domain 404 (and a
      // new hit token required) by the time the client reads this answer, not a few milliseconds after.
      if (updated.domain !== site.domain || hit_token !== undefined) await deps.sites.reload();
      return jsonResponse(200, toSite(updated, token));
    })
    .site("DELETE /api/sites/{id}", async ({ site, query }) => {
      if (query.confirm.trim().toLowerCase() !== site.domain) {
        throw new ApiError("invalid_query", "invalid query", [{ path: "confirm", message: `must be the site's domain, ${site.domain}, to delete it and all of its data` }]);
      }
      // The site row first: ingest for the domain answers 404 at once (this process's cache now, the others'
      // through the delete's NOTIFY), and its salts, goals and insight runs go with it. Then the lane hands its
      // last rows to the writer, they commit, and every raw row, rollup and snapshot of the site is deleted.
      if (!(await deleteSite(pool, site.id))) throw new ApiError("unknown_site");
      await deps.sites.reload();
      await Effect.runPromise(deps.lanes.stopSite(site.id));
      await deps.flushRollups();
      await deleteSiteRows(pool, site.id);
      return { status: 204, headers: {} };
    });
}
