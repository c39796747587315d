// A small method + path router. Patterns are OpenAPI paths (`{name}` segments), so the operations list's paths
// are used as they are; a path that matches with another method answers 405 with Allow, an unknown path 404 —
// both through the one error type.
import { STORED_TEXT_MESSAGE } from "@svc/core";
import { ApiError } from "../errors.ts";
import type { HttpHandler, HttpRequest, HttpResponse } from "./transport.ts";

export type RouteHandler = (req: HttpRequest, params: Readonly<Record<string, string>>) => Promise<HttpResponse> | HttpResponse;

/** A literal segment, or the name of a `{name}` parameter (parsed once here, not per request). */
type Segment = { readonly literal: string } | { readonly param: string };

interface Route {
  readonly method: string;
  readonly segments: readonly Segment[];
  readonly handler: RouteHandler;
}

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
    return (req) => {
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
