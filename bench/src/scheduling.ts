// Who waited for a core, and whether one sat idle meanwhile (`npm run bench -- --sched`): `perf sched record`
// over a few seconds of the load, read back by `perf sched timehist`.
//
// Why: the stage table (`--perf`) says where the server's CPU goes, and the per-event figures say how much each
// process uses, but on this 2-core box the rate is bounded by neither alone (gateway/README.md "Tenth pass": 14 %
// of the box idle with the gateway's event loop 77 % busy). A commit's rows reach the disk only when PostgreSQL's
// backend gets a core; the scheduler's record shows how long each process was ready to run and not running, and
// how much of that wait another core spent idle — time the pipeline lost to where the kernel put a process, not to
// any process's own work.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";

/** One line of `perf sched timehist`: a task left `cpu` at `at` (s) after running `runMs`, having waited `delayMs` for it. */
export interface SchedSlice {
  readonly at: number;
  readonly cpu: number;
  readonly comm: string;
  readonly tid: number;
  readonly pid: number;
  /** Ready to run and not running, from its wake-up to this run (perf's "sch delay"). */
  readonly delayMs: number;
  readonly runMs: number;
}

// `time [cpu] comm[tid/pid] wait sch-delay run …` (`[tid]` alone for a main thread); the comm may hold spaces.
// The idle task is `<idle>`, with no ids: pid 0.
const LINE = /^\s*(\d+\.\d+)\s+\[(\d+)\]\s+(\S.*?)(?:\[(\d+)(?:\/(\d+))?\])?\s+(\d+\.\d+)\s+(\d+\.\d+)\s+(\d+\.\d+)/;

export function parseTimehist(text: string): SchedSlice[] {
  const slices: SchedSlice[] = [];
  for (const line of text.split("\n")) {
    const m = LINE.exec(line);
    if (!m) continue;
    const tid = m[4] === undefined ? 0 : Number(m[4]);
    slices.push({ at: Number(m[1]), cpu: Number(m[2]), comm: m[3]!.trim(), tid, pid: m[5] === undefined ? tid : Number(m[5]), delayMs: Number(m[7]), runMs: Number(m[8]) });
  }
  return slices;
}

/** The processes a bench run tells apart. */
export type SchedRole = "server" | "postgres" | "driver" | "other";
export const SCHED_ROLES: readonly SchedRole[] = ["server", "postgres", "driver", "other"];

export interface RoleTime {
  /** Cores it kept busy on average (run time / span). */
  readonly busy: number;
  /** Its wait for a core as a share of the span (summed over its threads: may exceed 1 for many threads). */
  readonly waiting: number;
  /** The part of `waiting` during which another core ran its idle task. */
  readonly waitingCoreIdle: number;
}

export interface SchedSummary {
  readonly spanMs: number;
  readonly cores: number;
  /** Idle share of all cores' time. */
  readonly idle: number;
  readonly roles: Record<SchedRole, RoleTime>;
}

type Interval = readonly [start: number, end: number];

/** Sorted, disjoint union of intervals. */
function union(intervals: Interval[]): Interval[] {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** Length of [a, b) covered by a sorted disjoint union (binary search to the first interval that may overlap). */
function covered(u: readonly Interval[], a: number, b: number): number {
  let lo = 0;
  let hi = u.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (u[mid]![1] <= a) lo = mid + 1;
    else hi = mid;
  }
  let total = 0;
  for (let i = lo; i < u.length && u[i]![0] < b; i++) total += Math.min(u[i]![1], b) - Math.max(u[i]![0], a);
  return total;
}

/**
 * Run and wait per role over the slices' span. `roleOf` names a task's role from its process id and command;
 * the idle task (`<idle>`, pid 0) is counted apart. A wait is the interval before a slice's run began; the
 * time another core was idle is measured against the union of every other core's idle slices.
 */
