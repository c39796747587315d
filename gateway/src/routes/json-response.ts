// The JSON response of the routes: never cached unless the route says otherwise (most answers depend on
// the credential).
import type { HttpResponse } from "../http/transport.ts";

export function jsonResponse(status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): HttpResponse {
  return { status, headers: { "content-type": "application/json", "cache-control": "no-store", ...headers }, body: JSON.stringify(body) };
}
