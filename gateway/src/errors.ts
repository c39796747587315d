// The one error type of the gateway and the one place that turns it into a response.
import type { FieldError } from "@svc/core";
import type { HttpResponse } from "./http/transport.ts";
import { isConnectionError } from "./storage/database-health.ts";

export const REJECTIONS = {
  body_too_large: { status: 413, message: "request body exceeds 64 KB" },
  malformed_json: { status: 400, message: "malformed JSON" },
  invalid_body: { status: 400, message: "invalid body" },
  invalid_query: { status: 400, message: "invalid query" },
  invalid_path: { status: 400, message: "invalid path" },
  unauthorized: { status: 401, message: "missing or invalid credentials" },
  forbidden: { status: 403, message: "forbidden" },
  unknown_site: { status: 404, message: "unknown site" },
  not_found: { status: 404, message: "not found" },
  method_not_allowed: { status: 405, message: "method not allowed" },
  conflict: { status: 409, message: "conflict" },
  // The body was valid, yet PostgreSQL refused a row made from it (group-commit.ts): retrying cannot help.
  unstorable: { status: 422, message: "the database refused this request's data; nothing of it was stored" },
  unsupported_media_type: { status: 415, message: "unsupported media type" },
  rate_limited: { status: 429, message: "rate limited" },
  internal: { status: 500, message: "internal error" },
  overloaded: { status: 503, message: "overloaded" },
  // nginx's code for it: the client closed the connection first, so no one reads this answer (query/admission.ts).
  client_closed: { status: 499, message: "the client closed the request before its answer" },
  unavailable: { status: 503, message: "temporarily unavailable" },
} as const satisfies Record<string, { status: number; message: string }>;

export type Rejection = keyof typeof REJECTIONS;

export class ApiError extends Error {
  constructor(
    readonly reason: Rejection,
    message: string = REJECTIONS[reason].message,
    readonly details?: readonly FieldError[],
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = "ApiError";
  }
  get status(): number {
    return REJECTIONS[this.reason].status;
  }
}

/** What ingest dropped without rejecting the request: e-mail-looking props, and addresses cut out of paths, event names and UTM values. */
export type Drop = "props_dropped" | "emails_dropped";

/** Counts of every rejection and drop by reason since boot, reported by /healthz. */
export class RejectionCounters {
  readonly counts: Record<string, number> = {};
  count(reason: Rejection | Drop, n = 1): void {
    this.counts[reason] = (this.counts[reason] ?? 0) + n;
  }
}

export function errorResponse(error: unknown): HttpResponse {
  // A lost database connection is an outage, not a bug: 503 with Retry-After, never a 500.
  const e = error instanceof ApiError ? error : isConnectionError(error) ? databaseUnavailable() : new ApiError("internal");
  const body: { error: string; details?: readonly FieldError[] } = { error: e.message };
  if (e.details && e.details.length > 0) body.details = e.details;
  return {
    status: e.status,
    headers: { "content-type": "application/json", ...e.headers },
    body: JSON.stringify(body),
  };
}

// The 503s of an outage carry Retry-After, so a sender (the middleware's queue, a beacon retry) backs off
// instead of hammering a gateway that cannot store rows right now. 5 s: about two probes of the database
// at their 2 s cap (src/storage/database-health.ts).
const DATABASE_RETRY_AFTER_S = 5;

/** The database is down: answered at once, before anything is queued (ingest) or queried (reads). */
export function databaseUnavailable(): ApiError {
  return new ApiError("unavailable", "database unavailable; retry later", undefined, { "retry-after": String(DATABASE_RETRY_AFTER_S) });
}

/** The rows were not stored (a failed batch, a restarted actor or writer): retrying in a second is safe. */
export function rowsNotStored(): ApiError {
  return new ApiError("unavailable", "temporarily unavailable: the event was not stored, retry", undefined, { "retry-after": "1" });
}
