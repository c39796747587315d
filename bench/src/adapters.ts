// npm run bench:adapters [-- --requests 10000 | --duration 5] [--connections 10]
// What the adapters' middleware adds to a host request, with the collector up, down (connection refused) and hung
// (accepts, never answers). A real node:http server and a real Express app serve GET /blog to autocannon (a child
// process, so the load generator does not share the host's event loop), with every request from GPTBot — the worst
// case, every request is reported. Per request the host measures, with process.hrtime.bigint():
//   pre  — the middleware's synchronous work before the host's handler runs (UA check, one 'finish' listener);
//   post — its 'finish' listener (build the hit, enqueue), which runs on the host's event loop after the response.
// The same instrumentation around a pass-through middleware is the baseline; "added" is svc minus baseline, per
// percentile, of pre + post. Batch encoding and the POST run in timers, off any one request; their cost shows in
// the req/s column. The last stdout line is one JSON object with the figures.
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { spawn } from "node:child_process";
import { parseArgs } from "node:util";
import express from "express";
import { withSvc } from "@svc/adapters/node";
import { svc as svcExpress } from "@svc/adapters/express";
import type { HitSender, SenderStats } from "@svc/adapters";

const { values: args } = parseArgs({
  options: {
    requests: { type: "string", default: "10000" },
    duration: { type: "string" },
    connections: { type: "string", default: "10" },
  },
});
const requests = Number(args.requests);
const duration = args.duration === undefined ? undefined : Number(args.duration);
const connections = Number(args.connections);
if (!Number.isInteger(requests) || requests < 100) throw new Error(`--requests must be an integer >= 100, got ${args.requests}`);
if (duration !== undefined && !(duration > 0)) throw new Error(`--duration must be a number of seconds > 0, got ${args.duration}`);
if (!Number.isInteger(connections) || connections < 1) throw new Error(`--connections must be an integer >= 1, got ${args.connections}`);

const GPTBOT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";
const require = createRequire(import.meta.url);
const AUTOCANNON = require.resolve("autocannon/autocannon.js");

type Collector = "up" | "down" | "hang";

/** Per-request samples in ns; index = request number in arrival order. */
class Samples {
  readonly pre: number[] = [];
  readonly post: number[] = [];
}

function listen(listener: RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(listener);
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      }),
    ),
  );
}

async function startCollector(mode: Collector): Promise<{ endpoint: string; close: () => Promise<void> }> {
  const server = await listen((req, res) => {
    if (mode === "hang") return;
    req.resume();
    req.on("end", () => res.writeHead(202).end());
  });
  if (mode === "down") {
    // A port that was just free and is closed again: every POST is refused at once.
    await server.close();
  }
  return { endpoint: `${server.url}/api/hit`, close: mode === "down" ? async () => undefined : server.close };
}

function page(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/plain" }).end("blog");
}

/** node:http: listener → [svc wrapper | pass-through] → page. */
function nodeHost(samples: Samples, sender: HitSender | undefined): RequestListener {
  let t0 = 0n;
  const inner = (req: IncomingMessage, res: ServerResponse): void => {
    samples.pre.push(Number(process.hrtime.bigint() - t0));
    page(req, res);
  };
  const wrapped = sender === undefined ? (req: IncomingMessage, res: ServerResponse) => inner(req, res) : withSvc(inner, sender);
  return (req, res) => {
    let tFinish = 0n;
    res.once("finish", () => {
      tFinish = process.hrtime.bigint();
    });
    t0 = process.hrtime.bigint();
    wrapped(req, res);
    res.once("finish", () => {
      samples.post.push(Number(process.hrtime.bigint() - tFinish));
    });
  };
}

/** Express: [start] → [svc | pass-through] → [stop] → route. */
function expressHost(samples: Samples, sender: HitSender | undefined): RequestListener {
  const app = express();
  let t0 = 0n;
  let tFinish = 0n;
  app.use((_req, res, next) => {
    res.once("finish", () => {
      tFinish = process.hrtime.bigint();
    });
    t0 = process.hrtime.bigint();
    next();
  });
  app.use(sender === undefined ? (_req: IncomingMessage, _res: ServerResponse, next: () => void) => next() : svcExpress(sender));
  app.use((_req, res, next) => {
    samples.pre.push(Number(process.hrtime.bigint() - t0));
    res.once("finish", () => {
      samples.post.push(Number(process.hrtime.bigint() - tFinish));
    });
    next();
  });
  app.get("/blog", (_req, res) => {
    res.type("text/plain").send("blog");
  });
  return app;
}

interface Load {
  readonly rps: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
  readonly total: number;
}

