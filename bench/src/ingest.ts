// npm run bench [-- --duration 60 --connections 64 --http uws|node]
// Starts a gateway process on a fresh database, creates a site, drives the shared scenario at a fixed
// concurrency for a fixed time, stops the gateway gracefully and counts the stored rows. The last
// stdout line is one JSON object with the figures. `--k6-scenario FILE` writes the scenario for k6.
import fs from "node:fs";
import { parseArgs } from "node:util";
import { PLACEHOLDER_ADMIN_PASSWORD } from "../../gateway/src/auth/auth-config.ts";
import { launchGateway } from "../../gateway/src/launch.ts";
import { freshBenchDatabase } from "./bench-database.ts";
import { addSite } from "../../gateway/src/storage/sites.ts";
import { driveScenario } from "./load.ts";
import { BENCH_DOMAIN, buildScenario } from "./scenario.ts";

const { values: args } = parseArgs({
  options: {
    duration: { type: "string", default: "60" },
    connections: { type: "string", default: "64" },
    http: { type: "string", default: "uws" },
    "k6-scenario": { type: "string" },
  },
});

const scenario = buildScenario();
if (args["k6-scenario"]) {
  fs.writeFileSync(args["k6-scenario"], JSON.stringify({ domain: BENCH_DOMAIN, requests: scenario }));
  console.log(`wrote ${scenario.length} requests to ${args["k6-scenario"]}`);
  process.exit(0);
}
const duration = Number(args.duration);
const connections = Number(args.connections);


function procStats(pid: number): { rssMb: number; cpuS: number } | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    const ticks = Number(stat[11]) + Number(stat[12]);
    return { rssMb: rss, cpuS: ticks / 100 };
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const db = await freshBenchDatabase("bench");
  await addSite(db.pool, { domain: BENCH_DOMAIN });
  // The scenario replays 4,000 requests: at full load each of its ~2,000 client addresses sends ~8 events/s
  // (some several times that), and its one site gets ~15,000 hits/s — a load test, not a site. The limiters
  // still run, at their maximum rates, so their cost stays in the figures.
  const gw = await launchGateway({
    DATABASE_URL: db.url, SVC_HTTP: args.http!, SVC_TRUST_PROXY: "1", SVC_EVENT_RATE_PER_CLIENT: "1000000", SVC_HIT_RATE_PER_SITE: "10000000",
  });
  const pid = gw.child.pid!;
  let rssPeak = 0;
  let cpu = 0;
  const sampler = setInterval(() => {
    const s = procStats(pid);
    if (s) {
      rssPeak = Math.max(rssPeak, s.rssMb);
      cpu = s.cpuS;
    }
  }, 250);

  console.log(`ingest bench: ${duration}s, ${connections} connections, ${args.http} transport, ${scenario.length} distinct requests`);
  const load = await driveScenario(gw.port, scenario, duration, connections);
  const cpuBefore = procStats(pid)?.cpuS ?? cpu;
  // /healthz shows its counters only to a credential.
  const login = await fetch(`http://127.0.0.1:${gw.port}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "admin@localhost", password: process.env.SVC_ADMIN_PASSWORD ?? PLACEHOLDER_ADMIN_PASSWORD }),
  });
  const { token } = (await login.json()) as { token: string };
  const health = (await (await fetch(`http://127.0.0.1:${gw.port}/healthz`, { headers: { authorization: `Bearer ${token}` } })).json()) as { writer: { batches: number; submissions: number; rows: number; lastCommitMs: number }; rollups: { flushes: number; keys: number }; memory_mb: Record<string, number> };
  gw.child.kill("SIGTERM");
  const exit = await gw.exited();
  clearInterval(sampler);

  const { rows } = await db.pool.query("select (select count(*) from events)::int + (select count(*) from hits)::int as n");
  const stored = rows[0].n as number;
  await db.dispose();

  const figures = {
    duration_s: duration,
    connections,
    transport: args.http,
    events_per_s: Math.round(load.accepted / duration),
    requests_per_s: load.requestsPerS,
    p50_ms: load.p50Ms,
    p99_ms: load.p99Ms,
    accepted: load.accepted,
    stored,
    lost: Math.max(0, load.accepted - stored),
    errors: load.errors,
    gateway_rss_mb_peak: Math.round(rssPeak),
    gateway_cpu_s: Math.round(cpuBefore * 10) / 10,
    gateway_exit_code: exit.code,
    writer_batches: health.writer.batches,
    writer_rows_per_batch: Math.round(health.writer.rows / Math.max(1, health.writer.batches)),
    writer_rows_per_submission: Math.round((10 * health.writer.rows) / Math.max(1, health.writer.submissions)) / 10,
    gateway_memory_mb_at_end: health.memory_mb,
    rollup_keys_per_flush: Math.round(health.rollups.keys / Math.max(1, health.rollups.flushes)),
  };
  console.log(JSON.stringify(figures));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
