// The workload of `npm run bench:event-path` runs the gateway's real ingest steps end to end in process: every
// request of the scenario becomes its rows, each is counted and encoded, and the figures come out as one JSON line.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DIMENSIONS } from "../../gateway/src/rollups/rollup-state.ts";
import { buildScenario } from "../src/scenario.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

describe("event path workload", () => {
  it("turns the scenario's requests into rows, visitors and COPY bytes", () => {
    const out = spawnSync(process.execPath, ["--import", "tsx", "bench/src/event-path.ts", "--requests", "640", "--warm-up", "64"], { cwd: root, encoding: "utf8" });
    expect(out.status, out.stderr).toBe(0);
    const figures = JSON.parse(out.stdout.trim().split("\n").at(-1)!) as { rows: number; measured_rows: number; visitors: number; us_per_row: number; copy_bytes_per_row: number; value_lookups_per_row: number };
    const expectedRows = buildScenario().slice(0, 704).reduce((sum, r) => sum + r.rows, 0);
    expect(figures.rows).toBe(expectedRows);
    expect(figures.measured_rows).toBe(expectedRows - buildScenario().slice(0, 64).reduce((sum, r) => sum + r.rows, 0));
    expect(figures.visitors).toBeGreaterThan(100);
    expect(figures.us_per_row).toBeGreaterThan(0);
    // A row's binary COPY tuple holds its ~25 fields, each after its length, and its 32-byte visitor hash.
    expect(figures.copy_bytes_per_row).toBeGreaterThan(150);
    // Nearly every row here is its visitor's first, whose counters are all looked up: one per dimension it counts in.
    expect(figures.value_lookups_per_row).toBeGreaterThan(5);
    expect(figures.value_lookups_per_row).toBeLessThanOrEqual(DIMENSIONS.length);
  });
});
