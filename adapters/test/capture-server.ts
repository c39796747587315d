// A real node:http server on 127.0.0.1 standing in for the collector's POST /api/hit. It decodes every body
// with the gateway's own schema (@svc/core, a dev dependency only) and answers 400 as the gateway would, so a
// hit the real collector would refuse fails the test.
import { decodeServerHits } from "@svc/core";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { Socket } from "node:net";
import type { AddressInfo } from "node:net";
import type { Hit } from "../src/index.ts";

export type CollectorMode =
  /** Answers 202 with an empty body, as the gateway does. */
  | "accept"
  /** Accepts the connection, reads nothing back, never answers. */
  | "hang"
  /** Answers 503 with `Retry-After: 0` (a site moving between gateways) to the first `unavailable` POSTs, then accepts. */
  | { readonly unavailable: number };

export interface Collector {
  readonly endpoint: string;
  /** Every POST body received, parsed, in arrival order. */
  readonly batches: Hit[][];
  /** The Authorization header of each batch (undefined when none was sent), in the same order. */
  readonly authorizations: (string | undefined)[];
  /** POSTs answered 503 (mode `unavailable`). */
  readonly refused: () => number;
  readonly hits: () => Hit[];
  /** Resolves once at least `count` hits arrived; rejects after `timeoutMs`. */
  waitForHits(count: number, timeoutMs?: number): Promise<Hit[]>;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

export async function startCollector(mode: CollectorMode = "accept"): Promise<Collector> {
  const batches: Hit[][] = [];
  const authorizations: (string | undefined)[] = [];
  const sockets = new Set<Socket>();
  let notify = (): void => undefined;
  let refused = 0;
  const server = createServer(async (req, res) => {
    if (mode === "hang") return;
    const body = await readBody(req);
    const url = new URL(req.url ?? "/", "http://collector");
    if (req.method !== "POST" || url.pathname !== "/api/hit") {
      res.writeHead(404).end();
      return;
    }
    if (typeof mode === "object" && refused < mode.unavailable) {
      refused++;
      res.writeHead(503, { "content-type": "application/json", "retry-after": "0" }).end('{"error":"this site is moving between gateways; retry"}');
      return;
    }
    if (Buffer.byteLength(body) > 64 * 1024) {
      res.writeHead(413, { "content-type": "application/json" }).end('{"error":"request too large"}');
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      res.writeHead(400, { "content-type": "application/json" }).end('{"error":"invalid JSON"}');
      return;
    }
    const decoded = decodeServerHits(parsed);
    if (!Array.isArray(parsed) || !decoded.ok) {
      const details = decoded.ok ? [{ path: "", message: "the middleware always sends an array" }] : decoded.errors;
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "invalid body", details }));
      return;
    }
    // The gateway's rule: `?d=` (what HAProxy routes by) names every hit's site.
    const d = url.searchParams.get("d");
    if (d !== null && (parsed as Hit[]).some((h) => h.domain !== d)) {
      res.writeHead(400, { "content-type": "application/json" }).end('{"error":"the body\'s domain differs from the d query parameter"}');
      return;
    }
    batches.push(parsed as Hit[]);
    authorizations.push(req.headers.authorization);
    res.writeHead(202).end();
    notify();
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  const port = await listen(server);
  const hits = (): Hit[] => batches.flat();
  return {
    endpoint: `http://127.0.0.1:${port}/api/hit`,
    batches,
    authorizations,
    refused: () => refused,
    hits,
    waitForHits(count, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`collector got ${hits().length} hits, expected ${count}`)), timeoutMs);
        const check = (): void => {
          if (hits().length >= count) {
            clearTimeout(timer);
            notify = () => undefined;
            resolve(hits());
          }
        };
        notify = check;
        check();
      });
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** An endpoint on a port nothing listens on: connections are refused at once. */
export async function refusedEndpoint(): Promise<string> {
  const server = createServer();
  const port = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/api/hit`;
}
