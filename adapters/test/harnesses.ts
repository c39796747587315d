// One harness per adapter, each a real framework instance serving the same site over a real socket:
// GET /blog → 200, GET /boom fails in the handler → 500, anything else → 404. The shared suite in adapters.test.ts runs against every harness.
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import express from "express";
import { Hono } from "hono";
import { serve } from "@hono/node-server";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import type { HitSender, SenderStats, SvcOptions } from "../src/index.ts";
import { withSvc as withSvcNode } from "../src/node.ts";
import { svc as svcExpress } from "../src/express.ts";
import { svc as svcHono } from "../src/hono.ts";
import { withSvc as withSvcNext } from "../src/next.ts";
import { withSvc as withSvcWorker } from "../src/worker.ts";
import { countingOnError, type OnErrorMode } from "./fixtures/on-error.ts";

export interface AppConfig {
  readonly svc: Omit<SvcOptions, "onError">;
  readonly onError?: OnErrorMode;
}

export interface RunningApp {
  readonly url: string;
  stats(): Promise<SenderStats & { readonly errors: number }>;
  /** sender.close(): sends what is pending. */
  closeSender(): Promise<void>;
  stop(): Promise<void>;
}

export interface Harness {
  readonly name: string;
  start(config: AppConfig): Promise<RunningApp>;
}

async function listen(listener: RequestListener): Promise<{ url: string; stop: () => Promise<void> }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function inProcess(sender: HitSender, errors: () => number, url: string, stop: () => Promise<void>): RunningApp {
  return {
    url,
    stats: async () => ({ ...sender.stats(), errors: errors() }),
    closeSender: () => sender.close(),
    stop: async () => {
      await stop();
      await sender.close();
    },
  };
}

function options(config: AppConfig): { svc: SvcOptions; errors: () => number } {
  const { onError, errors } = countingOnError(config.onError ?? "count");
  return { svc: { ...config.svc, onError }, errors };
}

function site(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? "/").split("?")[0];
  if (path === "/blog") res.writeHead(200, { "content-type": "text/plain" }).end("blog");
  else if (path === "/boom") res.writeHead(500, { "content-type": "text/plain" }).end("internal error");
  else res.writeHead(404, { "content-type": "text/plain" }).end("not found");
}

/** Reads a node:http request into a web Request, as Next's server and a worker runtime do before calling user code. */
function webRequest(req: IncomingMessage, base: string, extraHeaders: Record<string, string>): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  for (const [name, value] of Object.entries(extraHeaders)) headers.set(name, value);
  return new Request(new URL(req.url ?? "/", base), { method: req.method ?? "GET", headers });
}

async function writeWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers).end(Buffer.from(await response.arrayBuffer()));
}

const nodeHttp: Harness = {
  name: "node:http",
  async start(config) {
    const { svc, errors } = options(config);
    const listener = withSvcNode(site, svc);
    const server = await listen(listener);
    return inProcess(listener.svc, errors, server.url, server.stop);
  },
};

const expressHarness: Harness = {
  name: "express",
  async start(config) {
    const { svc, errors } = options(config);
    const middleware = svcExpress(svc);
    const app = express();
    app.use(middleware);
    app.get("/blog", (_req, res) => {
      res.type("text/plain").send("blog");
    });
    app.get("/boom", () => {
      throw new Error("boom");
    });
    // Express's final handler answers the throw with a 500 (quietly: NODE_ENV is "test" under vitest).
    const server = await listen(app);
    return inProcess(middleware.svc, errors, server.url, server.stop);
  },
};

const honoHarness: Harness = {
  name: "hono on @hono/node-server",
  async start(config) {
    const { svc, errors } = options(config);
    const middleware = svcHono(svc);
    const app = new Hono();
    app.use(middleware);
    app.get("/blog", (c) => c.text("blog"));
    app.get("/boom", () => {
      throw new Error("boom");
    });
    app.onError((_error, c) => c.text("internal error", 500));
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
    });
    const { port } = server.address() as AddressInfo;
    const stop = (): Promise<void> =>
      new Promise((resolve) => {
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    return inProcess(middleware.svc, errors, `http://127.0.0.1:${port}`, stop);
  },
};

