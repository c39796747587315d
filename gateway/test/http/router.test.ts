// The router's two ways to a route — one Map lookup for paths only literal routes match, the segment loop for
// the rest — must answer every request as the loop alone did: same route, same params, same 404 and 405.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors.ts";
import { Router } from "../../src/http/router.ts";
import type { HttpRequest, HttpResponse } from "../../src/http/transport.ts";

const request = (method: string, path: string): HttpRequest => ({ method, path, query: new URLSearchParams(), headers: {}, remoteAddress: "127.0.0.1", body: null, bodyStream: null, aborted: false });

function router(): Router {
  const named = (name: string) => (_req: HttpRequest, params: Readonly<Record<string, string>>): HttpResponse => ({ status: 200, body: JSON.stringify({ name, params }) });
  return new Router()
    .on("POST", "/api/event", named("event"))
    .on("OPTIONS", "/api/event", named("event preflight"))
    // Registered first, so /api/sites/new is this route's (the literal one below never wins).
    .on("GET", "/api/sites/{id}", named("site"))
    .on("GET", "/api/sites/new", named("shadowed"))
    .on("GET", "/api/sites", named("sites"));
}

function answer(method: string, path: string): { name: string; params: Record<string, string> } | { error: string; allow?: string } {
  try {
    const response = router().handler()(request(method, path)) as HttpResponse & { body: string };
    return JSON.parse(response.body) as { name: string; params: Record<string, string> };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { error: error.reason, ...(error.headers?.allow ? { allow: error.headers.allow } : {}) };
  }
}

describe("router", () => {
  it.each([
    ["POST", "/api/event", { name: "event", params: {} }],
    ["OPTIONS", "/api/event", { name: "event preflight", params: {} }],
    ["POST", "/api/event/", { name: "event", params: {} }],
    ["POST", "//api//event", { name: "event", params: {} }],
    ["GET", "/api/event", { error: "method_not_allowed", allow: "POST, OPTIONS" }],
    ["GET", "/api/sites", { name: "sites", params: {} }],
    ["GET", "/api/sites/7", { name: "site", params: { id: "7" } }],
    ["GET", "/api/sites/new", { name: "site", params: { id: "new" } }],
    ["GET", "/api/sites/a%2Fb", { name: "site", params: { id: "a/b" } }],
    ["POST", "/api/sites", { error: "method_not_allowed", allow: "GET" }],
    ["GET", "/api/nothing", { error: "not_found" }],
    ["GET", "/api/sites/a%00b", { error: "invalid_path" }],
  ] as const)("%s %s", (method, path, expected) => {
    expect(answer(method, path)).toEqual(expected);
  });
});
