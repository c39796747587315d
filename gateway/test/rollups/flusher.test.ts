// Rollups are written apart from the raw rows' commits. These tests hold the flush interval at a minute,
// so only the mechanisms under test can make counts appear: reads flush first, a failed flush keeps its
// counts, a clean stop writes everything, and a gateway that was killed repairs the rollups at boot.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.ts";
import { repairAfterCrash } from "../../src/rollups/flusher.ts";
import { readRepairMark, writeRollups } from "../../src/rollups/rollup-writes.ts";
import { commitRows } from "../../src/writer/commit-rows.ts";
import { bearer, createApiKey, loginAsAdmin } from "../support/auth.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { type Harness, UA, post, startHarness } from "../support/harness.ts";
import { recomputedRollups, storedRollups } from "../support/recompute.ts";
import { eventRow, hitRow, rollupDelta, visitorHash } from "../support/sample-rows.ts";
import { HOUR_MS } from "@svc/core";

const MINUTE = { SVC_ROLLUP_FLUSH_MS: "60000", SVC_TRUST_PROXY: "1" };

async function send(h: Harness, count: number, ipBase = 10): Promise<void> {
  for (let i = 0; i < count; i++) {
    const reply = await post(h.base, "/api/event", { d: "example.com", u: `https://example.com/p${i % 3}` }, { "user-agent": UA.chrome, "x-forwarded-for": `81.2.69.${ipBase + (i % 4)}` });
    expect(reply.status).toBe(202);
  }
}

const totalPageviews = async (h: Harness) =>
  (await h.pool.query("select coalesce(sum(pageviews), 0)::int as n from rollup_daily where dim = 'total' and actor = 'all'")).rows[0].n as number;

async function expectExact(h: Harness, siteId: number): Promise<void> {
  for (const grain of ["day", "hour"] as const) expect(await storedRollups(h.pool, siteId, grain)).toEqual(await recomputedRollups(h.pool, siteId, grain));
}

describe("reads see every acknowledged row", () => {
  let h: Harness;
  let auth: Record<string, string>;
  beforeAll(async () => {
    h = await startHarness({ env: MINUTE, sites: ["example.com"] });
    auth = bearer(await createApiKey(h.base, (await loginAsAdmin(h.base)).token));
  });
  afterAll(async () => {
    await h?.close();
  });

  it("the stats route flushes the held counts before it reads", async () => {
    await send(h, 7);
    expect(await totalPageviews(h)).toBe(0); // still held: the next timed flush is a minute away
    const siteId = (await h.pool.query("select id from sites")).rows[0].id;
    const res = await fetch(`${h.base}/api/sites/${siteId}/stats?days=1`, { headers: auth });
    const body = (await res.json()) as { current: { pageviews: number; visitors: number } };
    expect(res.status).toBe(200);
    expect(body.current).toMatchObject({ pageviews: 7, visitors: 4 });
    await expectExact(h, siteId);
  });
});

