// `--sched` reads `perf sched timehist`: which task ran where and for how long, and how long it had waited for a
// core. The wait that matters is the part of it during which another core was idle, so both the parse and the
// overlap are checked on a hand-made record whose figures are worked out below.
import { describe, expect, it } from "vitest";
import { parseTimehist, type SchedRole, summarise } from "../src/scheduling.ts";

// Two cores, 10 ms. Core 0: the server runs 0–4 ms, PostgreSQL 4–6 (woken at 1: waited 3 ms, 1–2 of it with core 1
// idle), idle 6–10. Core 1: idle 0–2, a thread of the driver 2–8 (waited 1.5–2, core 0 busy), idle 8–10.
const RECORD = `
           time    cpu  task name                       wait time  sch delay   run time
                        [tid/pid]                          (msec)     (msec)     (msec)
--------------- ------  ------------------------------  ---------  ---------  ---------
     100.002000 [0001]  <idle>                              0.000      0.000      2.000
     100.004000 [0000]  node[200]                           0.000      0.000      4.000
     100.006000 [0000]  postgres[300]                       1.000      3.000      2.000
     100.008000 [0001]  node[101/100]                       0.000      0.500      6.000
     100.010000 [0000]  <idle>                              0.000      0.000      4.000
     100.010000 [0001]  <idle>                              0.000      0.000      2.000
`;

const roleOf = (pid: number): SchedRole => (pid === 200 ? "server" : pid === 100 ? "driver" : pid === 300 ? "postgres" : "other");

describe("scheduler record", () => {
  it.each([
    { line: "     317.454821 [0001]  node[9069]                          0.031      0.000      0.024 ", comm: "node", tid: 9069, pid: 9069, cpu: 1, delayMs: 0, runMs: 0.024 },
    { line: "     317.455067 [0001]  node[9071/9069]                     0.172      0.126      0.056  ", comm: "node", tid: 9071, pid: 9069, cpu: 1, delayMs: 0.126, runMs: 0.056 },
    { line: "     317.166077 [0000]  <idle>                              0.000      0.000      0.127 ", comm: "<idle>", tid: 0, pid: 0, cpu: 0, delayMs: 0, runMs: 0.127 },
    { line: "     317.454814 [0001]  npm run bench -[9011]               0.031      0.010      0.024 ", comm: "npm run bench -", tid: 9011, pid: 9011, cpu: 1, delayMs: 0.01, runMs: 0.024 },
    { line: "     317.455011 [0001]  kworker/1:0H-kb[24]                 0.049      0.000      0.139 ", comm: "kworker/1:0H-kb", tid: 24, pid: 24, cpu: 1, delayMs: 0, runMs: 0.139 },
  ])("reads $comm's line", ({ line, ...slice }) => {
    expect(parseTimehist(line)).toEqual([{ at: Number(line.trim().split(/\s+/)[0]), ...slice }]);
  });

  it("skips the header and anything that is not a slice", () => {
    expect(parseTimehist("           time    cpu  task name\n--------------- ------\n\n  samples lost\n")).toEqual([]);
  });

  it("sums run and wait per role, and the wait during which another core idled", () => {
    const s = summarise(parseTimehist(RECORD), 2, roleOf);
    expect(s.spanMs).toBeCloseTo(10, 6);
    expect(s.idle).toBeCloseTo(8 / 20, 6);
    const rounded = Object.fromEntries(Object.entries(s.roles).map(([role, r]) => [role, [r.busy, r.waiting, r.waitingCoreIdle].map((x) => Math.round(x * 1e6) / 1e6)]));
    expect(rounded).toEqual({
      server: [0.4, 0, 0],
      postgres: [0.2, 0.3, 0.1],
      driver: [0.6, 0.05, 0],
      other: [0, 0, 0],
    });
  });

  it("counts a wait once however many other cores idle through it", () => {
    // Three cores: core 0's task waits 0–4 ms; core 1 idles 0–3, core 2 idles 2–4: another core idled all 4 ms.
    const record = [
      "     200.004000 [0000]  postgres[300]   0.000   4.000   0.000",
      "     200.003000 [0001]  <idle>          0.000   0.000   3.000",
      "     200.004000 [0002]  <idle>          0.000   0.000   2.000",
    ].join("\n");
    const s = summarise(parseTimehist(record), 3, roleOf);
    expect(s.roles.postgres.waitingCoreIdle * s.spanMs).toBeCloseTo(4, 6);
  });

  it("refuses an empty record", () => {
    expect(() => summarise([], 2, roleOf)).toThrow(/no scheduler events/);
  });
});
