// npm run bench:import [-- --lines 1000000 --days 30 --http]
// A history import of `--lines` NDJSON lines (a realistic mix over `--days` settled days: visitors who read
// several pages, referrers, UTM, a third with a user agent, crawlers, custom events with props) into a fresh
// database, timed end to end: read from a file and imported in one transaction, as `npm run svc -- import`
// does (with --http: POSTed to a gateway process's /api/sites/{id}/import instead). Prints lines/s, the
// phases, the CPU of this process and of PostgreSQL's backends, and the peak RSS of the importing process; the last stdout line is one JSON object.
import { once } from "node:events";
import { createReadStream, createWriteStream, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { finished } from "node:stream/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { DAY_MS, systemClock } from "@svc/core";
import { importHistory } from "../../gateway/src/import/history-import.ts";
import { addSite } from "../../gateway/src/storage/sites.ts";
import { freshBenchDatabase } from "./bench-database.ts";

const { values: args } = parseArgs({ options: { lines: { type: "string", default: "1000000" }, days: { type: "string", default: "30" } } });
const LINES = Number(args.lines);
const DAYS = Number(args.days);
if (!Number.isInteger(LINES) || LINES < 1000 || !Number.isInteger(DAYS) || DAYS < 1 || DAYS > 360) {
  console.error("usage: --lines N (≥ 1000) --days 1..360");
  process.exit(2);
}
const log = (line: string) => console.log(`[bench:import] ${line}`);
const DOMAIN = "import-bench.example";

const UAS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
];
const REFERRERS = ["https://www.google.com/", "https://www.bing.com/", "https://news.ycombinator.com/", "https://chatgpt.com/", "https://www.reddit.com/r/x", null, null, null];
const COUNTRIES = ["US", "DE", "GB", "FR", "IN", "BR", "JP", "CA"];
const DEVICES = ["Desktop", "Mobile", "Tablet", "Laptop"];

/** The file's text, in chunks: visitors of ~4 lines each (a few minutes apart), shuffled across the days by a fixed LCG. */
function* generate(): Generator<string> {
  let seed = 42;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
  const end = Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS; // before yesterday: settled at any hour
  const start = end - DAYS * DAY_MS;
  let chunk = "";
  for (let i = 0; i < LINES; ) {
    const visitor = `v${i}`;
    let t = start + Math.floor(rand() * (end - start - 3_600_000));
    const referrer = pick(REFERRERS);
    const withUa = rand() < 0.33 ? pick(UAS) : null;
    const country = pick(COUNTRIES);
    const device = pick(DEVICES);
    for (let k = 0; k < 4 && i < LINES; k++, i++) {
      const line: Record<string, unknown> = {
        timestamp: new Date(t).toISOString(), name: k === 3 && rand() < 0.2 ? "Signup" : "pageview", visitor,
        pathname: `/p/${Math.floor(rand() ** 3 * 2000)}${k === 0 && rand() < 0.1 ? "?utm_source=newsletter&utm_medium=email" : ""}`, country,
      };
      if (k === 0 && referrer !== null) line["referrer"] = referrer;
      if (withUa !== null) line["user_agent"] = withUa;
      else line["device"] = device;
      if (line["name"] === "Signup") line["props"] = { plan: pick(["free", "pro"]) };
      chunk += JSON.stringify(line) + "\n";
      t += 30_000 + Math.floor(rand() * 240_000);
    }
    if (chunk.length > 1 << 20) {
      yield chunk;
      chunk = "";
    }
  }
  if (chunk !== "") yield chunk;
}

/** CPU seconds (user + system) of a process on this machine, or null once it has gone. */
function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(stat[11]) + Number(stat[12])) / 100;
  } catch {
    return null;
  }
}

const dir = await mkdtemp(path.join(os.tmpdir(), "svc-bench-import-"));
const file = path.join(dir, "history.ndjson");
const db = await freshBenchDatabase("bench_import", { log });
try {
  // Written chunk by chunk, so the file's text never sits in this process's memory (its RSS is the import's).
  let bytes = 0;
  const out = createWriteStream(file);
  for (const c of generate()) {
    bytes += Buffer.byteLength(c);
    if (!out.write(c)) await once(out, "drain");
  }
  out.end();
  await finished(out);
  log(`${LINES.toLocaleString("en-US")} lines over ${DAYS} days, ${(bytes / 1e6).toFixed(1)} MB`);
  const site = await addSite(db.pool, { domain: DOMAIN });

  // The PostgreSQL backends of the bench database (the server runs on this machine): their CPU while importing
  // is the other half of the import's cost, and unlike wall time it does not grow with the box's load.
  const backendCpu = new Map<number, { from: number; to: number }>();
  const monitor = await db.pool.connect();
  const sampleBackends = async () => {
    const { rows } = await monitor.query<{ pid: number }>("select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()");
    for (const { pid } of rows) {
      const now = cpuSeconds(pid);
      if (now === null) continue;
      const seen = backendCpu.get(pid);
      if (seen === undefined) backendCpu.set(pid, { from: now, to: now });
      else seen.to = now;
    }
  };
  await sampleBackends();
  let sampling = Promise.resolve();
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
    sampling = sampling.then(sampleBackends);
  }, 100);
  const baseline = process.memoryUsage().rss;
  const phases: Record<string, number> = {};
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const report = await importHistory(db.pool, site, createReadStream(file, { highWaterMark: 256 * 1024 }), {
    clock: systemClock,
    onPhase: (phase) => (phases[phase] = Math.round(performance.now() - t0)),
  });
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  await sampling;
  await sampleBackends();
  monitor.release();
  const pgCpu = [...backendCpu.values()].reduce((sum, b) => sum + b.to - b.from, 0);
  peak = Math.max(peak, process.memoryUsage().rss);
  if (report.status !== "imported" || report.imported !== LINES) throw new Error(`unexpected report: ${JSON.stringify({ ...report, refused_lines: report.refused_lines.slice(0, 5) })}`);
  const result = {
    lines: LINES, days: DAYS, mb: Math.round(bytes / 1e5) / 10, seconds: Math.round(seconds * 10) / 10,
    lines_per_s: Math.round(LINES / seconds), phases_ms: phases,
    // This process's CPU (the box is shared: wall time follows the load average; PostgreSQL's own CPU is apart).
    cpu_s: Math.round((cpu.user + cpu.system) / 1e5) / 10, cpu_us_per_line: Math.round((cpu.user + cpu.system) / LINES),
    // The database's backends' CPU for the same import (a backend that started after the first sample counts from its first sample).
    pg_cpu_s: Math.round(pgCpu * 10) / 10,
    rss_peak_mb: Math.round(peak / 1e6), rss_before_mb: Math.round(baseline / 1e6), load_average: os.loadavg().map((x) => Math.round(x * 10) / 10),
  };
  log(`imported in ${result.seconds} s: ${result.lines_per_s.toLocaleString("en-US")} lines/s (${result.cpu_us_per_line} µs of CPU a line here, PostgreSQL ${result.pg_cpu_s} s of CPU), RSS peak ${result.rss_peak_mb} MB (before ${result.rss_before_mb} MB), load ${result.load_average.join(" ")}`);
  console.log(JSON.stringify(result));
} finally {
  await db.dispose();
  await rm(dir, { recursive: true, force: true });
}
