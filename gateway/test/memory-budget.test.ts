// The memory budget of a site's day over real HTTP and PostgreSQL: a site under it is counted exactly; a
// random-IP flood of /api/hit past it keeps the actor's visitor state at the budget, counts the visitors it
// no longer remembers as new (marked inferred in /healthz, with a log line), folds new values into
// `(other)`, and keeps all that across a clean restart. Small budgets keep the requests few.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigInvalid, loadConfig } from "../src/config.ts";
import { DEFAULT_VALUE_BUDGET, DEFAULT_VISITOR_BUDGET, OTHER_VALUE } from "../src/lanes/state-budget.ts";
import { bearer, call, loginAsAdmin } from "./support/auth.ts";
import { type Harness, UA, post, startHarness } from "./support/harness.ts";
import { recomputedRollups, storedRollups } from "./support/recompute.ts";

const VISITORS = 40;
const VALUES = 10;
let h: Harness;
let auth: Record<string, string>;
const siteIds: Record<string, number> = {};

beforeAll(async () => {
  h = await startHarness({ sites: ["small.example", "flooded.example"], env: { SVC_VISITOR_BUDGET: String(VISITORS), SVC_VALUE_BUDGET: String(VALUES) } });
  for (const r of (await h.pool.query("select id, domain from sites")).rows) siteIds[r.domain] = r.id;
  auth = bearer((await loginAsAdmin(h.base)).token);
});
afterAll(async () => {
  await h?.close();
});

/** One /api/hit request per entry: [client IP, path], as a flood of one-row visitors sends them. */
async function hits(domain: string, rows: ReadonlyArray<readonly [ip: string, path: string]>): Promise<void> {
  for (let i = 0; i < rows.length; i += 20) {
    const replies = await Promise.all(
      rows.slice(i, i + 20).map(([ip, path]) => post(h.base, "/api/hit", [{ domain, method: "GET", path, status: 200, user_agent: UA.gptbot, referrer: null, ip }])),
    );
    for (const r of replies) expect(r.status).toBe(202);
  }
  await h.gateway.rollups.flushBeforeRead();
}

const ip = (i: number) => `81.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

async function daily(domain: string, dim: string): Promise<Map<string, { hits: number; visitors: number }>> {
  const { rows } = await h.pool.query("select value, hits, visitors from rollup_daily where site_id = $1 and actor = 'ai_crawler' and dim = $2", [siteIds[domain], dim]);
  return new Map(rows.map((r) => [r.value as string, { hits: Number(r.hits), visitors: Number(r.visitors) }]));
}

async function overBudget(): Promise<Array<Record<string, unknown>>> {
  const health = await call(h.base, "GET", "/healthz", { headers: auth });
  expect(health.status).toBe(200);
  return health.json.lanes.over_budget;
}

describe("configuration", () => {
  it("defaults to 250,000 visitors and 20,000 values a dimension, and refuses a budget of 0", () => {
    expect(loadConfig({}).stateBudget).toEqual({ visitors: DEFAULT_VISITOR_BUDGET, values: DEFAULT_VALUE_BUDGET });
    expect(DEFAULT_VISITOR_BUDGET).toBe(250_000);
    expect(DEFAULT_VALUE_BUDGET).toBe(20_000);
    expect(() => loadConfig({ SVC_VISITOR_BUDGET: "0", SVC_VALUE_BUDGET: "x" })).toThrow(ConfigInvalid);
    try {
      loadConfig({ SVC_VISITOR_BUDGET: "0", SVC_VALUE_BUDGET: "x" });
    } catch (error) {
      expect((error as ConfigInvalid).problems).toEqual([
        `SVC_VISITOR_BUDGET="0" is invalid: expected an integer 1..100000000 (visitors of one site's day)`,
        `SVC_VALUE_BUDGET="x" is invalid: expected an integer 1..10000000 (distinct values of one dimension of one site's day)`,
      ]);
    }
  });
});

