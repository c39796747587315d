// npm run bench:live [-- --subscribers 1000 --duration 20 --connections 64]
// Ingest throughput with and without live subscribers, and how late deltas reach them. Starts a
// gateway process on a fresh database, drives the ingest scenario once with no subscriber, then
// again with `--subscribers` SSE streams open (authenticated with an API key), measuring for every
// delta received the time since its first batch committed (`committed_at`, same machine clock).
// The last stdout line is one JSON object with the figures.
import http from "node:http";
import { parseArgs } from "node:util";
import { PLACEHOLDER_ADMIN_PASSWORD } from "../../gateway/src/auth/auth-config.ts";
import { launchGateway } from "../../gateway/src/launch.ts";
import { sseBlockSplitter } from "../../gateway/src/live/sse-blocks.ts";
import { addSite } from "../../gateway/src/storage/sites.ts";
import { freshBenchDatabase } from "./bench-database.ts";
import { driveScenario } from "./load.ts";
import { BENCH_DOMAIN, buildScenario } from "./scenario.ts";

const { values: args } = parseArgs({
  options: {
    subscribers: { type: "string", default: "1000" },
    duration: { type: "string", default: "20" },
    connections: { type: "string", default: "64" },
  },
});
const SUBSCRIBERS = Number(args.subscribers);
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);

async function json(port: number, method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

interface Subscribers {
  readonly latenciesMs: number[];
  snapshots: number;
  resyncs: number;
  close(): void;
}

function subscribe(port: number, key: string, count: number): Subscribers {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const requests: http.ClientRequest[] = [];
  const state: Subscribers = {
    latenciesMs: [],
    snapshots: 0,
    resyncs: 0,
    close: () => {
      for (const r of requests) r.destroy();
      agent.destroy();
    },
  };
  for (let i = 0; i < count; i++) {
    const req = http.get({ host: "127.0.0.1", port, path: `/api/sites/${BENCH_DOMAIN}/live`, agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
      const split = sseBlockSplitter();
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        for (const block of split(chunk)) {
          if (block.startsWith("event: delta")) {
            // Only the commit time is read: parsing every message whole would load the load generator.
            const committedAt = /"committed_at":"([^"]+)"/.exec(block)?.[1];
            if (committedAt) state.latenciesMs.push(Date.now() - Date.parse(committedAt));
          } else if (block.includes("event: snapshot")) state.snapshots++;
          else if (block.startsWith("event: resync")) state.resyncs++;
        }
      });
    });
    req.on("error", () => undefined);
    requests.push(req);
  }
  return state;
}

const percentile = (sorted: readonly number[], p: number) => (sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);

async function main(): Promise<void> {
  const db = await freshBenchDatabase("bench_live");
  await addSite(db.pool, { domain: BENCH_DOMAIN });
  // The scenario's clients and its one site go beyond the ingest rate limits by design (see bench/src/ingest.ts).
  const gw = await launchGateway({ DATABASE_URL: db.url, SVC_TRUST_PROXY: "1", SVC_EVENT_RATE_PER_CLIENT: "1000000", SVC_HIT_RATE_PER_SITE: "10000000" });
  const scenario = buildScenario();
  try {
    const { token } = await json(gw.port, "POST", "/api/auth/login", { email: "admin@localhost", password: PLACEHOLDER_ADMIN_PASSWORD });
    const { key } = await json(gw.port, "POST", "/api/keys", { name: "bench:live" }, { authorization: `Bearer ${token}` });

    console.log(`live bench: ${DURATION}s of ingest at ${CONNECTIONS} connections, without and with ${SUBSCRIBERS} subscribers`);
    const without = await driveScenario(gw.port, scenario, DURATION, CONNECTIONS);
    const subs = subscribe(gw.port, key, SUBSCRIBERS);
    const deadline = Date.now() + 60_000;
    while (subs.snapshots < SUBSCRIBERS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const withSubs = await driveScenario(gw.port, scenario, DURATION, CONNECTIONS);
    await new Promise((r) => setTimeout(r, 500));
    subs.close();

    const sorted = [...subs.latenciesMs].sort((a, b) => a - b);
    const perS = (n: number) => Math.round(n / DURATION);
    console.log(
      JSON.stringify({
        subscribers: SUBSCRIBERS,
        subscribers_connected: subs.snapshots,
        events_per_s_without: perS(without.accepted),
        events_per_s_with: perS(withSubs.accepted),
        throughput_drop_pct: Math.round((1 - withSubs.accepted / without.accepted) * 1000) / 10,
        ingest_p99_ms_without: without.p99Ms,
        ingest_p99_ms_with: withSubs.p99Ms,
        deltas_received: sorted.length,
        delta_latency_p50_ms: percentile(sorted, 50),
        delta_latency_p95_ms: percentile(sorted, 95),
        delta_latency_max_ms: sorted.at(-1) ?? null,
        resyncs: subs.resyncs,
        errors: without.errors + withSubs.errors,
      }),
    );
  } finally {
    gw.child.kill("SIGTERM");
    await gw.exited();
    await db.dispose();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
