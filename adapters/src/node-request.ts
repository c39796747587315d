import type { IncomingMessage, ServerResponse } from "node:http";
import type { HitSender } from "./sender.ts";

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}

/**
 * Report a node:http request once its response has finished, with the status that was really sent.
 * Shared by the plain Node wrapper and the Express/connect middleware. The only work done before the
 * response is a user-agent check and one listener.
 */
export function trackNodeRequest(sender: HitSender, req: IncomingMessage, res: ServerResponse): void {
  try {
    if (!sender.wants(req.headers["user-agent"])) return;
    res.once("finish", () => {
      try {
        sender.record({
          method: req.method ?? "GET",
          // Express rewrites req.url inside mounted routers; originalUrl is what the client asked for.
          url: (req as { originalUrl?: string }).originalUrl ?? req.url ?? "/",
          status: res.statusCode,
          userAgent: req.headers["user-agent"],
          referrer: header(req.headers.referer),
          peerAddress: req.socket?.remoteAddress,
          forwardedFor: header(req.headers["x-forwarded-for"]),
        });
      } catch {
        // record() does not throw; this guards the host's emitter against anything unforeseen all the same.
      }
    });
  } catch {
    // Never let reporting break the host's request.
  }
}
