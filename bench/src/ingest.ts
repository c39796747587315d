// npm run bench [-- --duration 60 --connections 64 --http uws|node --ceiling --commit-ceiling --commit-in-flight N --against BUNDLE
//   --rounds N --rate R --bundle B --this-env NAME=VALUE --sched]
// Starts a gateway process on a fresh database, creates a site, drives the shared scenario at a fixed
// concurrency for a fixed time, stops the gateway gracefully and counts the stored rows. The last
// stdout line is one JSON object with the figures. `--k6-scenario FILE` writes the scenario for k6.
//
// `--ceiling` first drives the same scenario, same driver, same duration against a bare uWebSockets.js app
// (ceiling-server.ts) and prints both rates and their ratio on one line: absolute rates vary 2.5× between
// machines and minutes here, the ratio of one run much less. With it each round also prints the CPU per event
// of the bare app and of the load driver (this process), and what the aim (0.45 of the ceiling) leaves the gateway
// per event once the driver and PostgreSQL have theirs at that rate. `--commit-ceiling` runs, after the ceiling, the same
// bare app made durable (commit-ceiling-server.ts: each row committed before its 202, `--commit-in-flight` commits at
// a time, 1 as the gateway's writer): what is left of the ceiling once a 202 means committed, and the gateway's
// share of that, which moves less from minute to minute than its share of the ceiling. `--against other/gateway/dist/main.mjs` also runs
// another checkout's bundle (its own fresh database) after each ceiling, alternating which goes first, for
// `--rounds` rounds: an A/B in one run. `--perf` records each gateway with perf (Linux, root or
// perf_event_paranoid ≤ 1) and prints its CPU per stage in µs per event and its hottest frames (profile-stages.ts). `--rate R` paces
// the driver at R requests/s: on a box loaded by others the closed loop's throughput (and with it every per-event
// cost: batch sizes, per-second work) moves with the load, while at one fixed rate below both builds' capacity
// their CPU per event is the figure to compare. `--bundle B` runs B (another checkout's gateway/dist/main.mjs)
// instead of this checkout's: two benches started together, one per build, each at the same `--rate`, share the
// same minutes of a loaded box, which alternating rounds do not. `--sched` records the scheduler (perf sched, every
// core, 3 s in the middle of each server's load) and prints per process how many cores it kept busy and how long it
// was ready to run without a core, and how much of that wait another core sat idle (scheduling.ts).
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import type pg from "pg";
import { PLACEHOLDER_ADMIN_PASSWORD } from "../../gateway/src/auth/auth-config.ts";
import { launchGateway } from "../../gateway/src/launch.ts";
import { repoRoot } from "../../gateway/src/repo-root.ts";
import { freshBenchDatabase } from "./bench-database.ts";
import { addSite } from "../../gateway/src/storage/sites.ts";
import { COMMIT_CEILING_TABLE } from "./ceiling-app.ts";
import { measureBoxUsage } from "./box-usage.ts";
import { driveScenario } from "./load.ts";
import { PERF_HZ, recordStages, STAGES, type StageSamples } from "./profile-stages.ts";
import { describeScheduling, recordScheduling, type SchedSummary } from "./scheduling.ts";
import { COMMIT_CEILING_CYCLE, describeWriterCycle, type WriterCounters, type WriterCycle, writerCycle } from "./writer-cycle.ts";
import { GATEWAY_BUNDLE } from "../../gateway/scripts/bundle.ts";
import { BENCH_DOMAIN, buildScenario } from "./scenario.ts";

