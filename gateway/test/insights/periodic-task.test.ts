// The scheduled tasks' fiber (src/schedule/periodic-task.ts): waits one interval before the first run, keeps
// running after a failed run (logged), and stopping it interrupts it and aborts the run in flight.
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.ts";
import { PeriodicTask } from "../../src/schedule/periodic-task.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("PeriodicTask", () => {
  it("runs every interval, logs a failed run and goes on; stop ends it", async () => {
    const logs: string[] = [];
    let runs = 0;
    const task = new PeriodicTask({
      name: "test task",
      everyMs: 40,
      log: createLogger("debug", (l) => logs.push(l)),
      run: async () => {
        runs++;
        if (runs === 1) throw new Error("database down");
        if (runs === 2) throw "not even an Error";
      },
    });
    task.start();
    await sleep(20);
    expect(runs).toBe(0);
    while (runs < 4) await sleep(10);
    await task.stop();
    const after = runs;
    await sleep(120);
    expect(runs).toBe(after);
    const warnings = logs.map((l) => JSON.parse(l)).filter((l) => l.level === "warn");
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatchObject({ msg: "test task failed; next run on schedule" });
    expect(warnings[0].error).toContain("database down");
  });

  it("stop aborts the run in flight", async () => {
    let aborted = false;
    const task = new PeriodicTask({
      name: "slow task",
      everyMs: 10,
      log: createLogger("error", () => {}),
      run: (signal) =>
        new Promise<void>((resolve) => {
          signal.addEventListener("abort", () => {
            aborted = true;
            resolve();
          });
        }),
    });
    task.start();
    await sleep(50);
    await task.stop();
    expect(aborted).toBe(true);
  });
});
