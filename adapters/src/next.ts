import { createSender, type HitSender } from "./sender.ts";
import type { SvcOptions } from "./options.ts";
import { finishedWebRequest, hasWaitUntil, type WaitUntil } from "./web-request.ts";

type MiddlewareResult = Response | null | undefined | void;

/**
 * Next's middleware signature, structurally: `(request: NextRequest, event: NextFetchEvent)`. Generic in both,
 * so a middleware typed with Next's own classes keeps its types through the wrapper.
 */
export type NextStyleMiddleware<Req extends Request = Request, Ev extends WaitUntil = WaitUntil> = (
  request: Req,
  event: Ev,
) => MiddlewareResult | Promise<MiddlewareResult>;

export interface NextSvcOptions extends SvcOptions {
  /**
   * The peer address. Middleware sees no socket: by default it is `request.ip` where the framework sets it
   * (Next ≤ 14 on Vercel), else none — behind a proxy set `trustProxy` to read X-Forwarded-For instead.
   */
  readonly getIp?: (request: Request) => string | null | undefined;
  /** Used when the second argument has no waitUntil (e.g. `after` from next/server in a route handler). */
  readonly waitUntil?: (promise: Promise<unknown>) => void;
}

interface AdapterHooks {
  readonly getIp?: NextSvcOptions["getIp"];
  readonly waitUntil?: NextSvcOptions["waitUntil"];
}

function hooksOf(options: NextSvcOptions | HitSender, extra: AdapterHooks): AdapterHooks {
  const fromOptions: AdapterHooks = "endpoint" in options ? options : {};
  const hooks = { getIp: extra.getIp ?? fromOptions.getIp, waitUntil: extra.waitUntil ?? fromOptions.waitUntil };
  if (hooks.getIp !== undefined && typeof hooks.getIp !== "function") throw new TypeError("svc: getIp must be a function");
  if (hooks.waitUntil !== undefined && typeof hooks.waitUntil !== "function") throw new TypeError("svc: waitUntil must be a function");
  return hooks;
}

/**
 * Wrap a Next-style middleware (or route handler): the hit carries the status of the Response it returns —
 * 200 for `NextResponse.next()`/`rewrite()` or no response, 3xx for a redirect, whatever it returns itself.
 * Middleware runs before the page, so a page that renders a 404 afterwards is reported as 200; wrap the
 * route handler, or use the Node adapter in a custom server, where the final status matters.
 * If the middleware throws, the hit says 500 and the error is rethrown unchanged.
 */
export function withSvc<Req extends Request = Request, Ev extends WaitUntil = WaitUntil>(
  middleware: NextStyleMiddleware<Req, Ev> | undefined,
  options: NextSvcOptions | HitSender,
  extra: AdapterHooks = {},
): ((request: Req, event: Ev) => Promise<MiddlewareResult>) & { readonly svc: HitSender } {
  if (middleware !== undefined && typeof middleware !== "function") throw new TypeError("svc: withSvc(middleware, options) needs a function");
  const sender = createSender(options);
  const hooks = hooksOf(options, extra);

  const report = (request: Request, event: unknown, status: number): void => {
    try {
      const peer = hooks.getIp !== undefined ? hooks.getIp(request) : (request as { ip?: string }).ip;
      const finished = finishedWebRequest(request, status, peer);
      if (hasWaitUntil(event)) event.waitUntil(sender.recordAndWait(finished));
      else if (hooks.waitUntil !== undefined) hooks.waitUntil(sender.recordAndWait(finished));
      else sender.record(finished);
    } catch {
      // Reporting never breaks the host's response.
    }
  };

  const wrapped = async (request: Req, event: Ev): Promise<MiddlewareResult> => {
    let wanted = false;
    try {
      wanted = sender.wants(request.headers.get("user-agent"));
    } catch {
      wanted = false;
    }
    if (middleware === undefined) {
      if (wanted) report(request, event, 200);
      return undefined;
    }
    let response: MiddlewareResult;
    try {
      response = await middleware(request, event);
    } catch (error) {
      if (wanted) report(request, event, 500);
      throw error;
    }
    if (wanted) report(request, event, response instanceof Response ? response.status : 200);
    return response;
  };
  return Object.assign(wrapped, { svc: sender });
}

/** A middleware that only reports: `export const middleware = svc({ endpoint, domain })`. */
export function svc(
  options: NextSvcOptions | HitSender,
  extra: AdapterHooks = {},
): ((request: Request, event?: WaitUntil) => Promise<MiddlewareResult>) & { readonly svc: HitSender } {
  return withSvc<Request, WaitUntil>(undefined, options, extra) as ((request: Request, event?: WaitUntil) => Promise<MiddlewareResult>) & {
    readonly svc: HitSender;
  };
}

export { createSender, HitSender } from "./sender.ts";
export type { SvcOptions } from "./options.ts";