/** What NextRequest adds to Request that the adapter reads: the client address where the platform knows it. */
class NextLikeRequest extends Request {
  constructor(
    input: Request,
    readonly ip: string | undefined,
  ) {
    super(input);
  }
}

const nextHarness: Harness = {
  name: "next-style middleware (web Request)",
  async start(config) {
    const { svc, errors } = options(config);
    // The user's middleware: lets /blog through (NextResponse.next() is a 200 with x-middleware-next) and
    // answers everything else itself with a 404.
    const middleware = withSvcNext(async (request) => {
      const path = new URL(request.url).pathname;
      if (path === "/blog") return new Response(null, { headers: { "x-middleware-next": "1" } });
      if (path === "/boom") throw new Error("boom");
      return new Response("not found", { status: 404 });
    }, svc);
    const pending = new Set<Promise<unknown>>();
    const server = await listen(async (req, res) => {
      const request = new NextLikeRequest(webRequest(req, "http://127.0.0.1", {}), req.socket.remoteAddress);
      const event = {
        waitUntil(promise: Promise<unknown>) {
          pending.add(promise);
          void promise.finally(() => pending.delete(promise));
        },
      };
      let response: Response | null | undefined | void;
      try {
        response = await middleware(request, event);
      } catch {
        // Next renders its error page for a middleware that throws.
        response = new Response("internal error", { status: 500 });
      }
      if (response instanceof Response && response.headers.get("x-middleware-next") !== "1") await writeWebResponse(res, response);
      else site(req, res);
    });
    return inProcess(middleware.svc, errors, server.url, server.stop);
  },
};

const workerFetch = {
  async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === "/boom") throw new Error("boom");
    return path === "/blog" ? new Response("blog") : new Response("not found", { status: 404 });
  },
};

const workerOnNode: Harness = {
  name: "edge worker wrapper on Node",
  async start(config) {
    const { svc, errors } = options(config);
    const worker = withSvcWorker(workerFetch, svc);
    const pending = new Set<Promise<unknown>>();
    const ctx = {
      waitUntil(promise: Promise<unknown>) {
        pending.add(promise);
        void promise.finally(() => pending.delete(promise));
      },
    };
    const server = await listen(async (req, res) => {
      // Cloudflare's edge sets cf-connecting-ip to the client address; here the client is the socket peer.
      const request = webRequest(req, "http://127.0.0.1", { "cf-connecting-ip": req.socket.remoteAddress ?? "" });
      // The runtime answers a handler that throws with a 500, as workerd does.
      const response = await worker.fetch(request, {}, ctx).catch(() => new Response("internal error", { status: 500 }));
      await writeWebResponse(res, response);
    });
    return inProcess(worker.svc()!, errors, server.url, server.stop);
  },
};

let workerBundle: Promise<string> | undefined;

function bundleWorker(): Promise<string> {
  workerBundle ??= build({
    entryPoints: [fileURLToPath(new URL("./fixtures/worker-app.ts", import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    write: false,
  }).then((result) => result.outputFiles[0]!.text);
  return workerBundle;
}

const workerOnWorkerd: Harness = {
  name: "edge worker wrapper in workerd (miniflare)",
  async start(config) {
    const mf = new Miniflare({
      modules: true,
      script: await bundleWorker(),
      compatibilityDate: "2025-07-01",
      bindings: { SVC_OPTIONS: JSON.stringify(config.svc), ON_ERROR: config.onError ?? "count" },
    });
    const url = (await mf.ready).toString().replace(/\/$/, "");
    const call = async (path: string): Promise<SenderStats & { errors: number }> => {
      const response = await fetch(url + path);
      const text = await response.text();
      if (response.status !== 200) throw new Error(`workerd answered ${response.status} to ${path}: ${text.slice(0, 500)}`);
      return JSON.parse(text) as SenderStats & { errors: number };
    };
    return {
      url,
      stats: () => call("/__svc/stats"),
      closeSender: async () => {
        await call("/__svc/close");
      },
      stop: () => mf.dispose(),
    };
  },
};

export const harnesses: readonly Harness[] = [nodeHttp, expressHarness, honoHarness, nextHarness, workerOnNode, workerOnWorkerd];
