// The gateway's read API as the tools use it: one GET with the API key, a deadline, and every way it can go
// wrong as one typed error whose message says what the user should fix. Tool handlers turn that error into a
// tool result with `isError: true`; nothing here throws past the handler.
import { displayLabel } from "@svc/core/display";
// Module paths, not the "effect" barrel: the barrel loads every module (~3 s of a cold start on the busy box
// against a fraction of it), and the server starts each time a client opens a session.
import * as Data from "effect/Data";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import type { McpConfig } from "./config.ts";

export type UpstreamReason = "unauthorized" | "forbidden" | "unknown_site" | "not_found" | "rejected" | "failed" | "unreachable" | "timeout" | "not_json";

export class UpstreamError extends Data.TaggedError("UpstreamError")<{
  readonly reason: UpstreamReason;
  /** The HTTP status, or null when no answer came. */
  readonly status: number | null;
  /** The gateway's `error` field, or the socket error's code: shown in the sentence. */
  readonly detail: string | null;
}> {}

interface Answer {
  readonly status: number;
  readonly text: string;
}

const reasonOf = (status: number, error: string | null): UpstreamReason => {
  if (status === 401) return "unauthorized";
  if (status === 403) return "forbidden";
  // The gateway answers `{"error":"unknown site"}` for a site it does not know and `{"error":"not found"}` for a
  // route it does not have: the same status, two different fixes.
  if (status === 404) return error === "unknown site" ? "unknown_site" : "not_found";
  if (status >= 400 && status < 500 && status !== 429) return "rejected";
  return "failed";
};

/** `fetch` wraps socket errors as `TypeError("fetch failed")` with the system error as its cause. */
function socketCode(cause: unknown): string {
  let e: unknown = cause;
  for (let depth = 0; depth < 4 && e instanceof Error; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    e = e.cause;
  }
  return cause instanceof Error ? cause.message : String(cause);
}

function errorField(text: string): string | null {
  try {
    const body: unknown = JSON.parse(text);
    if (body !== null && typeof body === "object" && typeof (body as { error?: unknown }).error === "string") return (body as { error: string }).error;
  } catch {
    // Not JSON: a proxy's HTML page, say. The status alone decides.
  }
  return null;
}

/**
 * GET `path` (with `query`) on the gateway with the API key. Succeeds with the parsed JSON of a 2xx answer;
 * fails with an UpstreamError for any other status, a refused or broken connection, a timeout or a body that
 * is not JSON.
 */
export function getJson(config: McpConfig, path: string, query: Readonly<Record<string, string | number>>): Effect.Effect<unknown, UpstreamError> {
  return requestJson(config, path, query, undefined);
}

/** POST `body` as JSON to `path` (the query tool's POST /api/v2/query), with getJson's errors and deadline. */
export function postJson(config: McpConfig, path: string, body: unknown): Effect.Effect<unknown, UpstreamError> {
  return requestJson(config, path, {}, body);
}

function requestJson(config: McpConfig, path: string, query: Readonly<Record<string, string | number>>, body: unknown): Effect.Effect<unknown, UpstreamError> {
  const url = new URL(config.apiUrl + path);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
  const request = Effect.tryPromise({
    // The signal is aborted when the deadline interrupts the request, which closes the socket.
    try: async (signal): Promise<Answer> => {
      const headers: Record<string, string> = { authorization: `Bearer ${config.apiKey}`, accept: "application/json" };
      const init: RequestInit = body === undefined ? { headers, signal } : { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body), signal };
      const res = await fetch(url, init);
      return { status: res.status, text: await res.text() };
    },
    catch: (cause) => new UpstreamError({ reason: "unreachable", status: null, detail: socketCode(cause) }),
  });
  return request.pipe(
    Effect.timeoutOrElse({
      duration: Duration.millis(config.timeoutMs),
      orElse: () => Effect.fail(new UpstreamError({ reason: "timeout", status: null, detail: null })),
    }),
    Effect.flatMap(({ status, text }) => {
      if (status < 200 || status > 299) {
        const error = errorField(text);
        return Effect.fail(new UpstreamError({ reason: reasonOf(status, error), status, detail: error }));
      }
      try {
        return Effect.succeed(JSON.parse(text) as unknown);
      } catch {
        return Effect.fail(new UpstreamError({ reason: "not_json", status, detail: null }));
      }
    }),
  );
}

/**
 * The one place an upstream failure becomes a sentence for the user: what happened, then what to fix. `route`
 * names the request; `notFound` replaces the sentence for a route this gateway does not have (insights).
 */
export function explain(error: UpstreamError, config: McpConfig, route: string, notFound?: string): string {
  const at = `the gateway at ${config.apiUrl}`;
  // The gateway's error text is its own, but it travels to an assistant: cleaned like any label.
  const said = error.detail === null ? "" : `: ${displayLabel(error.detail)}`;
  switch (error.reason) {
    case "unauthorized":
      return `The API key was refused by ${at} (401${said}). Fix SVC_API_KEY: create a key with POST /api/keys while logged in (it starts with svc_live_); a revoked key stops working at once.`;
    case "forbidden":
      return `The API key may not read site ${JSON.stringify(config.siteId)} (403${said}). Set SVC_SITE_ID to a site of the key's team, or use a key created by that site's team.`;
    case "unknown_site":
      return `There is no site ${JSON.stringify(config.siteId)} on ${at} (404${said}). Fix SVC_SITE_ID: a registered domain such as example.com or a numeric id (GET /api/sites lists them).`;
    case "not_found":
      return notFound ?? `${route} does not exist on ${at} (404${said}). Check that SVC_API_URL points at the svc gateway and that the gateway is up to date.`;
    case "rejected":
      return `The gateway at ${config.apiUrl} rejected ${route} (${error.status}${said}). Check the tool's arguments against its input schema.`;
    case "failed":
      return `The gateway at ${config.apiUrl} failed to answer ${route} (${error.status}${said}). Try again in a moment; if it persists, look at the gateway's log.`;
    case "unreachable":
      return `Could not connect to ${at} (${error.detail}). Start the gateway (npm start) or set SVC_API_URL to where it runs.`;
    case "timeout":
      return `The gateway at ${config.apiUrl} did not answer ${route} within ${config.timeoutMs} ms. Check that the gateway is running and not overloaded, or raise SVC_MCP_TIMEOUT_MS.`;
    case "not_json":
      return `The gateway at ${config.apiUrl} answered ${route} with something that is not JSON (${error.status}). Check that SVC_API_URL points at the svc gateway, not at another server or a proxy's page.`;
  }
}
