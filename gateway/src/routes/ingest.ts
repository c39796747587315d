import { errorResponse } from "../errors.ts";
import type { HttpResponse } from "../http/transport.ts";
import type { Router } from "../http/router.ts";
import { type IngestDeps, ingestEvent, ingestHits } from "../ingest/pipeline.ts";

// The browser script posts cross-origin from every tracked site; only this route is open to CORS.
export const EVENT_CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": "content-type",
  "access-control-max-age": "86400",
} as const;

const withCors = (r: HttpResponse): HttpResponse => ({ ...r, headers: { ...r.headers, ...EVENT_CORS } });

export function ingestRoutes(router: Router, deps: IngestDeps): void {
  router
    .on("OPTIONS", "/api/event", () => ({ status: 204, headers: EVENT_CORS }))
    .on("POST", "/api/event", async (req) => {
      try {
        await ingestEvent(req, deps);
        return { status: 202, headers: EVENT_CORS };
      } catch (error) {
        countRejection(deps, error);
        return withCors(errorResponse(error));
      }
    })
    .on("POST", "/api/hit", async (req) => {
      try {
        await ingestHits(req, deps);
        return { status: 202 };
      } catch (error) {
        countRejection(deps, error);
        throw error;
      }
    });
}

function countRejection(deps: IngestDeps, error: unknown): void {
  const reason = (error as { reason?: unknown }).reason;
  if (typeof reason === "string") deps.counters.count(reason as never);
}
