// POST /api/sites/{id}/import: a history import from an NDJSON body read as it arrives (import/history-import.ts).
import type { Clock } from "@svc/core";
import type pg from "pg";
import { ApiError } from "../errors.ts";
import { ImportBusy, importHistory } from "../import/history-import.ts";
import { isRefusedData } from "../writer/bisect-write.ts";
import { jsonResponse } from "./json-response.ts";
import type { OperationRoutes } from "./operation-routes.ts";

export interface ImportRouteDeps {
  readonly pool: pg.Pool;
  readonly clock: Clock;
  /** After an import committed: the read caches of settled days drop the site, the query engine the days' files. */
  readonly imported: (siteId: number, days: { readonly from: string; readonly to: string } | null) => Promise<void>;
}

export const NDJSON = "application/x-ndjson";

export function importRoutes(routes: OperationRoutes, deps: ImportRouteDeps): void {
  routes.site("POST /api/sites/{id}/import", async ({ req, site, query }) => {
    const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== NDJSON) throw new ApiError("unsupported_media_type", `send the lines as ${NDJSON} (one JSON object per line)`);
    if (req.bodyStream === null) throw new ApiError("malformed_json", "empty body");
    const report = await importHistory(deps.pool, site, req.bodyStream, { clock: deps.clock, dryRun: query.dry_run === "true" }).catch((error: unknown) => {
      if (error instanceof ImportBusy) throw new ApiError("conflict", error.message);
      // A row PostgreSQL refused on its data (a constraint of the operator's): the transaction is gone, nothing stored.
      if (isRefusedData(error)) throw new ApiError("unstorable", "the database refused a row of this import; nothing of it was stored");
      throw error;
    });
    if (report.status === "imported") await deps.imported(site.id, report.days);
    return jsonResponse(200, report);
  });
}
