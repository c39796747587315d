// Every ingest bench run prints the box's idle share and the server's event-loop busy share from /proc: the reads are
// checked on hand-made lines, and the measure on this process's own main thread while it spins and while it sleeps.
import { setTimeout as sleep } from "node:timers/promises";
import { isMainThread } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { cpuTimes, measureBoxUsage, threadRunNs } from "../src/box-usage.ts";

describe("box usage", () => {
  it.each([
    // user nice system idle iowait irq softirq steal guest guest_nice
    { label: "a kernel's ten fields", line: "cpu  129950 0 45590 168646 4873 0 13972 134 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0", idle: 173519, total: 363165 },
    { label: "an older kernel's eight", line: "cpu 10 20 30 40 50 60 70 80", idle: 90, total: 360 },
  ])("reads the cores' idle and total jiffies from $label", ({ line, idle, total }) => {
    expect(cpuTimes(line)).toEqual({ idle, total });
  });

  it.each([
    { label: "a per-core line", text: "cpu0 1 2 3 4 5 6 7 8" },
    { label: "too few fields", text: "cpu  1 2 3" },
    { label: "something else", text: "intr 123 0 0" },
  ])("refuses $label", ({ text }) => {
    expect(() => cpuTimes(text)).toThrow();
  });

  it("reads a thread's run time from its schedstat", () => {
    expect(threadRunNs("5208917843 1027391 12345\n")).toBe(5208917843);
    expect(() => threadRunNs("n/a")).toThrow();
  });

  it("measures its own main thread busy while it spins and nearly idle while it sleeps", async () => {
    // The spin must run on the thread measured: vitest's forks pool runs a test file on its process's main thread.
    expect(isMainThread).toBe(true);
    const spinning = measureBoxUsage(process.pid);
    const until = Date.now() + 300;
    while (Date.now() < until);
    const spun = spinning();
    const sleeping = measureBoxUsage(process.pid);
    await sleep(300);
    const slept = sleeping();
    // Bounds wide enough for a loaded 2-core CI box: a spin keeps the thread on a core most of the time it has one.
    expect(spun.mainThreadBusy).toBeGreaterThan(0.3);
    expect(spun.mainThreadBusy).toBeLessThanOrEqual(1.05);
    expect(slept.mainThreadBusy).toBeLessThan(0.2);
    for (const u of [spun, slept]) {
      expect(u.idleShare).toBeGreaterThanOrEqual(0);
      expect(u.idleShare).toBeLessThanOrEqual(1);
    }
  });

  it("says null for a thread it cannot read", () => {
    expect(measureBoxUsage(2 ** 22 + 1)().mainThreadBusy).toBeNull();
  });
});
