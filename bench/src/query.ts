// npm run bench:query [-- --rows 10000000 --days 30 --requests 20 --keep | --reuse URL]
// POST /api/v2/query latency over a busy site: loads `--rows` raw rows over `--days` days (site-load.ts, the
// loader of bench:read; --reuse takes a `bench:read --keep` or `bench:query --keep` database), starts the gateway
// as its own process with a fresh SVC_DATA_DIR, waits for the background job to write every settled day's
// Parquet file, then times a fixed list of queries (sequential, after 2 warm-ups each) with the gateway's CPU
// per request, then `--bursts` rounds of the site view filtered by its top source as the dashboard asks it —
// about a dozen queries sent at once (dashboard/src/lib/explorer-query.ts) — and samples the gateway's RSS every
// 50 ms throughout. The gateway gets this process's environment, so `SVC_QUERY_RUNNING=2 npm run bench:query …`
// measures the engine with two queries running at once. The last stdout line is one JSON object with the figures.
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
    bursts: { type: "string", default: "5" },
    keep: { type: "boolean", default: false },
    reuse: { type: "string" },
    // A data directory a previous run with the same database left (its Parquet day files are reused).
    "data-dir": { type: "string" },
  },
});
const { rows: ROWS, days: DAYS, requests: REQUESTS } = benchSize(args, { days: 2, requests: 5 });
const BURSTS = Number(args.bursts);
if (!Number.isInteger(BURSTS) || BURSTS < 0) {
  console.error("usage: --bursts N (≥ 0)");
  process.exit(2);
}
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

/** The process's CPU seconds so far (user + system, all its threads: DuckDB's included), from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * The site view of bench:explorer after its click on the top source ("Direct / None"): the dashboard's queries
 * for a filtered view, 30 days compared with the previous 30 (its default), in the order it sends them — the
 * tiles first, then the chart, then the cards (explorer-query.ts tileQuery, seriesQuery, breakdownQuery; the
 * goals card's event:goal).
 */
