// The success response of the API routes: JSON, never cached (every answer depends on the credential).
import type { HttpResponse } from "../http/transport.ts";

export function jsonResponse(status: number, body: unknown): HttpResponse {
  return { status, headers: { "content-type": "application/json", "cache-control": "no-store" }, body: JSON.stringify(body) };
}
