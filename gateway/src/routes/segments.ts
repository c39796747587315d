// Saved segments of a site (issue 23): GET lists them (any credential of the team, like goals), POST saves one
// (admin), DELETE removes one (admin). The filters are checked by the query engine's own parser and RE2 check
// (shares/share-filters.ts checkShareFilters), so a segment always opens as a view the engine answers.
import type pg from "pg";
import { ApiError } from "../errors.ts";
import type { QueryEngine } from "../query/engine.ts";
import { checkShareFilters } from "../shares/share-filters.ts";
import { type SegmentRow, countSegments, deleteSegment, insertSegment, listSegments } from "../storage/segments.ts";
import { jsonResponse } from "./json-response.ts";
import type { OperationRoutes } from "./operation-routes.ts";

// 100 a site: far more than a filter bar's list can show, and a bound on what one team can store.
export const MAX_SEGMENTS_PER_SITE = 100;
const SEGMENT_ID = /^\d{1,10}$/;

const toSegment = (s: SegmentRow) => ({ id: s.id, site_id: s.site_id, name: s.name, filters: s.filters, created_at: s.created_at.toISOString() });

export function segmentRoutes(routes: OperationRoutes, pool: pg.Pool, engine: QueryEngine): void {
  routes
    .site("GET /api/sites/{id}/segments", async ({ site }) => jsonResponse(200, { segments: (await listSegments(pool, site.id)).map(toSegment) }))
    .site("POST /api/sites/{id}/segments", async ({ site, body }) => {
      if (body.filters.length === 0) throw new ApiError("invalid_body", "filters: give at least one filter", [{ path: "filters", message: "give at least one filter" }]);
      const filters = await checkShareFilters(engine, site.domain, body.filters);
      if ((await countSegments(pool, site.id)) >= MAX_SEGMENTS_PER_SITE) throw new ApiError("conflict", `a site keeps at most ${MAX_SEGMENTS_PER_SITE} segments; delete one first`);
      const segment = await insertSegment(pool, site.id, body.name.trim(), filters);
      if (segment === null) throw new ApiError("conflict", `this site already has a segment named ${JSON.stringify(body.name.trim())}`);
      return jsonResponse(201, toSegment(segment));
    })
    .site("DELETE /api/sites/{id}/segments/{segmentId}", async ({ site, params }) => {
      const segmentId = params["segmentId"]!;
      // 2^31 - 1: the largest value of the integer id column.
      if (!SEGMENT_ID.test(segmentId) || Number(segmentId) > 2_147_483_647 || !(await deleteSegment(pool, site.id, Number(segmentId)))) throw new ApiError("not_found", "unknown segment");
      return { status: 204 };
    });
}
