// GET /api/sites/{id}/export?from=&to=: the site's raw browser rows of those UTC days as NDJSON in the history
// import's format (storage/raw-export.ts), streamed as PostgreSQL produces it and paced by the client: a
// write the socket cannot take pauses the COPY until it drains. Admin scope: raw rows are the most detailed
// thing svc holds. At most MAX_EXPORTS run at once per gateway, since each holds a connection of the shared
// pool (8) for as long as the client reads.
import { StringDecoder } from "node:string_decoder";
import type pg from "pg";
import { ApiError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { openRawExport } from "../storage/raw-export.ts";
import type { OperationRoutes } from "./operation-routes.ts";

export const MAX_EXPORTS = 2;

export function exportRoutes(routes: OperationRoutes, deps: { readonly pool: pg.Pool; readonly log: Logger }): void {
  let running = 0;
  routes.site("GET /api/sites/{id}/export", async ({ site, query, principal }) => {
    if (query.to < query.from) throw new ApiError("invalid_query", "invalid query", [{ path: "to", message: "must not be before from" }]);
    if (running >= MAX_EXPORTS) throw new ApiError("rate_limited", `at most ${MAX_EXPORTS} exports run at once; retry later`, undefined, { "retry-after": "30" });
    running++;
    let opened;
    try {
      opened = await openRawExport(deps.pool, site.id, query.from, query.to);
    } catch (error) {
      running--;
      throw error;
    }
    const exp = opened;
    deps.log.info("raw export started", { site_id: site.id, from: query.from, to: query.to, by: principal.subject });
    const file = `${site.domain}_${query.from}_${query.to}.ndjson`.replace(/[^A-Za-z0-9._-]/g, "_");
    return {
      status: 200,
      headers: { "content-type": "application/x-ndjson; charset=utf-8", "content-disposition": `attachment; filename="${file}"`, "cache-control": "no-store" },
      stream: (sink) => {
        const text = new StringDecoder("utf8");
        let finished = false;
        const finish = (error?: Error) => {
          if (finished) return;
          finished = true;
          running--;
          void exp.done(error);
        };
        exp.rows.on("data", (chunk: Buffer) => {
          if (!sink.write(text.write(chunk))) {
            exp.rows.pause();
            sink.onDrain(() => exp.rows.resume());
          }
        });
        exp.rows.on("end", () => {
          sink.write(text.end());
          finish();
          sink.end();
        });
        exp.rows.on("error", (error: Error) => {
          deps.log.error("raw export failed", { site_id: site.id, error: error.message });
          // Headers are gone: a last line no import accepts tells the reader the file is incomplete.
          if (!sink.closed) sink.write(`${JSON.stringify({ error: "export failed before the end; this file is incomplete" })}\n`);
          finish(error);
          sink.end();
        });
        // The client went away: stop PostgreSQL's side and drop the connection mid-COPY.
        sink.onClose(() => {
          if (finished) return;
          exp.rows.destroy();
          finish(new Error("client closed the export"));
        });
      },
    };
  });
}
