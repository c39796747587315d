import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureMonthlyPartitions, listMonthlyPartitions } from "../../src/storage/partitions.ts";
import { applyRetention, retentionCutoffMs } from "../../src/storage/retention.ts";
import { addSite } from "../../src/storage/sites.ts";
import { writeRollups } from "../../src/rollups/rollup-writes.ts";
import { commitRows } from "../../src/writer/commit-rows.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { eventRow, hitRow, rollupDelta } from "../support/sample-rows.ts";
import { HOUR_MS } from "@svc/core";

const NOW = Date.UTC(2026, 10, 21, 10, 30);
let db: TestDatabase;
let short: number; // retention 30 days
let long: number; // retention 400 days

beforeAll(async () => {
  db = await createTestDatabase({ nowMs: NOW });
  await ensureMonthlyPartitions(db.pool, Date.UTC(2025, 0, 15)); // 2025_01, 2025_02
  await ensureMonthlyPartitions(db.pool, Date.UTC(2025, 9, 15)); // 2025_10, 2025_11
  short = (await addSite(db.pool, { domain: "short.example", retention_days: 30 })).id;
  long = (await addSite(db.pool, { domain: "long.example", retention_days: 400 })).id;
});
afterAll(async () => {
  await db.drop();
});

async function pages(table: "events" | "hits", site: number): Promise<string[]> {
  const result = await db.pool.query(`select page from ${table} where site_id = $1 order by ts`, [site]);
  return result.rows.map((r) => r.page);
}

describe("retention", () => {
  it.each([
    [NOW, 30, Date.UTC(2026, 9, 22)],
    [Date.UTC(2026, 10, 21), 1, Date.UTC(2026, 10, 20)],
    [Date.UTC(2026, 10, 21) - 1, 1, Date.UTC(2026, 10, 19)],
    [NOW, 395, Date.UTC(2025, 9, 22)],
  ])("cutoff of now=%d with %d days is %d (00:00 UTC)", (now, days, cutoff) => {
    expect(retentionCutoffMs(now, days)).toBe(cutoff);
  });

  it("deletes each site's rows and rollups past its own window and drops partitions no site still needs", async () => {
    const shortCutoff = retentionCutoffMs(NOW, 30); // 2026-10-22
    const longCutoff = retentionCutoffMs(NOW, 400); // 2025-10-17
    await commitRows(db.pool, {
      events: [
        eventRow({ site_id: short, ts: Date.UTC(2025, 9, 20), page: "/short-old" }),
        eventRow({ site_id: short, ts: shortCutoff - 1, page: "/short-last-ms-out" }),
        eventRow({ site_id: short, ts: shortCutoff, page: "/short-first-ms-in" }),
        eventRow({ site_id: short, ts: NOW, page: "/short-now" }),
        eventRow({ site_id: long, ts: Date.UTC(2025, 0, 10), page: "/long-in-dropped-partition" }),
        eventRow({ site_id: long, ts: longCutoff - 1, page: "/long-last-ms-out" }),
        eventRow({ site_id: long, ts: longCutoff, page: "/long-first-ms-in" }),
        eventRow({ site_id: long, ts: shortCutoff - 1, page: "/long-recent" }),
      ],
      hits: [
        hitRow({ site_id: short, ts: shortCutoff - 1, page: "/short-hit-out" }),
        hitRow({ site_id: short, ts: shortCutoff, page: "/short-hit-in" }),
        hitRow({ site_id: long, ts: Date.UTC(2025, 1, 3), page: "/long-hit-in-dropped-partition" }),
      ],
    });
    await writeRollups(
      db.pool,
      [
        rollupDelta({ site_id: short, hour: shortCutoff - HOUR_MS, value: "/out" }),
        rollupDelta({ site_id: short, hour: shortCutoff, value: "/in" }),
        rollupDelta({ site_id: long, hour: shortCutoff - HOUR_MS, value: "/long" }),
      ],
      null,
    );

    const result = await applyRetention(db.pool, NOW);
    expect(result.droppedPartitions).toEqual(["events_2025_01", "hits_2025_01", "events_2025_02", "hits_2025_02"]);
    // short: 2 events, 1 hit, 1 hourly + 1 daily rollup; long: 1 event.
    expect(result.deletedRows).toBe(6);

    expect(await pages("events", short)).toEqual(["/short-first-ms-in", "/short-now"]);
    expect(await pages("hits", short)).toEqual(["/short-hit-in"]);
    expect(await pages("events", long)).toEqual(["/long-first-ms-in", "/long-recent"]);
    expect(await pages("hits", long)).toEqual([]);
    const hourly = await db.pool.query("select site_id, value from rollup_hourly order by site_id, value");
    expect(hourly.rows).toEqual([{ site_id: short, value: "/in" }, { site_id: long, value: "/long" }]);
    const daily = await db.pool.query("select site_id, bucket::text, value from rollup_daily order by site_id, value");
    expect(daily.rows).toEqual([{ site_id: short, bucket: "2026-10-22", value: "/in" }, { site_id: long, bucket: "2026-10-21", value: "/long" }]);
    const left = (await listMonthlyPartitions(db.pool)).map((p) => p.name);
    expect(left).toEqual(["events_2025_10", "hits_2025_10", "events_2025_11", "hits_2025_11", "events_2026_11", "hits_2026_11", "events_2026_12", "hits_2026_12"]);
  });

  it("a second run the same day changes nothing", async () => {
    expect(await applyRetention(db.pool, NOW)).toEqual({ deletedRows: 0, droppedPartitions: [] });
  });

  it("months later, drops the partitions that fell out of the longest window", async () => {
    // 2027-01-05 − 400 days = 2025-12-01: October and November 2025 are past every site's window.
    const later = Date.UTC(2027, 0, 5, 3);
    const result = await applyRetention(db.pool, later);
    expect(result.droppedPartitions).toEqual(["events_2025_10", "hits_2025_10", "events_2025_11", "hits_2025_11"]);
    expect(await pages("events", long)).toEqual(["/long-recent"]);
  });
});