function drive(url: string): Promise<Load> {
  const amount = duration === undefined ? ["-a", String(requests)] : ["-d", String(duration)];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [AUTOCANNON, "--json", "-c", String(connections), ...amount, "-H", `user-agent=${GPTBOT}`, `${url}/blog`], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited ${code}: ${err.slice(-500)}`));
      const r = JSON.parse(out) as { requests: { total: number }; duration: number; latency: { p50: number; p99: number }; non2xx: number; errors: number };
      if (r.non2xx > 0 || r.errors > 0) return reject(new Error(`the host failed requests: ${r.non2xx} non-2xx, ${r.errors} errors`));
      resolve({ rps: r.requests.total / r.duration, p50_ms: r.latency.p50, p99_ms: r.latency.p99, total: r.requests.total });
    });
  });
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Figures {
  readonly samples: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
}

function figures(samples: Samples): Figures {
  // The first 10% are JIT warm-up.
  const n = Math.min(samples.pre.length, samples.post.length);
  const skip = Math.floor(n / 10);
  const total = new Float64Array(n - skip);
  for (let i = skip; i < n; i++) total[i - skip] = samples.pre[i]! + samples.post[i]!;
  total.sort();
  return { samples: total.length, p50_ms: percentile(total, 50) / 1e6, p99_ms: percentile(total, 99) / 1e6 };
}

interface Run {
  readonly host: Figures;
  readonly load: Load;
  readonly stats?: SenderStats;
}

async function run(host: "node" | "express", collector: Collector | "baseline"): Promise<Run> {
  const samples = new Samples();
  const sink = collector === "baseline" ? undefined : await startCollector(collector);
  const { HitSender } = await import("@svc/adapters");
  const sender = sink === undefined ? undefined : new HitSender({ endpoint: sink.endpoint, domain: "example.com", timeoutMs: 2000, flushOnExit: false });
  const server = await listen(host === "node" ? nodeHost(samples, sender) : expressHost(samples, sender));
  const load = await drive(server.url);
  await server.close();
  const stats = sender?.stats();
  await sink?.close();
  await sender?.close();
  return { host: figures(samples), load, ...(stats === undefined ? {} : { stats }) };
}

const round = (ms: number): number => Math.round(ms * 10_000) / 10_000;
const result: Record<string, Record<string, { added_p50_ms: number; added_p99_ms: number; rps: number; baseline_rps: number; stats: SenderStats }>> = {};

for (const host of ["node", "express"] as const) {
  const baseline = await run(host, "baseline");
  console.log(
    `${host.padEnd(8)} baseline  instrumentation p50 ${baseline.host.p50_ms.toFixed(4)} ms  p99 ${baseline.host.p99_ms.toFixed(4)} ms  ${Math.round(baseline.load.rps)} req/s  (client p50 ${baseline.load.p50_ms} ms, p99 ${baseline.load.p99_ms} ms)`,
  );
  result[host] = {};
  for (const collector of ["up", "down", "hang"] as const) {
    const r = await run(host, collector);
    const added = { p50: Math.max(0, r.host.p50_ms - baseline.host.p50_ms), p99: Math.max(0, r.host.p99_ms - baseline.host.p99_ms) };
    result[host][collector] = { added_p50_ms: round(added.p50), added_p99_ms: round(added.p99), rps: Math.round(r.load.rps), baseline_rps: Math.round(baseline.load.rps), stats: r.stats! };
    console.log(
      `${host.padEnd(8)} ${collector.padEnd(9)} added p50 ${added.p50.toFixed(4)} ms  p99 ${added.p99.toFixed(4)} ms  ${Math.round(r.load.rps)} req/s  (client p50 ${r.load.p50_ms} ms, p99 ${r.load.p99_ms} ms)  sent ${r.stats!.sent} failed ${r.stats!.failed} dropped ${r.stats!.dropped}`,
    );
  }
}

const worst = (collector: Collector, key: "added_p50_ms" | "added_p99_ms"): number => Math.max(...Object.values(result).map((h) => h[collector]![key]));
const summary = {
  bench: "adapters",
  requests: duration === undefined ? requests : null,
  duration_s: duration ?? null,
  connections,
  up: { added_p50_ms: worst("up", "added_p50_ms"), added_p99_ms: worst("up", "added_p99_ms") },
  down: { added_p50_ms: worst("down", "added_p50_ms"), added_p99_ms: worst("down", "added_p99_ms") },
  hang: { added_p50_ms: worst("hang", "added_p50_ms"), added_p99_ms: worst("hang", "added_p99_ms") },
  target: { added_p50_ms: 0.05, added_p99_ms: 0.5 },
  by_host: result,
};
const pass = (["up", "down", "hang"] as const).every((c) => summary[c].added_p50_ms <= 0.05 && summary[c].added_p99_ms <= 0.5);
console.log(JSON.stringify({ ...summary, within_target: pass }));