describe("a failed rollup flush", () => {
  let h: Harness;
  let failing = true;
  beforeAll(async () => {
    h = await startHarness({
      env: MINUTE,
      sites: ["example.com"],
      writeRollups: async (pool, deltas, mark) => {
        if (failing) throw new Error("simulated rollup failure");
        await writeRollups(pool, deltas, mark);
      },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("keeps its counts, still acknowledges ingest, and writes them exactly once it succeeds", async () => {
    await send(h, 5);
    await expect(h.gateway.rollups.flushBeforeRead()).rejects.toThrow(/simulated/);
    await send(h, 3, 20);
    await expect(h.gateway.rollups.flushBeforeRead()).rejects.toThrow(/simulated/);
    expect(h.gateway.rollups.stats.failures).toBe(2);
    expect(h.gateway.rollups.stats.held).toBeGreaterThan(0);
    expect(await totalPageviews(h)).toBe(0);
    failing = false;
    await h.gateway.rollups.flushBeforeRead();
    expect(await totalPageviews(h)).toBe(8);
    expect(h.gateway.rollups.stats.held).toBe(0);
    await expectExact(h, (await h.pool.query("select id from sites")).rows[0].id);
  });
});

describe("stopping", () => {
  let h: Harness;
  afterEach(async () => {
    await h?.close();
  });

  it("writes every held count and clears the repair mark; a restart continues exactly", async () => {
    h = await startHarness({ env: MINUTE, sites: ["example.com"] });
    await send(h, 6);
    expect(await readRepairMark(h.pool)).not.toBe(null);
    await h.restart();
    expect(await totalPageviews(h)).toBe(6);
    expect(h.logs.join("\n")).not.toContain("did not stop cleanly");
    await send(h, 4, 12);
    await h.restart();
    expect(await totalPageviews(h)).toBe(10);
    expect(h.logs.join("\n")).not.toContain("did not stop cleanly");
    await expectExact(h, (await h.pool.query("select id from sites")).rows[0].id);
  });
});

describe("repairAfterCrash", () => {
  let db: TestDatabase;
  const NOW = Date.UTC(2026, 10, 21, 0, 20); // 20 minutes into the day: the mark reaches back into yesterday
  const log = createLogger("error", () => undefined);
  beforeAll(async () => {
    db = await createTestDatabase({ nowMs: NOW });
    await db.pool.query("insert into sites (domain) values ('a.example'), ('b.example')");
  });
  afterAll(async () => {
    await db.drop();
  });

  const rollupsOf = async (siteId: number) =>
    (await db.pool.query("select bucket::text, value, pageviews::int, visitors::int from rollup_daily where site_id = $1 and dim = 'page' order by bucket, value", [siteId])).rows;

  it("recomputes every site's days from the mark on, then marks the hour before now", async () => {
    const [a, b] = (await db.pool.query<{ id: number }>("select id from sites order by id")).rows.map((r) => r.id) as [number, number];
    const yesterday = NOW - 2 * HOUR_MS;
    await commitRows(db.pool, {
      events: [
        eventRow({ site_id: a, ts: yesterday, page: "/y", visitor_hash: visitorHash("1") }),
        eventRow({ site_id: a, ts: NOW - 60_000, page: "/t", visitor_hash: visitorHash("1") }),
        eventRow({ site_id: a, ts: NOW - 30_000, page: "/t", visitor_hash: visitorHash("2") }),
      ],
      hits: [hitRow({ site_id: b, ts: NOW - 10_000, page: "/h" })],
    });
    // What a killed gateway left: yesterday's counts flushed, today's only partly, site b's not at all.
    await writeRollups(db.pool, [rollupDelta({ site_id: a, hour: yesterday - (yesterday % HOUR_MS), value: "/y", pageviews: 1, visitors_day: 1 }), rollupDelta({ site_id: a, hour: NOW - (NOW % HOUR_MS), value: "/t", pageviews: 1, visitors_day: 1 })], yesterday - (yesterday % HOUR_MS));

    await repairAfterCrash(db.pool, NOW, log);
    expect(await rollupsOf(a)).toEqual([
      { bucket: "2026-11-20", value: "/y", pageviews: 1, visitors: 1 },
      { bucket: "2026-11-21", value: "/t", pageviews: 2, visitors: 2 },
    ]);
    expect(await rollupsOf(b)).toEqual([{ bucket: "2026-11-21", value: "/h", pageviews: 0, visitors: 1 }]);
    expect(await readRepairMark(db.pool)).toBe(NOW - (NOW % HOUR_MS) - HOUR_MS);
  });

  it("touches nothing after a clean stop (no mark)", async () => {
    await db.pool.query("update rollup_repair set from_hour = null");
    await db.pool.query("update rollup_daily set pageviews = 99 where value = '/t'");
    await repairAfterCrash(db.pool, NOW, log);
    const t = (await db.pool.query("select pageviews::int from rollup_daily where value = '/t'")).rows[0];
    expect(t.pageviews).toBe(99);
  });
});
