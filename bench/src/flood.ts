// npm run bench:flood [-- --duration 60 --hits 3000000 --budget 50000 --connections 16]
// A random-IP flood of /api/hit against one site, on loopback only: every hit has a new client IP (a new
// visitor) and a new path (a new page value). The gateway runs from the bundle with SVC_VISITOR_BUDGET =
// --budget (values per dimension at its default) and no hit rate limit, so nothing but the memory budget
// stands between the flood and the visitor state. Its RSS (/proc/<pid>/status) is sampled every second and
// printed as the run goes; the flood stops after --duration seconds or --hits hits, whichever comes first.
// The last stdout line is one JSON object: RSS over time and the growth over the second half of the run,
// which stays near zero once the site sits at its budget (compare --budget 100000000: the RSS climbs).
import fs from "node:fs";
import http from "node:http";
import { parseArgs } from "node:util";
import { bundleGateway } from "../../gateway/scripts/bundle.ts";
import { type GatewayProcess, launchGateway } from "../../gateway/src/launch.ts";
import { addSite } from "../../gateway/src/storage/sites.ts";
import { freshBenchDatabase } from "./bench-database.ts";

const { values: args } = parseArgs({
  options: {
    duration: { type: "string", default: "60" },
    hits: { type: "string", default: "3000000" },
    budget: { type: "string", default: "50000" },
    connections: { type: "string", default: "16" },
  },
});
const DURATION_S = Number(args.duration);
const MAX_HITS = Number(args.hits);
const BUDGET = Number(args.budget);
const CONNECTIONS = Number(args.connections);
if (![DURATION_S, MAX_HITS, BUDGET, CONNECTIONS].every((n) => Number.isInteger(n) && n > 0) || DURATION_S > 3600) {
  console.error("usage: --duration S (1..3600) --hits N --budget VISITORS --connections C (positive integers)");
  process.exit(2);
}
const DOMAIN = "flood-bench.example";
// 100 hits a request: what the middleware batches (adapters/ send up to 100 a flush).
const HITS_PER_REQUEST = 100;
const GPTBOT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";
const log = (line: string) => console.log(`[bench:flood] ${line}`);

/** Resident set size of a process in MB, from /proc (Linux). */
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Math.round(Number(m[1]) / 102.4) / 10 : Number.NaN;
}

/** A random IPv4 address outside the private and loopback ranges, so each is a distinct visitor. */
const randomIp = (): string => `${1 + Math.floor(Math.random() * 126)}.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;

function floodBody(): string {
  return JSON.stringify(
    Array.from({ length: HITS_PER_REQUEST }, () => ({
      domain: DOMAIN, method: "GET", path: `/r/${Math.random().toString(36).slice(2)}`, status: 200, user_agent: GPTBOT, referrer: null, ip: randomIp(),
    })),
  );
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });

function post(port: number, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: "/api/hit", method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function main(): Promise<void> {
  await bundleGateway();
  const db = await freshBenchDatabase("bench_flood", { log });
  let gw: GatewayProcess | null = null;
  try {
    await addSite(db.pool, { domain: DOMAIN });
    gw = await launchGateway({ DATABASE_URL: db.url, SVC_VISITOR_BUDGET: String(BUDGET), SVC_HIT_RATE_PER_SITE: "0" }, { rebuild: false });
    const pid = gw.child.pid!;
    const port = gw.port;
    const samples: Array<{ s: number; rss_mb: number; hits: number }> = [{ s: 0, rss_mb: rssMb(pid), hits: 0 }];
    log(`gateway pid ${pid} on 127.0.0.1:${port}, visitor budget ${BUDGET.toLocaleString("en")}, idle RSS ${samples[0]!.rss_mb} MB`);
    const started = performance.now();
    const deadline = started + DURATION_S * 1000;
    let sent = 0;
    let accepted = 0;
    const statuses = new Map<number, number>();
    const sampler = setInterval(() => {
      const s = Math.round((performance.now() - started) / 1000);
      samples.push({ s, rss_mb: rssMb(pid), hits: accepted });
      log(`${String(s).padStart(4)} s  RSS ${samples.at(-1)!.rss_mb.toFixed(1).padStart(7)} MB  ${accepted.toLocaleString("en")} hits accepted`);
    }, 1000);
    const worker = async () => {
      while (performance.now() < deadline && sent < MAX_HITS) {
        sent += HITS_PER_REQUEST;
        const status = await post(port, floodBody());
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status === 202) accepted += HITS_PER_REQUEST;
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, worker));
    clearInterval(sampler);
    const elapsed = (performance.now() - started) / 1000;
    samples.push({ s: Math.round(elapsed), rss_mb: rssMb(pid), hits: accepted });
    const health = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.json() as Promise<{ status: string }>);
    const budgetLine = gw.output.find((l) => l.includes("past its memory budget"));
    const half = samples.filter((x) => x.s >= elapsed / 2);
    const peak = Math.max(...samples.map((x) => x.rss_mb));
    const figures = {
      bench: "flood",
      visitor_budget: BUDGET,
      duration_s: Math.round(elapsed * 10) / 10,
      hits_accepted: accepted,
      hits_per_s: Math.round(accepted / elapsed),
      statuses: Object.fromEntries(statuses),
      rss_idle_mb: samples[0]!.rss_mb,
      rss_peak_mb: peak,
      rss_end_mb: samples.at(-1)!.rss_mb,
      // Growth over the second half of the run: ~0 when the memory is bounded.
      rss_second_half_growth_mb: Math.round((half.at(-1)!.rss_mb - half[0]!.rss_mb) * 10) / 10,
      healthz: health.status,
      budget_logged: budgetLine !== undefined,
      rss_mb_over_time: samples.map((x) => [x.s, x.rss_mb]),
    };
    gw.child.kill("SIGTERM");
    await gw.exited();
    console.log(JSON.stringify(figures));
  } finally {
    agent.destroy();
    if (gw !== null && gw.child.exitCode === null && gw.child.signalCode === null) gw.child.kill("SIGKILL");
    await db.dispose();
  }
}

await main();
