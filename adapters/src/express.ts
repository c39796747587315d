import type { IncomingMessage, ServerResponse } from "node:http";
import { createSender, type HitSender } from "./sender.ts";
import type { SvcOptions } from "./options.ts";
import { trackNodeRequest } from "./node-request.ts";

export type ConnectMiddleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * Express 4/5 and connect-style middleware: `app.use(svc({ endpoint, domain }))`, registered first so it sees
 * every request. The status is read when the response finishes, after every handler and error handler ran.
 * The client address follows this package's `trustProxy`, not Express's `trust proxy` setting.
 */
export function svc(options: SvcOptions | HitSender): ConnectMiddleware & { readonly svc: HitSender } {
  const sender = createSender(options);
  const middleware: ConnectMiddleware = (req, res, next) => {
    trackNodeRequest(sender, req, res);
    next();
  };
  return Object.assign(middleware, { svc: sender });
}

export { createSender, HitSender } from "./sender.ts";
export type { SvcOptions } from "./options.ts";
