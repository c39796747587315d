import type { IncomingMessage, ServerResponse } from "node:http";
import { createSender, type HitSender } from "./sender.ts";
import type { SvcOptions } from "./options.ts";
import { trackNodeRequest } from "./node-request.ts";

export type RequestListener<Req extends IncomingMessage = IncomingMessage, Res extends ServerResponse = ServerResponse> = (
  req: Req,
  res: Res,
) => unknown;

/**
 * Wrap a node:http request listener: `http.createServer(withSvc(listener, { endpoint, domain }))`.
 * The returned listener carries its sender as `.svc` (stats, flush, close).
 */
export function withSvc<Req extends IncomingMessage, Res extends ServerResponse>(
  listener: RequestListener<Req, Res>,
  options: SvcOptions | HitSender,
): RequestListener<Req, Res> & { readonly svc: HitSender } {
  if (typeof listener !== "function") throw new TypeError("svc: withSvc(listener, options) needs a request listener function");
  const sender = createSender(options);
  const wrapped = (req: Req, res: Res): unknown => {
    trackNodeRequest(sender, req, res);
    return listener(req, res);
  };
  return Object.assign(wrapped, { svc: sender });
}

export { createSender, HitSender } from "./sender.ts";
export type { SvcOptions } from "./options.ts";
