// The router built from the operations list (api-schema/operations.ts). A handler is bound to an operation by
// its `METHOD path` key; the router's pattern is the operation's OpenAPI path, its credential check is the
// operation's `security`, and its query and body are decoded with the operation's own Schemas. `router()`
// refuses to build (so the gateway refuses to boot) while an operation has no handler, and `on` refuses a key
// that names no operation.
import type { Schema } from "effect";
import { decodeBody, decodeQuery } from "../api-schema/decode.ts";
import { OPERATIONS, type Operation, type OperationAt, type OperationKey, type Security, operationKey } from "../api-schema/operations.ts";
import type { Authenticator } from "../auth/index.ts";
import type { Principal } from "../auth/principal.ts";
import { Router } from "../http/router.ts";
import type { HandlerResult, HttpRequest, HttpResponse } from "../http/transport.ts";
import { type SiteOperationKey, type SiteRequest, type SiteScope, type SiteScopeOptions, isSiteScoped, siteScoped } from "./site-scope.ts";

/** What an operation's `query` or `body` Schema decodes to; undefined for an operation without one. */
export type DecodedInput<K extends OperationKey, F extends "query" | "body"> = OperationAt<K> extends { readonly [P in F]: infer S extends Schema.Top } ? S["Type"] : undefined;

export interface OperationRequest<K extends OperationKey> {
  readonly req: HttpRequest;
  /** The path's `{name}` segments, URI-decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** Checked by the operation's `security` before the handler runs; undefined for "none". */
  readonly principal: OperationAt<K>["security"] extends "none" ? undefined : Principal;
  /**
   * The query string and the JSON body decoded with the operation's Schemas (400 with every bad field). Called
   * by the handler rather than before it, so a check that must come first (login's rate limit and its 404 in
   * jwt mode) still does.
   */
  query(): DecodedInput<K, "query">;
  body(): DecodedInput<K, "body">;
}

export type OperationHandler<K extends OperationKey> = (request: OperationRequest<K>) => HandlerResult;

// Stored without its key's types: `router()` builds each request from the operation the key named.
type AnyHandler = (request: OperationRequest<OperationKey>) => HandlerResult;

interface Binding {
  readonly handler: AnyHandler;
  /** The handler checks the credential itself (logout: ending the session is that check). */
  readonly authenticatesItself: boolean;
  readonly siteScoped: boolean;
}

export interface OperationRoutesDeps extends SiteScope {
  readonly auth: Pick<Authenticator, "authenticate" | "authenticateAdmin" | "authenticateSession">;
}

const BY_KEY = new Map<string, Operation>(OPERATIONS.map((op) => [operationKey(op), op]));

export class OperationRoutes {
  private readonly bound = new Map<string, Binding>();

  constructor(private readonly deps: OperationRoutesDeps) {}

  on<K extends OperationKey>(key: K, handler: OperationHandler<K>): this {
    return this.bind(key, { handler: handler as unknown as AnyHandler, authenticatesItself: false, siteScoped: false });
  }

  /** For an operation whose credential check is its own work: the handler gets no principal. */
  authenticatesItself<K extends OperationKey>(key: K, handler: (request: Omit<OperationRequest<K>, "principal">) => Promise<HttpResponse> | HttpResponse): this {
    return this.bind(key, { handler: handler as unknown as AnyHandler, authenticatesItself: true, siteScoped: false });
  }

  /** An `/api/sites/{id}/…` operation: the handler gets the caller's team site and the decoded query and body. */
  site<K extends SiteOperationKey>(key: K, handler: (request: SiteRequest<K>) => Promise<HttpResponse> | HttpResponse, options: SiteScopeOptions = {}): this {
    const preamble = siteScoped(this.deps, handler, options);
    return this.bind(key, { handler: preamble as unknown as AnyHandler, authenticatesItself: false, siteScoped: true });
  }

  /** The router, in the operations list's order; throws while an operation has no handler. */
  router(): Router {
    const unbound = OPERATIONS.map(operationKey).filter((key) => !this.bound.has(key));
    if (unbound.length > 0) throw new Error(`operations without a handler: ${unbound.join(", ")}`);
    const router = new Router();
    for (const op of OPERATIONS) {
      const binding = this.bound.get(operationKey(op))!;
      const check = binding.authenticatesItself ? undefined : this.credentialCheck(op.security);
      const request = (req: HttpRequest, params: Readonly<Record<string, string>>, principal: Principal | undefined): OperationRequest<OperationKey> => ({
        req,
        params,
        principal: principal as Principal,
        query: () => (op.query ? decodeQuery(op.query as Schema.Decoder<unknown>, req.query) : undefined) as never,
        body: () => (op.body ? decodeBody(op.body as Schema.Decoder<unknown>, req.body) : undefined) as never,
      });
      // Operations without a credential (ingest above all) are called without an extra await.
      router.on(op.method, op.path, check === undefined
        ? (req, params) => binding.handler(request(req, params, undefined))
        : async (req, params) => binding.handler(request(req, params, await check(req))));
    }
    return router;
  }

  private bind(key: OperationKey, binding: Binding): this {
    const op = BY_KEY.get(key);
    if (op === undefined) throw new Error(`no operation ${key} in api-schema/operations.ts`);
    if (this.bound.has(key)) throw new Error(`${key} is bound twice`);
    // Every site-scoped path goes through the one preamble, so none can skip the team check.
    if (isSiteScoped(op.path) !== binding.siteScoped) throw new Error(`${key} must be bound with ${binding.siteScoped ? "on" : "site"}()`);
    this.bound.set(key, binding);
    return this;
  }

  private credentialCheck(security: Security): ((req: HttpRequest) => Promise<Principal>) | undefined {
    const { auth } = this.deps;
    switch (security) {
      case "none":
        return undefined;
      case "credential":
        return auth.authenticate;
      case "admin":
        return auth.authenticateAdmin;
      case "session":
        return auth.authenticateSession;
    }
  }
}

