import { errorResponse } from "../errors.ts";
import type { HttpResponse } from "../http/transport.ts";
import { type DeliveryAnswers, type IngestDeps, ingestEvent, ingestHits } from "../ingest/pipeline.ts";
import type { OperationRoutes } from "./operation-routes.ts";

// The browser script posts cross-origin from every tracked site; only this route is open to CORS.
export const EVENT_CORS = Object.freeze({
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": "content-type",
  "access-control-max-age": "86400",
} as const);

// A CORS simple request's answer needs only Allow-Origin; the other three are for the preflight (each header is
// a write into uWebSockets.js: ~0.1 µs).
// Frozen: the uWebSockets.js transport writes a frozen response's headers from bytes it made once (http/uws.ts).
const ACCEPTED: HttpResponse = { status: 202, headers: Object.freeze({ "access-control-allow-origin": "*" }) };
export const EVENT_ACCEPTED_HEADERS = ACCEPTED.headers!;

const withCors = (r: HttpResponse): HttpResponse => ({ ...r, headers: { ...r.headers, ...EVENT_CORS } });

// The bodies are decoded by the pipeline with core's decoders of the operations' own Schemas (BrowserEventBody,
// ServerHitsBody: core/src/schema), not by `body()`: the per-client rate limit comes before parsing, a rejection
// is counted, and /api/event answers its errors with CORS headers.
export function ingestRoutes(routes: OperationRoutes, deps: IngestDeps): void {
  // A rejection before the lane is thrown, one after it rejects the promise: both are answered the same way
  // (one function for the route, not a closure per request).
  const rejected = (error: unknown): HttpResponse => {
    countRejection(deps, error);
    return withCors(errorResponse(error));
  };
  // The request's Delivery is its answer (a LaterResponse): 202 once its batch committed, else `rejected`.
  const answers: DeliveryAnswers = { accepted: ACCEPTED, refused: rejected };
  routes
    .on("OPTIONS /api/event", () => ({ status: 204, headers: EVENT_CORS }))
    .on("POST /api/event", ({ req }) => {
      try {
        const delivery = ingestEvent(req, deps, answers);
        // A site not in the cache yet: its look-up's promise, whose rejection (an unknown site) is answered here.
        return delivery instanceof Promise ? delivery.catch(rejected) : delivery;
      } catch (error) {
        return rejected(error);
      }
    })
    .on("POST /api/hit", async ({ req }) => {
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
