import { createSender, type HitSender } from "./sender.ts";
import type { SvcOptions } from "./options.ts";
import { finishedWebRequest, hasWaitUntil } from "./web-request.ts";

/** The parts of Hono's Context this middleware reads; a structural type, so hono stays an optional peer. */
export interface HonoContextLike {
  readonly req: { readonly raw: Request };
  readonly res: Response;
  readonly env: unknown;
  /** Hono's getter throws where the runtime has no execution context (Node, Bun). */
  readonly executionCtx: unknown;
}

/** Hono's `getConnInfo` helpers (`@hono/node-server/conninfo`, `hono/bun`, `hono/deno`, `hono/cloudflare-workers`) fit this. */
export type GetConnInfo = (c: never) => { readonly remote: { readonly address?: string | undefined } };

export interface HonoSvcOptions extends SvcOptions {
  /** How to read the peer address on your runtime; default: @hono/node-server's socket, else none. */
  readonly getConnInfo?: GetConnInfo;
}

interface NodeBindings {
  readonly incoming?: { readonly socket?: { readonly remoteAddress?: string } };
  readonly server?: NodeBindings;
}

function nodeServerAddress(env: unknown): string | undefined {
  if (env === null || typeof env !== "object") return undefined;
  const bindings = env as NodeBindings;
  return (bindings.server ?? bindings).incoming?.socket?.remoteAddress;
}

function executionContext(c: HonoContextLike): unknown {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}

/**
 * Hono middleware: `app.use(svc({ endpoint, domain }))`, registered first. The status is `c.res.status` after
 * `await next()`, so it includes what notFound/onError produced. On workers the POST is kept alive with
 * `c.executionCtx.waitUntil`; on Node and Bun the sender's own batching runs it.
 */
export function svc(
  options: HonoSvcOptions | HitSender,
  adapterOptions: { readonly getConnInfo?: GetConnInfo } = {},
): ((c: HonoContextLike, next: () => Promise<void>) => Promise<void>) & { readonly svc: HitSender } {
  const sender = createSender(options);
  const getConnInfo = adapterOptions.getConnInfo ?? ("getConnInfo" in options ? options.getConnInfo : undefined);
  if (getConnInfo !== undefined && typeof getConnInfo !== "function") throw new TypeError("svc: getConnInfo must be a function");
  const report = (c: HonoContextLike, status: number): void => {
    try {
      const peer = getConnInfo !== undefined ? getConnInfo(c as never).remote.address : nodeServerAddress(c.env);
      const finished = finishedWebRequest(c.req.raw, status, peer);
      const ctx = executionContext(c);
      if (hasWaitUntil(ctx)) ctx.waitUntil(sender.recordAndWait(finished));
      else sender.record(finished);
    } catch {
      // Reporting never breaks the host's response.
    }
  };
  const middleware = async (c: HonoContextLike, next: () => Promise<void>): Promise<void> => {
    let wanted = false;
    try {
      wanted = sender.wants(c.req.raw.headers.get("user-agent"));
    } catch {
      wanted = false;
    }
    try {
      await next();
    } catch (error) {
      // Hono's own error handler normally turns a throw into c.res; a rethrown error still gets its 500 reported.
      if (wanted) report(c, 500);
      throw error;
    }
    if (wanted) report(c, c.res.status);
  };
  return Object.assign(middleware, { svc: sender });
}

export { createSender, HitSender } from "./sender.ts";
export type { SvcOptions } from "./options.ts";
