// A small method + path router. Patterns are OpenAPI paths (`{name}` segments), so the operations list's paths
// are used as they are; a path that matches with another method answers 405 with Allow, an unknown path 404 —
// both through the one error type.
import { STORED_TEXT_MESSAGE } from "@svc/core";
import { ApiError } from "../errors.ts";
import type { HandlerResult, HttpHandler, HttpRequest } from "./transport.ts";

export type RouteHandler = (req: HttpRequest, params: Readonly<Record<string, string>>) => HandlerResult;

/** A literal segment, or the name of a `{name}` parameter (parsed once here, not per request). */
type Segment = { readonly literal: string } | { readonly param: string };

interface Route {
  readonly method: string;
  readonly segments: readonly Segment[];
  readonly handler: RouteHandler;
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

export class Router {
  private readonly routes: Route[] = [];

  on(method: string, pattern: string, handler: RouteHandler): this {
    const segments = split(pattern).map((s): Segment => {
      const param = /^\{(\w+)\}$/.exec(s)?.[1];
      return param === undefined ? { literal: s } : { param };
    });
    this.routes.push({ method, segments, handler });
    return this;
  }

  handler(): HttpHandler {
    // A path that only literal routes match (`/api/event`, `/api/hit`) is found by one Map lookup on the path as
    // sent, without splitting it and matching every route (~0.4 µs a request on the ingest routes). Any other
    // spelling of it (a trailing slash) and every parameterised path take the general loop below.
    const exact = new Map<string, Route[]>();
    for (const route of this.routes) {
      if (!route.segments.every((s) => "literal" in s)) continue;
      const parts = route.segments.map((s) => (s as { literal: string }).literal);
      if (this.routes.some((r) => r.segments.some((s) => "param" in s) && sameShape(r.segments, parts))) continue;
      const path = `/${parts.join("/")}`;
      exact.set(path, [...(exact.get(path) ?? []), route]);
    }
    return (req) => {
      const literal = exact.get(req.path);
      if (literal !== undefined) {
        for (const route of literal) if (route.method === req.method) return route.handler(req, NO_PARAMS);
        throw new ApiError("method_not_allowed", "method not allowed", undefined, { allow: literal.map((r) => r.method).join(", ") });
      }
      const parts = split(req.path);
      const allowed: string[] = [];
      for (const route of this.routes) {
        const params = match(route.segments, parts);
        if (!params) continue;
        if (route.method === req.method) return route.handler(req, params);
        allowed.push(route.method);
      }
      if (allowed.length > 0) throw new ApiError("method_not_allowed", "method not allowed", undefined, { allow: allowed.join(", ") });
      throw new ApiError("not_found");
    };
  }
}

/** Whether a pattern with parameters would match these literal segments. */
function sameShape(pattern: readonly Segment[], parts: readonly string[]): boolean {
  return pattern.length === parts.length && pattern.every((s, i) => !("literal" in s) || s.literal === parts[i]);
}

function split(path: string): string[] {
  return path.split("/").filter((s) => s.length > 0);
}

function match(pattern: readonly Segment[], parts: readonly string[]): Record<string, string> | null {
  if (pattern.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const v = parts[i]!;
    if ("param" in p) {
      let value: string;
      try {
        value = decodeURIComponent(v);
      } catch {
        return null;
      }
      // `%00` decodes to U+0000, which reaching a query as a domain made PostgreSQL fail the request with a 500.
      // (decodeURIComponent refuses `%ED%A0%80`, so no unpaired surrogate gets this far.)
      if (value.includes("\0")) throw new ApiError("invalid_path", "invalid path", [{ path: p.param, message: STORED_TEXT_MESSAGE }]);
      params[p.param] = value;
    } else if (p.literal !== v) return null;
  }
  return params;
}
