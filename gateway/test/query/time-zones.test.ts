// Site time zones in the query engine: date_range shortcuts, "today" and day/hour buckets follow the site's
// IANA zone (half-hour and 45-minute zones included). The sites table gains `time_zone` in sql/014; until the
// site record carries it, the engine is given a record with the field, over real PostgreSQL and DuckDB.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DayFiles } from "../../src/parquet/day-files.ts";
import { QueryEngine } from "../../src/query/engine.ts";
import { parseQuery } from "../../src/query/request.ts";
import { findSiteByDomain } from "../../src/storage/sites.ts";
import { type Harness, UA, post, startHarness } from "../support/harness.ts";

const DOMAIN = "tz.example";
let h: Harness;
let engine: QueryEngine;

beforeAll(async () => {
  h = await startHarness({ now: "2026-03-14T17:00:00Z", sites: [DOMAIN] });
  // 17:00Z on the 14th is 22:30 on the 14th in Kolkata; 20:00Z is 01:30 on the 15th there.
  for (const [at, ip] of [["2026-03-14T17:00:00Z", "1.1.1.1"], ["2026-03-14T20:00:00Z", "8.8.8.8"], ["2026-03-15T10:00:00Z", "9.9.9.9"]] as const) {
    h.clock.set(at);
    expect((await post(h.base, "/api/event", { d: DOMAIN, u: `https://${DOMAIN}/` }, { "user-agent": UA.chrome, "x-forwarded-for": ip })).status).toBe(202);
  }
  h.clock.set("2026-03-15T12:00:00Z");
  engine = await QueryEngine.open({ pool: h.pool, now: h.clock.now, tempDir: path.join(h.dataDir, "tz-tmp"), dayFiles: new DayFiles(h.dataDir), flushRollups: () => h.gateway.rollups.flushBeforeRead() });
});
afterAll(async () => {
  engine.close();
  await h.close();
});

async function run(timeZone: string, body: Record<string, unknown>) {
  const site = { ...(await findSiteByDomain(h.pool, DOMAIN))!, time_zone: timeZone };
  return engine.run(site, parseQuery({ site_id: DOMAIN, ...body }));
}

describe("time zones", () => {
  it.each([
    ["UTC", 1, ["2026-03-15T00:00:00+00:00", "2026-03-15T23:59:59+00:00"]],
    ["Asia/Kolkata", 2, ["2026-03-15T00:00:00+05:30", "2026-03-15T23:59:59+05:30"]],
    ["America/New_York", 1, ["2026-03-15T00:00:00-04:00", "2026-03-15T23:59:59-04:00"]],
  ])("today in %s counts %i visitors", async (zone, visitors, range) => {
    const r = await run(zone, { date_range: "day", metrics: ["visitors"] });
    expect(r.results[0]!.metrics).toEqual([visitors]);
    expect(r.query["date_range"]).toEqual(range);
  });

  it("hour and day buckets are local: 20:00Z is 01:30 on the 15th in Kolkata, 01:45 in Kathmandu", async () => {
    const hours = await run("Asia/Kolkata", { date_range: ["2026-03-14", "2026-03-15"], metrics: ["visitors"], dimensions: ["time:hour"] });
    expect(hours.results.map((r) => [r.dimensions[0], r.metrics[0]])).toEqual([["2026-03-14 22:00:00", 1], ["2026-03-15 01:00:00", 1], ["2026-03-15 15:00:00", 1]]);
    const days = await run("Asia/Kathmandu", { date_range: ["2026-03-14", "2026-03-15"], metrics: ["visitors"], dimensions: ["time:day"] });
    expect(days.results.map((r) => [r.dimensions[0], r.metrics[0]])).toEqual([["2026-03-14", 1], ["2026-03-15", 2]]);
  });
});
