/**
 * A local site for the browser tests, over real HTTP on 127.0.0.1 (random port). One server plays three
 * parts: it serves fixture pages, serves the built svc.js at /js/svc.js (as the gateway does), and captures
 * every POST to a path ending in /api/event (as the gateway's ingest would receive it).
 * Start two to get two origins: one as 127.0.0.1, one as localhost.
 */
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { TRACKER_BUNDLE } from "../../scripts/build.ts";

export interface CapturedEvent {
  /** Request path, e.g. `/api/event`, or `/stats/api/event` behind a proxy prefix. */
  readonly path: string;
  /** The `d` query parameter (what a load balancer routes the site by), or null. */
  readonly d: string | null;
  readonly contentType: string | undefined;
  /** The Cookie header: the tracker must never cause one. */
  readonly cookie: string | undefined;
  readonly raw: string;
  /** The JSON body; `undefined` when the body was not JSON (a test failure in itself). */
  readonly body: Record<string, unknown> | undefined;
}

export interface TestSite {
  /** `http://127.0.0.1:<port>` or `http://localhost:<port>`. */
  readonly origin: string;
  /** Every captured event, in arrival order. */
  readonly events: readonly CapturedEvent[];
  /** Serves `html` at `path` (with any query string) and returns the page's absolute URL. */
  page(path: string, html: string): string;
  /** Polls until `count` captured events match, then returns the matches; fails after `timeoutMs`. */
  waitForEvents(match: (event: CapturedEvent) => boolean, count?: number, timeoutMs?: number): Promise<CapturedEvent[]>;
  /** The next `times` events for `domain` (by `?d=`) are answered 503 with `Retry-After: 0`, and not captured. */
  refuse(domain: string, times: number): void;
  close(): Promise<void>;
}

export interface TestSiteOptions {
  /** Host name in `origin`; the server listens on 127.0.0.1 either way. */
  readonly hostname?: "127.0.0.1" | "localhost";
}

// Beacons and keepalive fetches are cross-origin whenever data-api points elsewhere; a text/plain beacon
// needs no preflight, but the answer must still allow the fetch fallback to read it.
const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": "content-type",
  "access-control-max-age": "600",
} as const;

/** Served for any GET that is not a registered page: the target of outbound links and download links. */
const LANDING_PAGE = '<!doctype html><html><head><meta charset="utf-8"><title>landing</title></head><body>landed</body></html>';

const POLL_INTERVAL_MS = 20;
const DEFAULT_WAIT_MS = 10_000;

const readBody = async (request: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

const parseJsonObject = (raw: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(raw);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

export async function startTestSite(options: TestSiteOptions = {}): Promise<TestSite> {
  const events: CapturedEvent[] = [];
  const pages = new Map<string, string>();
  const refusals = new Map<string, number>();

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? "/", "http://test.invalid");
    const path = url.pathname;
    const d = url.searchParams.get("d");
    if (request.method === "OPTIONS") {
      response.writeHead(204, CORS_HEADERS).end();
    } else if (request.method === "POST" && path.endsWith("/api/event")) {
      const raw = await readBody(request);
      const refuse = refusals.get(d ?? "") ?? 0;
      if (refuse > 0) {
        refusals.set(d ?? "", refuse - 1);
        response.writeHead(503, { ...CORS_HEADERS, "content-type": "application/json", "retry-after": "0" }).end('{"error":"this site is moving between gateways; retry"}');
        return;
      }
      events.push({
        path,
        d,
        contentType: request.headers["content-type"],
        cookie: request.headers.cookie,
        raw,
        body: parseJsonObject(raw),
      });
      response.writeHead(202, CORS_HEADERS).end();
    } else if (request.method === "GET" && path === "/js/svc.js") {
      const script = await readFile(TRACKER_BUNDLE);
      response.writeHead(200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-store" }).end(script);
    } else if (request.method === "GET") {
      response
        .writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" })
        .end(pages.get(path) ?? LANDING_PAGE);
    } else {
      response.writeHead(405).end();
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500, { "content-type": "text/plain" }).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://${options.hostname ?? "127.0.0.1"}:${port}`;

  return {
    origin,
    events,
    refuse(domain, times) {
      refusals.set(domain, times);
    },
    page(path, html) {
      const url = new URL(path, origin);
      pages.set(url.pathname, html);
      return url.href;
    },
    async waitForEvents(match, count = 1, timeoutMs = DEFAULT_WAIT_MS) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matched = events.filter(match);
        if (matched.length >= count) return matched;
        if (Date.now() > deadline) {
          throw new Error(
            `expected ${count} matching event(s) at ${origin} within ${timeoutMs} ms, got ${matched.length}; ` +
              `all received: ${JSON.stringify(events.map((event) => event.body ?? event.raw))}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
      }
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