export function summarise(slices: readonly SchedSlice[], cores: number, roleOf: (pid: number, comm: string) => SchedRole): SchedSummary {
  if (slices.length === 0) throw new Error("perf sched recorded no scheduler events");
  // A loop, not Math.min(...): a busy 3 s record holds tens of thousands of slices, past what a spread call takes.
  let first = Infinity;
  let last = -Infinity;
  for (const s of slices) {
    first = Math.min(first, s.at - s.runMs / 1000);
    last = Math.max(last, s.at);
  }
  const spanMs = (last - first) * 1000;
  const idleByCpu = new Map<number, Interval[]>();
  let idleMs = 0;
  for (const s of slices) {
    if (s.pid !== 0) continue;
    idleMs += s.runMs;
    const list = idleByCpu.get(s.cpu) ?? [];
    list.push([s.at - s.runMs / 1000, s.at]);
    idleByCpu.set(s.cpu, list);
  }
  const cpus = Array.from({ length: cores }, (_, c) => c);
  const otherIdle = new Map(cpus.map((c) => [c, union(cpus.filter((o) => o !== c).flatMap((o) => idleByCpu.get(o) ?? []))]));
  const totals = new Map<SchedRole, { run: number; wait: number; waitIdle: number }>(SCHED_ROLES.map((r) => [r, { run: 0, wait: 0, waitIdle: 0 }]));
  for (const s of slices) {
    if (s.pid === 0) continue;
    const t = totals.get(roleOf(s.pid, s.comm))!;
    t.run += s.runMs;
    t.wait += s.delayMs;
    if (s.delayMs > 0) {
      const start = s.at - s.runMs / 1000;
      t.waitIdle += 1000 * covered(otherIdle.get(s.cpu) ?? [], start - s.delayMs / 1000, start);
    }
  }
  const share = (ms: number) => ms / spanMs;
  const roles = Object.fromEntries(SCHED_ROLES.map((r) => {
    const t = totals.get(r)!;
    return [r, { busy: share(t.run), waiting: share(t.wait), waitingCoreIdle: share(t.waitIdle) }];
  })) as Record<SchedRole, RoleTime>;
  return { spanMs, cores, idle: idleMs / (spanMs * cores), roles };
}

/**
 * Records every core's scheduler events for `seconds` (needs perf and root, or perf_event_paranoid ≤ 1), then
 * summarises them with the server's process id and the driver's (this process). PostgreSQL is every task named
 * `postgres`. Run it alongside the load.
 */
export async function recordScheduling(seconds: number, serverPid: number, cores: number): Promise<SchedSummary> {
  const data = `/tmp/svc-bench-sched-${serverPid}.data`;
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn("perf", ["sched", "record", "-o", data, "--", "sleep", String(seconds)], { stdio: "ignore" });
      child.once("error", (error) => reject((error as NodeJS.ErrnoException).code === "ENOENT" ? new Error("--sched needs perf (Debian's linux-perf) on the PATH") : error));
      child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`perf sched record exited ${code}: it needs root, or kernel.perf_event_paranoid ≤ 1 and access to the tracepoints`))));
    });
    const hist = spawnSync("perf", ["sched", "timehist", "-i", data], { encoding: "utf8", maxBuffer: 1 << 30 });
    if (hist.status !== 0) throw new Error(`perf sched timehist failed: ${hist.stderr}`);
    return summarise(parseTimehist(hist.stdout), cores, (pid, comm) =>
      pid === serverPid ? "server" : pid === process.pid ? "driver" : comm === "postgres" ? "postgres" : "other");
  } finally {
    fs.rmSync(data, { force: true });
  }
}

const pct = (x: number) => `${Math.round(x * 1000) / 10} %`;

/** One line: cores idle, then per role its busy cores and its wait for a core (of it, with a core idle). */
export function describeScheduling(s: SchedSummary, serverName: string): string {
  const role = (name: string, r: RoleTime) => `${name} ${Math.round(r.busy * 100) / 100} cores, waiting ${pct(r.waiting)} (${pct(r.waitingCoreIdle)} with a core idle)`;
  const parts = [
    role(serverName, s.roles.server), s.roles.postgres.busy >= 0.01 ? role("PostgreSQL", s.roles.postgres) : null, role("driver", s.roles.driver),
    `everything else ${Math.round(s.roles.other.busy * 100) / 100} cores`,
  ];
  return `scheduling, ${serverName}'s run, ${Math.round(s.spanMs / 100) / 10} s: cores idle ${pct(s.idle)} · ${parts.filter(Boolean).join(" · ")}`;
}
