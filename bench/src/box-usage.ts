// What the box and a server's event loop did during a load, read from /proc without tracing: the share of the
// cores that sat idle, and the share of the wall time the server's main thread ran.
//
// Why beside `--sched`: `perf sched record` traces every context switch, and the tracing costs most in the processes
// that switch most. In one gateway run at ~37,000 events/s it put PostgreSQL at 0.47 cores and the box at 8 % idle,
// where its own schedstat (`/proc/<pid>/task/*/schedstat`, the scheduler's exact run time) in a run of the same rate
// without perf gave 0.29 cores, and /proc/stat 22 % idle (gateway/README.md "Sixteenth pass"). These figures cost two
// file reads at each end of the load, so every run prints them.
import fs from "node:fs";

/** Jiffies of all cores from the first line of /proc/stat: idle (idle + iowait) and in all. */
export function cpuTimes(procStat: string): { idle: number; total: number } {
  const line = procStat.split("\n", 1)[0]!;
  if (!line.startsWith("cpu ")) throw new Error(`not /proc/stat: ${line.slice(0, 40)}`);
  // user nice system idle iowait irq softirq steal (guest and guest_nice are already in user and nice)
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (fields.length < 8 || fields.some((n) => !Number.isFinite(n))) throw new Error(`unreadable /proc/stat line: ${line}`);
  return { idle: fields[3]! + fields[4]!, total: fields.reduce((a, b) => a + b, 0) };
}

/** Nanoseconds a thread has run: the first field of its schedstat. */
export function threadRunNs(schedstat: string): number {
  const ns = Number(schedstat.trim().split(/\s+/, 1)[0]);
  if (!Number.isFinite(ns)) throw new Error(`unreadable schedstat: ${schedstat}`);
  return ns;
}

export interface BoxUsage {
  /** Share of the cores' time idle (or waiting for I/O) over the load. */
  readonly idleShare: number;
  /** Share of the wall time the server's main thread (its event loop) ran; null when it could not be read. */
  readonly mainThreadBusy: number | null;
}

const readMainThreadNs = (pid: number): number | null => {
  try {
    return threadRunNs(fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8"));
  } catch {
    return null;
  }
};

/** Starts measuring; the returned function ends it. */
export function measureBoxUsage(serverPid: number): () => BoxUsage {
  const cpuBefore = cpuTimes(fs.readFileSync("/proc/stat", "utf8"));
  const threadBefore = readMainThreadNs(serverPid);
  const wallBefore = process.hrtime.bigint();
  return () => {
    const cpuAfter = cpuTimes(fs.readFileSync("/proc/stat", "utf8"));
    const threadAfter = readMainThreadNs(serverPid);
    const wallNs = Number(process.hrtime.bigint() - wallBefore);
    const total = cpuAfter.total - cpuBefore.total;
    const round = (n: number) => Math.round(n * 1000) / 1000;
    return {
      idleShare: total > 0 ? round((cpuAfter.idle - cpuBefore.idle) / total) : 0,
      mainThreadBusy: threadBefore === null || threadAfter === null || wallNs <= 0 ? null : round((threadAfter - threadBefore) / wallNs),
    };
  };
}