describe("a site under its budget", () => {
  it("is counted exactly, and /healthz lists no site past its budget", async () => {
    // 30 visitors (< 40), 8 pages (< 10), each visitor seen twice.
    const rows = Array.from({ length: 60 }, (_, i) => [ip(1000 + (i % 30)), `/page/${i % 8}`] as const);
    await hits("small.example", rows);
    for (const grain of ["day", "hour"] as const) {
      expect(await storedRollups(h.pool, siteIds["small.example"]!, grain)).toEqual(await recomputedRollups(h.pool, siteIds["small.example"]!, grain));
    }
    expect((await daily("small.example", "total")).get("")).toEqual({ hits: 60, visitors: 30 });
    expect(await overBudget()).toEqual([]);
    const stats = await call(h.base, "GET", `/api/sites/${siteIds["small.example"]}/stats?days=1`, { headers: auth });
    expect(stats.status).toBe(200);
    expect(stats.json.visitors_basis).toBeUndefined();
    expect(stats.json.current.views_per_visitor.basis).toBe("observed");
  });
});

describe("a random-IP flood past the budget", () => {
  it("holds the budget's visitors, infers the rest, folds new pages into (other), says so, and keeps it across a restart", async () => {
    // 120 one-row visitors on 120 pages, then the first 10 visitors again on their own pages.
    const flood = Array.from({ length: 120 }, (_, i) => [ip(i), `/random/${i}`] as const);
    await hits("flooded.example", [...flood, ...flood.slice(0, 10)]);

    const actor = h.gateway.lanes.find(siteIds["flooded.example"]!)!;
    expect(actor.visitorsToday).toBe(VISITORS);
    // Every visitor past the budget counted once per row (here: exact, one row each); the 10 remembered
    // visitors seen again are not counted twice.
    expect((await daily("flooded.example", "total")).get("")).toEqual({ hits: 130, visitors: 120 });
    const pages = await daily("flooded.example", "page");
    expect(pages.size).toBe(VALUES + 1);
    expect(pages.get(OTHER_VALUE)).toEqual({ hits: 110, visitors: 110 });
    for (let i = 0; i < VALUES; i++) expect(pages.get(`/random/${i}`)).toEqual({ hits: 2, visitors: 1 });
    // The raw rows keep every page: only the rollups fold.
    expect((await h.pool.query("select count(distinct page)::int as n from hits where site_id = $1", [siteIds["flooded.example"]])).rows[0].n).toBe(120);

    expect(await overBudget()).toEqual([
      { site: siteIds["flooded.example"], visitors: VISITORS, visitors_inferred: true, inferred_rows: 80, folded_values: 110 },
    ]);
    // The read API marks the day's visitors inferred.
    const stats = await call(h.base, "GET", `/api/sites/${siteIds["flooded.example"]}/stats?days=1&actor=ai_crawler`, { headers: auth });
    expect(stats.status).toBe(200);
    expect(stats.json).toMatchObject({ visitors_basis: "inferred", visitors_inferred_days: [new Date(h.clock.now()).toISOString().slice(0, 10)] });
    expect(stats.json.current).toMatchObject({ visitors: 120, hits: 130, views_per_visitor: { basis: "inferred" } });
    const warnings = h.logs.filter((l) => l.includes("past its memory budget"));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ site: siteIds["flooded.example"], visitor_budget: VISITORS, value_budget: VALUES });

    // A clean restart keeps the budget: the saved state holds 40 visitors and the flood goes on past it.
    await h.restart();
    await hits("flooded.example", Array.from({ length: 30 }, (_, i) => [ip(500 + i), `/more/${i}`] as const));
    expect(h.gateway.lanes.find(siteIds["flooded.example"]!)!.visitorsToday).toBe(VISITORS);
    expect((await daily("flooded.example", "total")).get("")).toEqual({ hits: 160, visitors: 150 });
    expect((await daily("flooded.example", "page")).get(OTHER_VALUE)).toEqual({ hits: 140, visitors: 140 });
    expect(await overBudget()).toMatchObject([{ site: siteIds["flooded.example"], visitors: VISITORS, visitors_inferred: true, inferred_rows: 30 }]);
  });
});
