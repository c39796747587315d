import { createSender, HitSender } from "./sender.ts";
import type { SvcOptions } from "./options.ts";
import { finishedWebRequest, type WaitUntil } from "./web-request.ts";

/** A module worker's default export, structurally (`ExportedHandler` on Cloudflare). */
export interface FetchHandler<Env = unknown, Ctx extends WaitUntil = WaitUntil> {
  fetch(request: Request, env: Env, ctx: Ctx): Response | Promise<Response>;
}

/** Options, or a function of the worker's `env` (where a worker's configuration lives), called once per isolate. */
export type WorkerSvcOptions<Env> = SvcOptions | HitSender | ((env: Env) => SvcOptions | HitSender);

/**
 * Wrap an edge worker: `export default withSvc({ fetch(request, env, ctx) { … } }, (env) => ({ endpoint: env.SVC_ENDPOINT, domain: "example.com" }))`.
 * The client address is `cf-connecting-ip` (set by Cloudflare), or X-Forwarded-For per `trustProxy`; the POST is
 * kept alive with `ctx.waitUntil`. If the handler throws, the hit says 500 and the error is rethrown unchanged.
 */
export function withSvc<Env, Ctx extends WaitUntil, H extends FetchHandler<Env, Ctx>>(
  handler: H,
  options: WorkerSvcOptions<Env>,
): Omit<H, "fetch"> & {
  fetch(request: Request, env: Env, ctx: Ctx): Promise<Response>;
  /** The sender, once built (at once with static options, on the first request with options(env)). */
  readonly svc: () => HitSender | undefined;
} {
  if (handler === null || typeof handler !== "object" || typeof handler.fetch !== "function") {
    throw new TypeError("svc: withSvc(handler, options) needs an object with a fetch(request, env, ctx) method");
  }
  // With static options the sender is built now, so a mistake fails at deploy time, not on the first request.
  let sender: HitSender | undefined = typeof options === "function" ? undefined : createSender(options);
  const senderFor = (env: Env): HitSender => {
    if (sender === undefined) sender = createSender((options as (env: Env) => SvcOptions | HitSender)(env));
    return sender;
  };

  const report = (active: HitSender, request: Request, ctx: Ctx, status: number): void => {
    try {
      const finished = finishedWebRequest(request, status, request.headers.get("cf-connecting-ip"));
      const delivered = active.recordAndWait(finished);
      if (ctx !== null && typeof ctx === "object" && typeof ctx.waitUntil === "function") ctx.waitUntil(delivered);
    } catch {
      // Reporting never breaks the host's response.
    }
  };

  const fetch = async (request: Request, env: Env, ctx: Ctx): Promise<Response> => {
    // A configuration error from options(env) must surface; it is thrown on every request until fixed.
    const active = senderFor(env);
    let wanted = false;
    try {
      wanted = active.wants(request.headers.get("user-agent"));
    } catch {
      wanted = false;
    }
    let response: Response;
    try {
      response = await handler.fetch(request, env, ctx);
    } catch (error) {
      if (wanted) report(active, request, ctx, 500);
      throw error;
    }
    if (wanted) report(active, request, ctx, response.status);
    return response;
  };
  // Keep the handler's prototype: a class-based handler's other methods (scheduled, queue …) stay reachable.
  return Object.assign(Object.create(Object.getPrototypeOf(handler) as object) as Omit<H, "fetch">, handler, { fetch, svc: () => sender });
}

export { createSender, HitSender };
export type { SvcOptions } from "./options.ts";
