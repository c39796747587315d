// The query engine's test set-ups that several suites need: its one running slot held, and the settled days'
// Parquet files written as the background job writes them.
import { DuckDBInstance } from "@duckdb/node-api";
import { DayFiles } from "../../src/parquet/day-files.ts";
import { parseQuery } from "../../src/query/request.ts";
import { findSiteByDomain } from "../../src/storage/sites.ts";
import type { Harness } from "./harness.ts";

/** Holds the engine's one running slot (a use of its rows that waits) until `release` is called. */
export async function holdEngine(h: Harness, domain: string, dateRange: string | readonly [string, string]): Promise<{ release: () => void; done: Promise<unknown> }> {
  const site = (await findSiteByDomain(h.pool, domain))!;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const done = h.gateway.query.overRows(site, parseQuery({ site_id: domain, date_range: dateRange, metrics: ["visitors"] }), async () => {
    started();
    await held;
  });
  await running;
  return { release, done };
}

/** Writes the day files of every settled day at `now`, as the background job does; returns how many it wrote. */
export async function writeDayFiles(h: Harness, now: string): Promise<number> {
  const db = await DuckDBInstance.create(":memory:");
  try {
    return (await new DayFiles(h.dataDir).pass(h.pool, () => db.connect(), Date.parse(now))).written;
  } finally {
    db.closeSync();
  }
}
