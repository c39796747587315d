// GET /api/sites/{id}/anomalies over rollup rows written directly (an injected clock pins "now"): a steady
// daily-cycle series with a handful of random zeros gives no flag; a planted 10× crawler hour, a 70 % human drop
// and a newly crawled page each give exactly their flag. Real PostgreSQL, real HTTP.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dailyCycle } from "../../../core/test/fixtures/anomaly-series.ts";
import { bearer, call, createApiKey, loginAsAdmin } from "../support/auth.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { DAY_MS, HOUR_MS } from "@svc/core";

const NOW = "2026-11-20T15:30:00Z";
const CURRENT_HOUR = Date.parse("2026-11-20T15:00:00Z");
const LAST_COMPLETE = CURRENT_HOUR - HOUR_MS;
const TODAY = Date.parse("2026-11-20T00:00:00Z");
// 22 days of history: the 14-day crawler baseline of a 7-day window and three weeks for the human drop.
const START = CURRENT_HOUR - 22 * DAY_MS;

/** Hourly counts with a daily cycle (peak 14:00 UTC), ±10 % noise and `zeros` random zero hours. */
const cycle = (peak: number, trough: number, seed: number, zeros: number) => dailyCycle({ start: START, end: CURRENT_HOUR, peak, trough, seed, zeros });

interface Row {
  bucket: number;
  actor: string;
  dim: string;
  value: string;
  hits?: number;
  visitors?: number;
  pageviews?: number;
}

async function insert(pool: pg.Pool, table: "rollup_hourly" | "rollup_daily", siteId: number, rows: readonly Row[]): Promise<void> {
  await pool.query(
    `insert into ${table} (site_id, bucket, actor, dim, value, pageviews, hits, visitors)
     select $1, b, a, d, v, p, h, vi from unnest($2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::int8[], $7::int8[], $8::int8[]) as t(b, a, d, v, p, h, vi)`,
    [
      siteId,
      rows.map((r) => new Date(r.bucket)),
      rows.map((r) => r.actor),
      rows.map((r) => r.dim),
      rows.map((r) => r.value),
      rows.map((r) => r.pageviews ?? 0),
      rows.map((r) => r.hits ?? 0),
      rows.map((r) => r.visitors ?? 0),
    ],
  );
}

interface SiteSeries {
  crawlers: Map<string, Map<number, number>>;
  humans: Map<number, number>;
  /** page → daily crawler hits (day start → hits); referred: page → daily assistant visitors. */
  crawledPages: Map<string, Map<number, number>>;
  referredPages: Map<string, Map<number, number>>;
}

function steadySite(seed: number): SiteSeries {
  const crawledPages = new Map<string, Map<number, number>>();
  const referredPages = new Map<string, Map<number, number>>();
  for (const page of ["/", "/docs", "/pricing"]) {
    const days = new Map<number, number>();
    const referred = new Map<number, number>();
    for (let d = TODAY - 22 * DAY_MS; d <= TODAY; d += DAY_MS) {
      days.set(d, 30);
      referred.set(d, 2);
    }
    crawledPages.set(page, days);
    referredPages.set(page, referred);
  }
  return {
    crawlers: new Map([["GPTBot", cycle(60, 8, seed, 6)], ["ClaudeBot", cycle(25, 2, seed + 1, 6)]]),
    humans: cycle(120, 15, seed + 2, 6),
    crawledPages,
    referredPages,
  };
}

async function writeSite(pool: pg.Pool, siteId: number, s: SiteSeries): Promise<void> {
  const hourly: Row[] = [];
  for (const [name, series] of s.crawlers) for (const [bucket, hits] of series) if (hits > 0) hourly.push({ bucket, actor: "ai_crawler", dim: "ai_name", value: name, hits });
  for (const [bucket, visitors] of s.humans) hourly.push({ bucket, actor: "human", dim: "total", value: "", visitors, pageviews: visitors * 2 });
  await insert(pool, "rollup_hourly", siteId, hourly);
  const daily: Row[] = [];
  for (const [page, days] of s.crawledPages) for (const [bucket, hits] of days) daily.push({ bucket, actor: "ai_crawler", dim: "page", value: page, hits });
  for (const [page, days] of s.referredPages) for (const [bucket, visitors] of days) daily.push({ bucket, actor: "human_via_ai", dim: "page", value: page, visitors, pageviews: visitors });
  await insert(pool, "rollup_daily", siteId, daily);
}

const CASES: ReadonlyArray<{ domain: string; plant: (s: SiteSeries) => void; kinds: string[] }> = [
  { domain: "steady.example", plant: () => {}, kinds: [] },
  {
    domain: "spike.example",
    plant: (s) => {
      const gpt = s.crawlers.get("GPTBot")!;
      const at = CURRENT_HOUR - 3 * HOUR_MS;
      const baseline = [...Array(14).keys()].map((k) => gpt.get(at - (k + 1) * DAY_MS) ?? 0).sort((a, b) => a - b);
      gpt.set(at, ((baseline[6]! + baseline[7]!) / 2) * 10);
    },
    kinds: ["crawler_spike"],
  },
  {
    domain: "drop.example",
    plant: (s) => {
      for (let i = 0; i < 24; i++) {
        const t = LAST_COMPLETE - i * HOUR_MS;
        s.humans.set(t, Math.round((s.humans.get(t - 7 * DAY_MS) ?? 0) * 0.3));
      }
    },
    kinds: ["human_drop"],
  },
  {
    domain: "newpage.example",
    plant: (s) => {
      s.crawledPages.set("/launch", new Map([[TODAY - DAY_MS, 14], [TODAY, 9]]));
    },
    kinds: ["crawled_never_referred"],
  },
];