const { values: args } = parseArgs({
  options: {
    duration: { type: "string", default: "60" },
    connections: { type: "string", default: "64" },
    http: { type: "string", default: "uws" },
    ceiling: { type: "boolean", default: false },
    "commit-ceiling": { type: "boolean", default: false },
    "commit-in-flight": { type: "string", default: "1" },
    against: { type: "string" },
    rounds: { type: "string", default: "1" },
    perf: { type: "boolean", default: false },
    sched: { type: "boolean", default: false },
    rate: { type: "string" },
    bundle: { type: "string" },
    "this-env": { type: "string", multiple: true },
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
const rounds = Number(args.rounds);
const pace = args.rate === undefined ? undefined : Number(args.rate);
// perf needs named JavaScript frames: V8 writes /tmp/perf-<pid>.map for it.
if (args.perf) process.env.SVC_NODE_OPTIONS = `${process.env.SVC_NODE_OPTIONS ?? ""} --perf-basic-prof --interpreted-frames-native-stack`.trim();
// The profile skips the first and last 2 s of the load (start-up, the last commits).
const PERF_SKIP_S = 2;
// The scheduler's record: ~15,000 events a second here, so 3 s is enough and stays small.
const SCHED_S = Math.min(3, Math.max(1, duration - 2 * PERF_SKIP_S));

/** Starts a recording PERF_SKIP_S into the load, past its start-up. */
function afterStartUp<T>(record: () => Promise<T>): Promise<T> {
  return new Promise<void>((r) => setTimeout(r, PERF_SKIP_S * 1000)).then(record);
}

/** `--sched`: the scheduler's record of `pid`'s load; null without the flag. */
function scheduling(pid: number): Promise<SchedSummary> | null {
  return args.sched ? afterStartUp(() => recordScheduling(SCHED_S, pid, os.availableParallelism())) : null;
}


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

interface CeilingRun {
  events_per_s: number;
  p99_ms: number;
  errors: number;
  server_us_per_event: number;
  driver_us_per_event: number;
  /** The commit ceiling only: its PostgreSQL backends' CPU, rows per commit and rows acknowledged but not stored. */
  postgres_us_per_event?: number;
  rows_per_commit?: number;
  lost?: number;
  /** The commit ceiling only: where its commit cycle went (writer-cycle.ts), from its stop report. */
  commit_cycle_ms?: WriterCycle | null;
  scheduling?: SchedSummary;
  /** Cores idle during the load, and the app's main thread busy (box-usage.ts), as the gateway's run has them. */
  box_idle_share: number;
  event_loop_busy: number | null;
}

/**
 * A bare app under the same load: `ceiling-server.ts`, what the HTTP stack alone answers on this machine, or
 * `commit-ceiling-server.ts`, which also commits every row before its 202 (on a fresh database of its own).
 */
async function ceiling(kind: "bare" | "commit"): Promise<CeilingRun> {
  const db = kind === "commit" ? await freshBenchDatabase("commit_ceiling") : null;
  const script = kind === "commit" ? "bench/src/commit-ceiling-server.ts" : "bench/src/ceiling-server.ts";
  const env = db ? { ...process.env, DATABASE_URL: db.url, COMMIT_CEILING_IN_FLIGHT: args["commit-in-flight"] } : process.env;
  const child = spawn(process.execPath, ["--import", "tsx", script], { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"], env });
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on("data", () => {
      const m = /"port":(\d+)/.exec(output);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`the ${kind} ceiling server exited (${code}) before listening`)));
  });
  const serverBefore = procStats(child.pid!)?.cpuS ?? 0;
  const driverBefore = process.cpuUsage();
  const sched = scheduling(child.pid!);
  const usage = measureBoxUsage(child.pid!);
  const load = await driveScenario(port, scenario, duration, connections, pace);
  const box = usage();
  const driverS = cpuSeconds(process.cpuUsage(driverBefore));
  const serverS = (procStats(child.pid!)?.cpuS ?? serverBefore) - serverBefore;
  const run: CeilingRun = {
    events_per_s: Math.round(load.accepted / duration), p99_ms: load.p99Ms, errors: load.errors,
    server_us_per_event: usPerEvent(serverS, load.accepted), driver_us_per_event: usPerEvent(driverS, load.accepted),
    scheduling: (await sched) ?? undefined,
    box_idle_share: box.idleShare,
    event_loop_busy: box.mainThreadBusy,
  };
  if (db) run.postgres_us_per_event = usPerEvent(await backendsCpuS(db.pool), load.accepted);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  await exited;
  if (db) {
    const stopped = commitCeilingReport(output);
    const { rows } = await db.pool.query<{ n: number }>(`select count(*)::int as n from ${COMMIT_CEILING_TABLE}`);
    run.rows_per_commit = stopped ? Math.round((10 * stopped.rows) / Math.max(1, stopped.commits)) / 10 : undefined;
    run.commit_cycle_ms = stopped ? writerCycle({ batches: stopped.commits, copyMs: stopped.copyMs, answerMs: stopped.answerMs }, duration) : undefined;
    run.lost = Math.max(0, load.accepted - rows[0]!.n);
    await db.dispose();
  }
  return run;
}

/** The commit ceiling app's last line (commit-ceiling-server.ts), once stopped. */
interface CommitCeilingReport {
  readonly commits: number;
  readonly rows: number;
  readonly copyMs?: number;
  readonly answerMs?: number;
}

function commitCeilingReport(output: string): CommitCeilingReport | null {
  const line = output.split("\n").find((l) => l.includes('"commit ceiling stopped"'));
  return line === undefined ? null : (JSON.parse(line) as CommitCeilingReport);
}

/** CPU seconds of the PostgreSQL processes serving this database's connections (the server runs on this machine). */
async function backendsCpuS(pool: pg.Pool): Promise<number> {
  const backends = await pool.query<{ pid: number }>("select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()");
  return backends.rows.reduce((sum, r) => sum + (procStats(r.pid)?.cpuS ?? 0), 0);
}

const cpuSeconds = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1e6;
const usPerEvent = (cpuS: number, events: number): number => Math.round((1e7 * cpuS) / Math.max(1, events)) / 10;

/** The issue's aim: the gateway at this share of the ceiling's rate (issue 26). */
const AIM = 0.45;

/**
 * What the aim leaves the gateway on this machine: at AIM × the ceiling's rate, the cores minus what the load
 * driver (its CPU per event at the ceiling's rate, the least it costs) and PostgreSQL (per event, as measured in the
 * gateway's run) use at that rate, per event. A gateway needing more than this cannot reach the aim here whatever
 * its latency, since the three share the machine's cores.
 */
function aimBudget(top: { events_per_s: number; driver_us_per_event: number }, postgresUsPerEvent: number): { rate: number; gateway_us_per_event: number } {
  const rate = AIM * top.events_per_s;
  const cores = os.availableParallelism();
  return { rate: Math.round(rate), gateway_us_per_event: Math.round((10 * (cores * 1e6 - rate * (top.driver_us_per_event + postgresUsPerEvent))) / rate) / 10 };
}

// `--this-env NAME=VALUE` (repeatable) sets a variable for this checkout's gateway only: with `--against` this
// checkout's own bundle it is an A/B of one setting (`--this-env SVC_FLUSH_MS=0`), alternated in one run.
const thisEnv: Record<string, string> = Object.fromEntries((args["this-env"] ?? []).map((pair) => {
  const at = pair.indexOf("=");
  if (at < 1) throw new Error(`--this-env expects NAME=VALUE, got ${pair}`);
  return [pair.slice(0, at), pair.slice(at + 1)];
}));

async function gateway(bundle: string | undefined, env: Record<string, string> = {}) {
  const db = await freshBenchDatabase("bench");
  await addSite(db.pool, { domain: BENCH_DOMAIN });
  // The scenario replays 4,000 requests: at full load each of its ~2,000 client addresses sends ~8 events/s
  // (some several times that), and its one site gets ~15,000 hits/s — a load test, not a site. The limiters
  // still run, at their maximum rates, so their cost stays in the figures.
  const gw = await launchGateway({
    DATABASE_URL: db.url, SVC_HTTP: args.http!, SVC_TRUST_PROXY: "1", SVC_EVENT_RATE_PER_CLIENT: "1000000", SVC_HIT_RATE_PER_SITE: "10000000", ...env,
  }, { bundle });
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

  const profile = args.perf
    ? afterStartUp(() => recordStages(pid, duration - 2 * PERF_SKIP_S, bundle ?? GATEWAY_BUNDLE))
    : null;
  const sched = scheduling(pid);
  const driverBefore = process.cpuUsage();
  const usage = measureBoxUsage(pid);
  const load = await driveScenario(gw.port, scenario, duration, connections, pace);
  const box = usage();
  const driverS = cpuSeconds(process.cpuUsage(driverBefore));
  const samples = await profile;
  const schedule = await sched;
  const cpuBefore = procStats(pid)?.cpuS ?? cpu;
  // PostgreSQL's own share: the CPU of the server processes serving the gateway's connections to this database
  // (opened at its boot, so nearly all of it is the run's). Only when the server runs on this machine.
  const postgresCpu = await backendsCpuS(db.pool);
  // /healthz shows its counters only to a credential.
  const login = await fetch(`http://127.0.0.1:${gw.port}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "admin@localhost", password: process.env.SVC_ADMIN_PASSWORD ?? PLACEHOLDER_ADMIN_PASSWORD }),
  });
  const { token } = (await login.json()) as { token: string };
  const health = (await (await fetch(`http://127.0.0.1:${gw.port}/healthz`, { headers: { authorization: `Bearer ${token}` } })).json()) as { writer: WriterCounters & { submissions: number; rows: number; lastCommitMs: number }; rollups: { flushes: number; keys: number }; memory_mb: Record<string, number> };
  gw.child.kill("SIGTERM");
  const exit = await gw.exited();
  clearInterval(sampler);

  const { rows } = await db.pool.query("select (select count(*) from events)::int + (select count(*) from hits)::int as n");
  const stored = rows[0].n as number;
  await db.dispose();

  return {
    gateway: bundle ?? "this checkout",
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
    commit_cycle_ms: writerCycle(health.writer, duration),
    gateway_us_per_event: Math.round((1e7 * cpuBefore) / Math.max(1, load.accepted)) / 10,
    postgres_cpu_s: Math.round(postgresCpu * 10) / 10,
    postgres_us_per_event: Math.round((1e7 * postgresCpu) / Math.max(1, load.accepted)) / 10,
    driver_us_per_event: usPerEvent(driverS, load.accepted),
    stages_us_per_event: samples ? perEvent(samples, load.accepted) : undefined,
    hottest_frames: samples ? hottestFrames(samples) : undefined,
    scheduling: schedule ?? undefined,
    box_idle_share: box.idleShare,
    event_loop_busy: box.mainThreadBusy,
  };
}

/** µs of gateway CPU per event in each stage: samples / rate over the events of the profiled seconds. */
function perEvent(samples: StageSamples, accepted: number): Record<string, number> {
  const events = (accepted * (duration - 2 * PERF_SKIP_S)) / duration;
  const us = (n: number) => Math.round((1e8 * n) / PERF_HZ / Math.max(1, events)) / 100;
  const out: Record<string, number> = {};
  let total = 0;
  for (const stage of STAGES) {
    out[stage] = us(samples.stages.get(stage)!);
    total += samples.stages.get(stage)!;
  }
  out["total"] = us(total);
  out[MAIN_THREAD] = us(samples.mainThread);
  out[LANE_TURN] = us(samples.laneTurn);
  return out;
}

/** How many frames `--perf` lists per gateway. */
const HOTTEST_FRAMES = 15;

/** The frames with the most samples, each with its share of the gateway's samples (%), most first. */
function hottestFrames(samples: StageSamples): Array<{ frame: string; percent: number }> {
  let total = 0;
  for (const n of samples.frames.values()) total += n;
  return [...samples.frames]
    .sort((a, b) => b[1] - a[1])
    .slice(0, HOTTEST_FRAMES)
    .map(([frame, n]) => ({ frame, percent: Math.round((1e4 * n) / Math.max(1, total)) / 100 }));
}

/** The row of the stage table that says how much of the total ran on the event loop's thread. */
const MAIN_THREAD = "of it on the main thread";
/** The row that says how much of it the lane's turn took, inclusive (StageSamples.laneTurn). */
const LANE_TURN = "of it in the lane's turn (inclusive)";

const rate = (n: number) => `${n.toLocaleString("en-US")} events/s`;
const ratio = (n: number, of: number | undefined) => (of ? Math.round((1000 * n) / of) / 1000 : null);

async function main(): Promise<void> {
  console.log(`ingest bench: ${duration}s, ${connections} connections, ${args.http} transport, ${scenario.length} distinct requests${pace ? `, paced at ${pace} requests/s` : ""}${args.ceiling ? ", ceiling first" : ""}${args.against ? `, against ${args.against}` : ""}`);
  const results = [];
  for (let round = 0; round < rounds; round++) {
    const top = args.ceiling || args["commit-ceiling"] ? await ceiling("bare") : undefined;
    const durable = args["commit-ceiling"] ? await ceiling("commit") : undefined;
    // Alternating which gateway runs right after the ceiling, so neither always gets the same minutes.
    const order = args.against === undefined ? ["this"] : round % 2 === 0 ? ["against", "this"] : ["this", "against"];
    const runs: Record<string, Awaited<ReturnType<typeof gateway>>> = {};
    for (const which of order) runs[which] = which === "this" ? await gateway(args.bundle, thisEnv) : await gateway(args.against);
    const self = runs["this"]!;
    const other = runs["against"];
    const load = fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
    const parts = [
      top ? `ceiling ${rate(top.events_per_s)}` : null,
      durable ? `commit ceiling ${rate(durable.events_per_s)} (${ratio(durable.events_per_s, top?.events_per_s)} of the ceiling, ${durable.rows_per_commit} rows a commit, ${durable.server_us_per_event} µs/event + PostgreSQL ${durable.postgres_us_per_event}, lost ${durable.lost})` : null,
      `gateway ${rate(self.events_per_s)} (p99 ${self.p99_ms} ms, ${self.gateway_us_per_event} µs/event + PostgreSQL ${self.postgres_us_per_event}, RSS ${self.gateway_rss_mb_peak} MB, lost ${self.lost})`,
      top ? `ratio ${ratio(self.events_per_s, top.events_per_s)}${durable ? ` (${ratio(self.events_per_s, durable.events_per_s)} of the commit ceiling)` : ""}` : null,
      other ? `against ${rate(other.events_per_s)} (p99 ${other.p99_ms} ms, ${other.gateway_us_per_event} µs/event, lost ${other.lost})${top ? ` ratio ${ratio(other.events_per_s, top.events_per_s)}` : ""}${durable ? ` (${ratio(other.events_per_s, durable.events_per_s)} of the commit ceiling)` : ""}` : null,
      `load ${load}`,
    ];
    console.log(`round ${round + 1}: ${parts.filter(Boolean).join(" · ")}`);
    const budget = top ? aimBudget(top, self.postgres_us_per_event) : undefined;
    if (top && budget) {
      console.log(
        `  CPU per event: ceiling app ${top.server_us_per_event} µs, load driver ${top.driver_us_per_event} at the ceiling's rate (${self.driver_us_per_event} at the gateway's); ` +
          `the aim (${AIM} = ${rate(budget.rate)}) leaves the gateway ${budget.gateway_us_per_event} µs/event of ${os.availableParallelism()} cores beside the driver and PostgreSQL (it uses ${self.gateway_us_per_event})`,
      );
    }
    // Whether the cores or the event loop bound the run: /proc's figures over each server's load (box-usage.ts).
    const percent = (share: number | null) => (share === null ? "?" : `${Math.round(share * 100)} %`);
    const usages = [
      top ? `ceiling app's run ${percent(top.box_idle_share)}` : null,
      durable ? `commit ceiling app's ${percent(durable.box_idle_share)}` : null,
      `gateway's ${percent(self.box_idle_share)} (its event loop's thread busy ${percent(self.event_loop_busy)})`,
      other ? `against's ${percent(other.box_idle_share)} (${percent(other.event_loop_busy)})` : null,
    ];
    console.log(`  cores idle: ${usages.filter(Boolean).join(" · ")}`);
    const cycles = [
      durable?.commit_cycle_ms ? `commit ceiling app ${describeWriterCycle(durable.commit_cycle_ms, COMMIT_CEILING_CYCLE)}` : null,
      `${durable || other ? "this " : ""}${describeWriterCycle(self.commit_cycle_ms)}`,
      other ? `against ${describeWriterCycle(other.commit_cycle_ms)}` : null,
    ];
    console.log(`  commit cycle: ${cycles.filter(Boolean).join(" · ")}`);
    const schedules: [string, SchedSummary | undefined][] = [["ceiling app", top?.scheduling], ["commit ceiling app", durable?.scheduling], ["gateway", self.scheduling], ["against", other?.scheduling]];
    for (const [name, s] of schedules) if (s) console.log(`  ${describeScheduling(s, name)}`);
    if (self.stages_us_per_event) {
      console.log(`gateway CPU per stage, µs/event: this${other ? " · against" : ""}`);
      for (const stage of [...STAGES, "total", MAIN_THREAD, LANE_TURN]) console.log(`  ${stage.padEnd(42)} ${String(self.stages_us_per_event[stage]).padStart(6)}${other?.stages_us_per_event ? String(other.stages_us_per_event[stage]).padStart(8) : ""}`);
      console.log(`  ${"PostgreSQL (its own processes)".padEnd(42)} ${String(self.postgres_us_per_event).padStart(6)}${other ? String(other.postgres_us_per_event).padStart(8) : ""}`);
      for (const [name, run] of [["this", self], ["against", other]] as const) {
        if (!run?.hottest_frames) continue;
        console.log(`hottest frames, ${name === "this" ? "this gateway" : "against"} (share of its samples; the innermost JavaScript frame, else the native leaf):`);
        for (const { frame, percent } of run.hottest_frames) console.log(`  ${percent.toFixed(2).padStart(6)} %  ${frame}`);
      }
    }
    results.push({ ceiling: top, commit_ceiling: durable, commit_ratio: durable ? ratio(self.events_per_s, durable.events_per_s) : undefined, ...self, aim_budget: budget, ratio: top ? ratio(self.events_per_s, top.events_per_s) : undefined, against: other, against_ratio: top && other ? ratio(other.events_per_s, top.events_per_s) : undefined, loadavg: load });
  }
  console.log(JSON.stringify(results.length === 1 ? results[0] : results));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
