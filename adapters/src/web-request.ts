import type { FinishedRequest } from "./hit.ts";

/** The facts of a web `Request` (Next, Hono, workers) once its status is known. */
export function finishedWebRequest(request: Request, status: number, peerAddress: string | null | undefined): FinishedRequest {
  const headers = request.headers;
  return {
    method: request.method,
    url: request.url,
    status,
    userAgent: headers.get("user-agent"),
    referrer: headers.get("referer"),
    peerAddress,
    forwardedFor: headers.get("x-forwarded-for"),
  };
}

/** Something with `waitUntil`, as NextFetchEvent and the workers' ExecutionContext have. */
export interface WaitUntil {
  waitUntil(promise: Promise<unknown>): void;
}

export function hasWaitUntil(value: unknown): value is WaitUntil {
  return value !== null && typeof value === "object" && typeof (value as WaitUntil).waitUntil === "function";
}