const VIEW = { filters: [["is", "visit:source", ["Direct / None"]]], previous: { comparisons: { mode: "previous_period", match_day_of_week: false } } };
const CARD_METRICS = ["visitors", "pageviews", "events", "hits"];
const card = (dimension: string) => ({
  name: dimension, body: { metrics: CARD_METRICS, dimensions: [dimension], filters: VIEW.filters, order_by: [["visitors", "desc"], ["pageviews", "desc"], ["hits", "desc"]], pagination: { limit: 9 }, include: VIEW.previous },
});
const BURST: ReadonlyArray<{ name: string; body: Record<string, unknown> }> = [
  { name: "tiles", body: { metrics: ["visitors", "visits", "pageviews", "views_per_visit", "bounce_rate", "visit_duration", "events", "hits"], filters: VIEW.filters, include: VIEW.previous } },
  { name: "series", body: { metrics: CARD_METRICS, dimensions: ["time:day"], filters: VIEW.filters, include: { time_labels: true, ...VIEW.previous } } },
  card("event:page"), card("visit:source"), card("visit:country"), card("visit:device"), card("visit:browser"), card("event:name"),
  card("visit:channel"), card("visit:os"),
  { name: "event:goal", body: { metrics: ["visitors", "events"], dimensions: ["event:goal"], filters: VIEW.filters } },
];

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
    const results: Record<string, { rollups: boolean; p50: number; p95: number; max: number; rows: number; cpu_ms: number; rss_peak_mb: number }> = {};
    let burstPeak = 0;
    const bursts: Array<{ tiles_ms: number; all_ms: number; cpu_s: number; refused: string[]; tiles_rank: number }> = [];
    try {
      for (const q of QUERIES) {
        const body = JSON.stringify({ site_id: DOMAIN, date_range: dateRange, ...q.body });
        let cpuBefore = 0;
        let rows = 0;
        const once = async () => {
          const t = performance.now();
          const res = await fetch(`${base}/api/v2/query`, { method: "POST", headers: auth, body });
          const text = await res.text();
          if (res.status !== 200) throw new Error(`${q.name} answered ${res.status}: ${text}`);
          rows = (JSON.parse(text) as { results: unknown[] }).results.length;
          return performance.now() - t;
        };
        // The RSS peak while this query ran (warm-ups included: the first DuckDB query copies today's rows).
        const peakBefore = peakRss;
        peakRss = rssMb(pid);
        await once();
        await once();
        const times: number[] = [];
        cpuBefore = cpuSeconds(pid);
        for (let i = 0; i < REQUESTS; i++) times.push(await once());
        const cpuMs = ((cpuSeconds(pid) - cpuBefore) / REQUESTS) * 1000;
        times.sort((a, b) => a - b);
        const queryPeak = peakRss;
        peakRss = Math.max(peakBefore, queryPeak);
        results[q.name] = { rollups: q.rollups, p50: round2(percentile(times, 50)), p95: round2(percentile(times, 95)), max: round2(times.at(-1)!), rows, cpu_ms: Math.round(cpuMs), rss_peak_mb: Math.round(queryPeak - idleRss) };
        log(`${q.name} (${q.rollups ? "rollups" : "duckdb"}): p50 ${results[q.name]!.p50} ms, p95 ${results[q.name]!.p95} ms, gateway CPU ${Math.round(cpuMs)} ms a request, ${rows} rows, RSS peak +${Math.round(queryPeak - idleRss)} MB`);
      }
      // The site view's burst: a warm-up round, then BURSTS rounds, each with every query sent at once.
      const peakBefore = peakRss;
      peakRss = rssMb(pid);
      for (let round = 0; round <= BURSTS && BURSTS > 0; round++) {
        const started = performance.now();
        const cpuAt = cpuSeconds(pid);
        const answers = await Promise.all(BURST.map(async (q) => {
          const res = await fetch(`${base}/api/v2/query`, { method: "POST", headers: auth, body: JSON.stringify({ site_id: DOMAIN, date_range: dateRange, ...q.body }) });
          const text = await res.text();
          return { name: q.name, status: res.status, ms: performance.now() - started, error: res.status === 200 ? null : text };
        }));
        const cpu = cpuSeconds(pid) - cpuAt;
        const all = Math.max(...answers.map((a) => a.ms));
        const tiles = answers.find((a) => a.name === "tiles")!;
        const refused = answers.filter((a) => a.status !== 200);
        const order = [...answers].sort((a, b) => a.ms - b.ms).map((a) => a.name);
        if (round === 0) {
          log(`burst warm-up: tiles ${Math.round(tiles.ms)} ms, all ${Math.round(all)} ms`);
          continue;
        }
        bursts.push({ tiles_ms: Math.round(tiles.ms), all_ms: Math.round(all), cpu_s: round2(cpu), refused: refused.map((a) => `${a.name} ${a.status}`), tiles_rank: order.indexOf("tiles") + 1 });
        burstPeak = Math.max(burstPeak, peakRss);
        log(`burst ${round}: ${BURST.length} queries at once — tiles ${Math.round(tiles.ms)} ms (answer ${order.indexOf("tiles") + 1} of ${BURST.length}), all ${Math.round(all)} ms, gateway CPU ${cpu.toFixed(1)} s${refused.length > 0 ? `, NOT 200: ${refused.map((a) => `${a.name} ${a.status} ${a.error}`).join("; ")}` : ""}`);
      }
      burstPeak = Math.max(burstPeak, peakRss);
      peakRss = Math.max(peakBefore, peakRss);
    } finally {
      clearInterval(sampler);
    }
    const load = os.loadavg().map((x) => x.toFixed(1)).join(" ");
    const running = process.env.SVC_QUERY_RUNNING ?? "default";
    const burstFigures = (key: "tiles_ms" | "all_ms") => {
      const list = bursts.map((b) => b[key]).sort((a, b) => a - b);
      return list.length === 0 ? null : { p50: percentile(list, 50), max: list.at(-1)! };
    };
    if (bursts.length > 0) {
      log(`site view burst (SVC_QUERY_RUNNING ${running}): tiles p50 ${burstFigures("tiles_ms")!.p50} ms (max ${burstFigures("tiles_ms")!.max}), all answered p50 ${burstFigures("all_ms")!.p50} ms, RSS peak +${Math.round(burstPeak - idleRss)} MB, refused ${bursts.reduce((n, b) => n + b.refused.length, 0)}`);
    }
    log(`gateway RSS idle ${idleRss.toFixed(0)} MB, peak while querying ${peakRss.toFixed(0)} MB (+${(peakRss - idleRss).toFixed(0)} MB); load average ${load}`);
    const within = Object.values(results).every((r) => r.p95 <= (r.rollups ? 50 : 1000)) && peakRss - idleRss <= 300;
    console.log(JSON.stringify({
      bench: "query", rows: loaded.rows, days: DAYS, requests_per_query: REQUESTS, day_files_s: round2(writeS), query_running: running,
      latency_ms: results, burst: { queries: BURST.length, tiles_ms: burstFigures("tiles_ms"), all_ms: burstFigures("all_ms"), rss_peak_added_mb: bursts.length > 0 ? Math.round(burstPeak - idleRss) : null, rounds: bursts },
      rss_mb: { idle: round2(idleRss), peak: round2(peakRss), added: round2(peakRss - idleRss) },
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
