// npm run bench:query [-- --rows 10000000 --days 30 --requests 20 --keep | --reuse URL]
// POST /api/v2/query latency over a busy site: loads `--rows` raw rows over `--days` days (site-load.ts, the
// loader of bench:read; --reuse takes a `bench:read --keep` or `bench:query --keep` database), starts the gateway
// as its own process with a fresh SVC_DATA_DIR, waits for the background job to write every settled day's
// Parquet file, then times a fixed list of queries (sequential, after 2 warm-ups each) and samples the gateway's
// RSS every 50 ms while they run. The last stdout line is one JSON object with the figures.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { launchGateway } from "../../gateway/src/launch.ts";
import { freshBenchDatabase } from "./bench-database.ts";
import { READ_BENCH_DOMAIN, adminToken, benchSite, benchSize, percentile, reusedDatabase, round2, settledDays, waitForDayFiles } from "./site-load.ts";

const { values: args } = parseArgs({
  options: {
    rows: { type: "string", default: "10000000" },
    days: { type: "string", default: "30" },
    requests: { type: "string", default: "20" },
    keep: { type: "boolean", default: false },
    reuse: { type: "string" },
    // A data directory a previous run with the same database left (its Parquet day files are reused).
    "data-dir": { type: "string" },
  },
});
const { rows: ROWS, days: DAYS, requests: REQUESTS } = benchSize(args, { days: 2, requests: 5 });
const DOMAIN = READ_BENCH_DOMAIN;
const log = (line: string) => console.log(`[bench:query] ${line}`);

/** The fixed list: what the rollups answer (target p95 ≤ 50 ms), then what DuckDB does (≤ 1 s). */
const QUERIES: ReadonlyArray<{ name: string; rollups: boolean; body: Record<string, unknown> }> = [
  { name: "stats", rollups: true, body: { metrics: ["visitors", "pageviews", "events", "hits"] } },
  { name: "series_day", rollups: true, body: { metrics: ["visitors", "pageviews"], dimensions: ["time:day"] } },
  { name: "breakdown_page", rollups: true, body: { metrics: ["visitors", "pageviews"], dimensions: ["event:page"], pagination: { limit: 10 } } },
  { name: "breakdown_source", rollups: true, body: { metrics: ["visitors", "pageviews"], dimensions: ["visit:source"], pagination: { limit: 10 } } },
  { name: "filter1_breakdown", rollups: false, body: { metrics: ["visitors", "pageviews"], dimensions: ["event:page"], filters: [["is", "visit:country", ["US"]]], pagination: { limit: 10 } } },
  {
    name: "filter2_breakdown", rollups: false,
    body: { metrics: ["visitors", "pageviews"], dimensions: ["visit:source"], filters: [["is", "visit:country", ["US", "GB"]], ["is", "visit:device", ["mobile"]]], pagination: { limit: 10 } },
  },
  {
    name: "filter3_breakdown", rollups: false,
    body: { metrics: ["visitors", "pageviews"], dimensions: ["visit:browser"], filters: [["is", "visit:country", ["US"]], ["is_not", "visit:source", ["Direct / None"]], ["contains", "event:page", ["/p/1"]]], pagination: { limit: 10 } },
  },
  { name: "visit_metrics_by_entry_page", rollups: false, body: { metrics: ["visits", "bounce_rate", "visit_duration", "views_per_visit"], dimensions: ["visit:entry_page"], pagination: { limit: 10 } } },
  { name: "goal_conversion_by_source", rollups: false, body: { metrics: ["visitors", "conversion_rate", "group_conversion_rate"], dimensions: ["visit:source"], filters: [["is", "event:goal", ["Signup"]]], pagination: { limit: 10 } } },
  { name: "year_over_year", rollups: false, body: { metrics: ["visitors", "pageviews", "bounce_rate"], include: { comparisons: { mode: "year_over_year" } } } },
];

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : 0;
}

