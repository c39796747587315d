// "24h" over real HTTP on a stopped clock: rows stamped at the current instant are the last 24 hours' as
// they are today's, visit metrics included (they read 0 before, and so did the dashboard's "Last 24 hours"
// tiles in its screenshots, while the rollups' visitors and pageviews beside them showed the rows).
import { afterAll, beforeAll, expect, it } from "vitest";
import { bearer, loginAsAdmin } from "../support/auth.ts";
import { type Harness, UA, post, startHarness } from "../support/harness.ts";

const DOMAIN = "last24.example";
let h: Harness;
let auth: Record<string, string>;

beforeAll(async () => {
  h = await startHarness({ now: "2026-11-26T21:26:00.600Z", sites: [DOMAIN] });
  for (const path of ["/", "/pricing", "/docs"]) {
    const res = await post(h.base, "/api/event", { d: DOMAIN, u: `https://${DOMAIN}${path}`, r: "https://news.ycombinator.com/" }, { "user-agent": UA.chrome, "x-forwarded-for": "81.2.69.142" });
    expect(res.status).toBe(202);
  }
  auth = bearer((await loginAsAdmin(h.base)).token);
});
afterAll(() => h.close());

const METRICS = ["visitors", "visits", "pageviews", "views_per_visit", "bounce_rate", "visit_duration"];

async function query(dateRange: string) {
  const res = await post(h.base, "/api/v2/query", { site_id: DOMAIN, date_range: dateRange, metrics: METRICS, include: { comparisons: { mode: "previous_period" } } }, auth);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json as { results: Array<{ metrics: number[] }>; query: { date_range: string[]; comparison_date_range: string[] } };
}

it('counts the rows of this instant in "24h" as in "day"', async () => {
  const day = (await query("day")).results[0]!.metrics;
  expect(day).toEqual([1, 1, 3, 3, 0, 0]);
  expect((await query("24h")).results[0]!.metrics).toEqual(day);
});

it('echoes "24h" as the seconds it covers, ending now, and the 24 hours before it', async () => {
  const { query: echoed } = await query("24h");
  expect(echoed.date_range).toEqual(["2026-11-25T21:26:00+00:00", "2026-11-26T21:26:00+00:00"]);
  expect(echoed.comparison_date_range).toEqual(["2026-11-24T21:26:00+00:00", "2026-11-25T21:26:00+00:00"]);
});