let h: Harness;
let key: string;
const ids = new Map<string, number>();
beforeAll(async () => {
  h = await startHarness({ now: NOW, sites: CASES.map((c) => c.domain) });
  const { token } = await loginAsAdmin(h.base);
  key = await createApiKey(h.base, token);
  const { rows } = await h.pool.query<{ id: number; domain: string }>("select id, domain from sites");
  for (const r of rows) ids.set(r.domain, r.id);
  for (const [i, c] of CASES.entries()) {
    const series = steadySite(100 + i);
    c.plant(series);
    await writeSite(h.pool, ids.get(c.domain)!, series);
  }
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const get = (path: string, credential = key) => call(h.base, "GET", path, { headers: bearer(credential) });

describe("GET /api/sites/{id}/anomalies", () => {
  it.each(CASES)("$domain flags exactly $kinds", async ({ domain, kinds }) => {
    const reply = await get(`/api/sites/${domain}/anomalies?days=7`);
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ site_id: ids.get(domain), days: 7, from: "2026-11-14", to: "2026-11-20" });
    expect(reply.json.flags.map((f: any) => f.kind)).toEqual(kinds);
    for (const flag of reply.json.flags) {
      expect(flag.observed.basis).toBe("observed");
      expect(flag.expected.basis).toBe("inferred");
      expect(flag.score.basis).toBe("inferred");
      expect(["low", "medium", "high"]).toContain(flag.severity);
      expect(Date.parse(flag.window.end)).toBeGreaterThan(Date.parse(flag.window.start));
    }
  });

  it("describes each planted case", async () => {
    const spike = (await get("/api/sites/spike.example/anomalies")).json.flags[0];
    expect(spike).toMatchObject({
      subject: "GPTBot",
      window: { start: new Date(CURRENT_HOUR - 3 * HOUR_MS).toISOString(), end: new Date(CURRENT_HOUR - 2 * HOUR_MS).toISOString() },
      severity: "high",
    });
    expect(spike.observed.value / spike.expected.value).toBeCloseTo(10, 5);

    const drop = (await get("/api/sites/drop.example/anomalies")).json.flags[0];
    expect(drop).toMatchObject({ subject: "human", window: { start: new Date(LAST_COMPLETE - 23 * HOUR_MS).toISOString(), end: new Date(CURRENT_HOUR).toISOString() } });
    expect(drop.observed.value / drop.expected.value).toBeGreaterThan(0.25);
    expect(drop.observed.value / drop.expected.value).toBeLessThan(0.35);

    const page = (await get("/api/sites/newpage.example/anomalies")).json.flags[0];
    expect(page).toEqual({
      kind: "crawled_never_referred",
      subject: "/launch",
      window: { start: new Date(TODAY - DAY_MS).toISOString(), end: new Date(CURRENT_HOUR + HOUR_MS).toISOString() },
      observed: { value: 23, basis: "observed" },
      expected: { value: 0, basis: "inferred" },
      score: { value: 23, basis: "inferred" },
      severity: "medium",
    });
  });

  it("a spike outside a 1-day window is not reported there, and days defaults to 7", async () => {
    const reply = await get("/api/sites/spike.example/anomalies?days=1");
    expect(reply.json.flags.map((f: any) => f.kind)).toEqual(["crawler_spike"]);
    expect((await get("/api/sites/spike.example/anomalies")).json.days).toBe(7);
  });

  it("answers from a cache for at most 5 minutes", async () => {
    const first = await get("/api/sites/steady.example/anomalies?days=2");
    expect(first.json.flags).toEqual([]);
    const at = CURRENT_HOUR - HOUR_MS;
    await insert(h.pool, "rollup_hourly", ids.get("steady.example")!, [{ bucket: at, actor: "ai_crawler", dim: "ai_name", value: "Bytespider", hits: 900 }]);
    h.clock.advance(4 * 60_000);
    const cached = await get("/api/sites/steady.example/anomalies?days=2");
    expect(cached.json).toEqual(first.json);
    h.clock.advance(60_000 + 1);
    const fresh = await get("/api/sites/steady.example/anomalies?days=2");
    expect(fresh.json.flags.map((f: any) => [f.kind, f.subject])).toEqual([["crawler_spike", "Bytespider"]]);
    await h.pool.query("delete from rollup_hourly where value = 'Bytespider'");
    h.clock.set(NOW);
  });

  it.each([
    { query: "?days=0", status: 400 },
    { query: "?days=31", status: 400 },
    { query: "?days=abc", status: 400 },
  ])("bad input $query → $status with a JSON error", async ({ query, status }) => {
    const reply = await get(`/api/sites/steady.example/anomalies${query}`);
    expect(reply.status).toBe(status);
    expect(reply.json.error).toBe("invalid query");
    expect(reply.json.details[0].path).toBe("days");
  });

  it("needs a credential and the site's team", async () => {
    expect((await call(h.base, "GET", "/api/sites/steady.example/anomalies")).status).toBe(401);
    expect((await get("/api/sites/unknown.example/anomalies")).status).toBe(404);
  });
});