async function main(): Promise<void> {
  const db = args.reuse ? await reusedDatabase(args.reuse) : await freshBenchDatabase("bench_query", { keep: args.keep, log });
  const dataDir = args["data-dir"] ?? mkdtempSync(path.join(os.tmpdir(), "svc-bench-query-"));
  log(`data directory ${dataDir}`);
  let gateway: Awaited<ReturnType<typeof launchGateway>> | null = null;
  try {
    const { siteId, loaded } = await benchSite(db, { reused: args.reuse !== undefined, rows: ROWS, days: DAYS, log });
    await db.pool.query("insert into goals (site_id, name) values ($1, 'Signup') on conflict do nothing", [siteId]);
    const settled = await settledDays(db.pool, siteId);

    gateway = await launchGateway({ DATABASE_URL: db.url, SVC_DATA_DIR: dataDir });
    const pid = gateway.child.pid!;
    const base = `http://127.0.0.1:${gateway.port}`;
    const token = await adminToken(base);
    const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };

    const writeS = await waitForDayFiles(dataDir, siteId, settled, log);
    const idleRss = rssMb(pid);

    // The loaded days, as dates (UTC site): the last DAYS days including today.
    const today = new Date().toISOString().slice(0, 10);
    const dateRange = [new Date(Date.parse(today) - (DAYS - 1) * 86_400_000).toISOString().slice(0, 10), today];
    let peakRss = idleRss;
    const sampler = setInterval(() => { peakRss = Math.max(peakRss, rssMb(pid)); }, 50);
    const results: Record<string, { rollups: boolean; p50: number; p95: number; max: number; rows: number }> = {};
    try {
      for (const q of QUERIES) {
        const body = JSON.stringify({ site_id: DOMAIN, date_range: dateRange, ...q.body });
        let rows = 0;
        const once = async () => {
          const t = performance.now();
          const res = await fetch(`${base}/api/v2/query`, { method: "POST", headers: auth, body });
          const text = await res.text();
          if (res.status !== 200) throw new Error(`${q.name} answered ${res.status}: ${text}`);
          rows = (JSON.parse(text) as { results: unknown[] }).results.length;
          return performance.now() - t;
        };
        await once();
        await once();
        const times: number[] = [];
        for (let i = 0; i < REQUESTS; i++) times.push(await once());
        times.sort((a, b) => a - b);
        results[q.name] = { rollups: q.rollups, p50: round2(percentile(times, 50)), p95: round2(percentile(times, 95)), max: round2(times.at(-1)!), rows };
        log(`${q.name} (${q.rollups ? "rollups" : "duckdb"}): p50 ${results[q.name]!.p50} ms, p95 ${results[q.name]!.p95} ms, ${rows} rows`);
      }
    } finally {
      clearInterval(sampler);
    }
    const load = os.loadavg().map((x) => x.toFixed(1)).join(" ");
    log(`gateway RSS idle ${idleRss.toFixed(0)} MB, peak while querying ${peakRss.toFixed(0)} MB (+${(peakRss - idleRss).toFixed(0)} MB); load average ${load}`);
    const within = Object.values(results).every((r) => r.p95 <= (r.rollups ? 50 : 1000)) && peakRss - idleRss <= 300;
    console.log(JSON.stringify({
      bench: "query", rows: loaded.rows, days: DAYS, requests_per_query: REQUESTS, day_files_s: round2(writeS),
      latency_ms: results, rss_mb: { idle: round2(idleRss), peak: round2(peakRss), added: round2(peakRss - idleRss) },
      load_average: load, targets: { rollups_p95_ms: 50, duckdb_p95_ms: 1000, rss_added_mb: 300 }, within_targets: within,
    }));
  } finally {
    if (gateway) {
      gateway.child.kill("SIGTERM");
      await gateway.exited();
    }
    await db.dispose();
    if (!args.keep && args["data-dir"] === undefined) rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
