// Funnels: random funnels over random rows through GET /api/sites/{id}/funnels/{funnelId}/result, against the
// same funnel recomputed here in plain TypeScript from the raw rows read back from PostgreSQL (visits cut as
// query/rows.ts cuts them, steps matched greedily in order). Two settled days come from their Parquet files,
// today from PostgreSQL. Then the definitions' routes: every refusal a 4xx naming the field, never a 500.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pagePatternRegex } from "../../src/query/sql.ts";
import { bearer, call, createApiKey, loginAsAdmin } from "../support/auth.ts";
import { type Harness, post, startHarness } from "../support/harness.ts";
import { writeDayFiles } from "../support/query-engine.ts";
import { seededRandom } from "../support/seeded-random.ts";

const DOMAIN = "funnel.example";
const DAYS = ["2026-03-13", "2026-03-14", "2026-03-15"];
const NOW = "2026-03-15T18:00:00Z";
const PAGES = ["/", "/pricing", "/signup", "/blog/a", "/blog/b/c", "/done"];
const SOURCES = [null, "Google", "Twitter"];
const COUNTRIES = [null, "DE", "US"];
const ACTORS = ["human", "human", "human", "human_via_ai", "bot"];
const STEPS: readonly Step[] = [
  { page_path: "/" }, { page_path: "/pricing" }, { page_path: "/signup" }, { page_path: "/blog/*" }, { page_path: "/blog/**" },
  { page_path: "/done" }, { goal: "Signup" }, { goal: "Visit /blog/**" },
];
type Step = { readonly page_path: string } | { readonly goal: string };

const rand = seededRandom(23);
const pick = <T,>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;

interface Row { ts: number; name: string; page: string; source: string | null; country: string | null; actor: string; visitor: string; visit?: number }

let h: Harness;
let admin: Record<string, string>;
let reader: Record<string, string>;
let siteId: number;
let rows: Row[] = [];

beforeAll(async () => {
  h = await startHarness({ now: NOW, sites: [DOMAIN, "other.example"] });
  siteId = (await h.pool.query("select id from sites where domain = $1", [DOMAIN])).rows[0].id as number;
  for (const day of DAYS) {
    const start = Date.parse(`${day}T00:00:00Z`);
    for (let v = 0; v < 60; v++) {
      const hash = Buffer.from(Array.from({ length: 32 }, () => Math.floor(rand() * 256)));
      let ts = start + Math.floor(rand() * 17 * 3_600_000);
      const actor = pick(ACTORS);
      for (let i = 1 + Math.floor(rand() * 8); i > 0; i--) {
        // Gaps of 0 to 40 minutes: some visits go on, some end at the 30 minutes; 0 makes ties in time.
        ts += Math.floor(rand() * 41) * 60_000;
        if (ts >= start + 86_400_000 || ts > Date.parse(NOW)) break;
        const name = rand() < 0.85 ? "pageview" : "Signup";
        await h.pool.query(
          `insert into events (site_id, ts, name, page, source, channel, country, device, actor, rule, visitor_hash)
           values ($1, $2, $3, $4, $5, 'Direct', $6, 'Desktop', $7, 'test', $8)`,
          [siteId, new Date(ts), name, pick(PAGES), pick(SOURCES), pick(COUNTRIES), actor, hash],
        );
      }
      // Hits have no visit: they never reach a step.
      if (rand() < 0.2) {
        await h.pool.query(
          "insert into hits (site_id, ts, method, page, status, channel, device, actor, rule, visitor_hash) values ($1, $2, 'GET', '/', 200, 'Direct', 'Desktop', 'human', 'test', $3)",
          [siteId, new Date(Math.min(ts, Date.parse(NOW))), hash],
        );
      }
    }
    await h.pool.query("insert into rollup_daily (site_id, bucket, actor, dim, value, visitors) values ($1, $2, 'all', 'total', '', 1)", [siteId, day]);
  }
  const read = await h.pool.query(`select (extract(epoch from ts) * 1000)::int8 as ts, name, page, source, country, actor,
    encode(substring(visitor_hash from 1 for 8), 'hex') as visitor from events where site_id = $1`, [siteId]);
  rows = read.rows.map((r) => ({ ...r, ts: Number(r.ts) }));
  cutVisits(rows);
  const login = await loginAsAdmin(h.base);
  admin = bearer(login.token);
  reader = bearer(await createApiKey(h.base, login.token, "funnel reader"));
  for (const goal of [{ name: "Signup" }, { page_path: "/blog/**" }]) {
    expect((await call(h.base, "POST", `/api/sites/${siteId}/goals`, { body: goal, headers: admin })).status).toBe(201);
  }
  // The settled days go to Parquet, as the background job writes them.
  expect(await writeDayFiles(h, NOW)).toBe(2);
});
afterAll(() => h.close());

/** Row order within a visitor's day, as rows.ts orders it: time, then page, then name. */
const byTimePageName = (a: Row, b: Row) => a.ts - b.ts || (a.page < b.page ? -1 : a.page > b.page ? 1 : 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

const groupBy = <T, K>(list: readonly T[], key: (t: T) => K): Map<K, T[]> => {
  const out = new Map<K, T[]>();
  for (const t of list) out.set(key(t), [...(out.get(key(t)) ?? []), t]);
  return out;
};

/** Numbers each row's visit: one visitor hash on one UTC day, a new visit after 30 minutes without a row. */
function cutVisits(all: Row[]): void {
  const byVisitorDay = groupBy(all, (r) => `${r.visitor}|${Math.floor(r.ts / 86_400_000)}`);
  let next = 0;
  for (const list of byVisitorDay.values()) {
    list.sort(byTimePageName);
    list.forEach((r, i) => (r.visit = i > 0 && r.ts - list[i - 1]!.ts < 1_800_000 ? list[i - 1]!.visit : next++));
  }
}

const reaches = (r: Row, step: Step): boolean =>
  "page_path" in step
    ? r.name === "pageview" && new RegExp(`^(?:${pagePatternRegex(step.page_path)})$`).test(r.page)
    : step.goal === "Signup" ? r.name === "Signup" : r.name === "pageview" && r.page.startsWith("/blog/");

type Leaf = [op: "is" | "is_not", dim: "visit:source" | "visit:country" | "event:page", clauses: string[]];
const valueOf = (r: Row, dim: Leaf[1]): string => (dim === "visit:source" ? r.source || "Direct / None" : dim === "visit:country" ? r.country || "(not set)" : r.page);

/** The funnel recomputed: the rows in range, of the actors, passing the filters; per visit the steps in order. */
function expected(steps: readonly Step[], actors: readonly string[], filters: Leaf[], from: number, to: number): { visitors: number; steps: number[] } {
  const kept = rows.filter((r) => r.ts >= from && r.ts < to && actors.includes(r.actor) && filters.every(([op, dim, c]) => c.includes(valueOf(r, dim)) === (op === "is")));
  const reached = steps.map(() => new Set<string>());
  for (const visit of groupBy(kept, (r) => r.visit!).values()) {
    visit.sort(byTimePageName);
    let at = 0;
    for (const [k, step] of steps.entries()) {
      const i = visit.findIndex((r, j) => j >= at && reaches(r, step));
      if (i < 0) break;
      reached[k]!.add(visit[0]!.visitor);
      at = i + 1;
    }
  }
  return { visitors: new Set(kept.map((r) => r.visitor)).size, steps: reached.map((s) => s.size) };
}

let made = 0;
async function defineFunnel(steps: readonly Step[]): Promise<number> {
  const reply = await call(h.base, "POST", `/api/sites/${siteId}/funnels`, { body: { name: `funnel ${++made}`, steps }, headers: admin });
  expect(reply.status, JSON.stringify(reply.json)).toBe(201);
  return reply.json.id as number;
}

const result = (funnelId: number | string, query: string, headers = reader) => call(h.base, "GET", `/api/sites/${siteId}/funnels/${funnelId}/result?${query}`, { headers });

describe("random funnels recounted from the raw rows", () => {
  const WINDOWS = [
    { query: "days=3", from: Date.parse("2026-03-13T00:00:00Z"), to: Date.parse("2026-03-16T00:00:00Z"), range: ["2026-03-13", "2026-03-15"] },
    { query: "days=1", from: Date.parse("2026-03-15T00:00:00Z"), to: Date.parse("2026-03-16T00:00:00Z"), range: ["2026-03-15", "2026-03-15"] },
  ];
  const ACTOR_CHOICES = [["human", ["human"]], ["humans", ["human", "human_via_ai"]], ["all", ["human", "human_via_ai", "ai_agent"]]] as const;

  it.each(Array.from({ length: 24 }, (_, i) => i))("funnel %i", async () => {
    const steps = Array.from({ length: 2 + Math.floor(rand() * 4) }, () => pick(STEPS));
    const window = pick(WINDOWS);
    const [actor, actors] = pick(ACTOR_CHOICES);
    const filters: Leaf[] = rand() < 0.5 ? [] : [[pick(["is", "is_not"] as const), pick(["visit:source", "visit:country", "event:page"] as const), [valueOf(pick(rows), pick(["visit:source", "visit:country", "event:page"] as const))]]];
    const id = await defineFunnel(steps);
    const reply = await result(id, `${window.query}&actor=${actor}&filters=${encodeURIComponent(JSON.stringify(filters))}`);
    expect(reply.status, JSON.stringify(reply.json)).toBe(200);
    const want = expected(steps, actors, filters, window.from, window.to);
    const label = JSON.stringify({ steps, actor, filters, window: window.query });
    expect(reply.json.date_range, label).toEqual(window.range);
    expect(reply.json.visitors, label).toBe(want.visitors);
    expect(reply.json.steps.map((s: { visitors: number }) => s.visitors), label).toEqual(want.steps);
    // Conversion and drop-off follow from the counts.
    for (const [i, s] of (reply.json.steps as Array<Record<string, number>>).entries()) {
      const previous = i === 0 ? s["visitors"]! : want.steps[i - 1]!;
      expect(s["dropoff"]).toBe(previous - s["visitors"]!);
      expect(s["step_conversion_rate"]).toBe(previous === 0 ? 0 : Math.round((10_000 * s["visitors"]!) / previous) / 100);
      expect(s["conversion_rate"]).toBe(want.steps[0] === 0 ? 0 : Math.round((10_000 * s["visitors"]!) / want.steps[0]!) / 100);
    }
    // The funnel's population is POST /api/v2/query's visitors for the same range, actors and filters, of
    // script rows (hits, named `hit`, have no visit).
    const query = await post(h.base, "/api/v2/query", {
      site_id: DOMAIN, date_range: window.range, metrics: ["visitors"], filters: [...filters, ["is", "visit:actor", actors], ["is_not", "event:name", ["hit"]]],
    }, reader);
    expect(query.json.results[0].metrics[0], label).toBe(want.visitors);
  });

  it("some funnel of these reaches its last step, so the counts are not all zero", async () => {
    const id = await defineFunnel([{ page_path: "/" }, { page_path: "/**" }]);
    const reply = await result(id, "days=3");
    expect(reply.json.steps[1].visitors).toBeGreaterThan(5);
    expect(reply.json.steps[1].visitors).toBe(expected([{ page_path: "/" }, { page_path: "/**" }], ["human"], [], WINDOWS[0]!.from, WINDOWS[0]!.to).steps[1]);
  });

  it("a step whose goal was deleted matches nobody and says so", async () => {
    const goal = await call(h.base, "POST", `/api/sites/${siteId}/goals`, { body: { name: "Doomed" }, headers: admin });
    const id = await defineFunnel([{ page_path: "/" }, { goal: "Doomed" }]);
    expect((await call(h.base, "DELETE", `/api/sites/${siteId}/goals/${goal.json.id}`, { headers: admin })).status).toBe(204);
    const reply = await result(id, "days=3");
    expect(reply.status).toBe(200);
    expect(reply.json.steps[1]).toMatchObject({ label: "Goal: Doomed", visitors: 0, goal_missing: true, step_conversion_rate: 0 });
  });
});

describe("funnel definitions", () => {
  const path = (rest = "") => `/api/sites/${siteId}/funnels${rest}`;

  it("are created, listed with a read key, renamed, given new steps and deleted", async () => {
    const created = await call(h.base, "POST", path(), { body: { name: "  Checkout  ", steps: [{ page_path: "/pricing" }, { goal: "Signup" }] }, headers: admin });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ site_id: siteId, name: "Checkout", steps: [{ page_path: "/pricing" }, { goal: "Signup" }] });
    const id = created.json.id as number;
    expect((await call(h.base, "GET", path(), { headers: reader })).json.funnels.map((f: { name: string }) => f.name)).toContain("Checkout");
    const patched = await call(h.base, "PATCH", path(`/${id}`), { body: { name: "Checkout 2", steps: [{ page_path: "/" }, { page_path: "/pricing" }, { page_path: "/signup" }] }, headers: admin });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ id, name: "Checkout 2", steps: [{ page_path: "/" }, { page_path: "/pricing" }, { page_path: "/signup" }] });
    expect((await call(h.base, "PATCH", path(`/${id}`), { body: { steps: [{ page_path: "/a" }, { page_path: "/b" }] }, headers: admin })).json.name).toBe("Checkout 2");
    expect((await call(h.base, "DELETE", path(`/${id}`), { headers: admin })).status).toBe(204);
    expect((await call(h.base, "DELETE", path(`/${id}`), { headers: admin })).status).toBe(404);
    expect((await result(id, "days=3")).status).toBe(404);
  });

  it("a name is unique per site: 409, on create and on rename", async () => {
    const a = await call(h.base, "POST", path(), { body: { name: "Twice", steps: [{ page_path: "/" }, { page_path: "/done" }] }, headers: admin });
    expect(a.status).toBe(201);
    const again = await call(h.base, "POST", path(), { body: { name: "Twice", steps: [{ page_path: "/" }, { page_path: "/done" }] }, headers: admin });
    expect(again.status).toBe(409);
    const b = await call(h.base, "POST", path(), { body: { name: "Once", steps: [{ page_path: "/" }, { page_path: "/done" }] }, headers: admin });
    expect((await call(h.base, "PATCH", path(`/${b.json.id}`), { body: { name: "Twice" }, headers: admin })).status).toBe(409);
  });

  const step = { page_path: "/" };
  it.each([
    ["1 step", { name: "x", steps: [step] }, "steps"],
    ["9 steps", { name: "x", steps: Array.from({ length: 9 }, () => step) }, "steps"],
    ["no steps", { name: "x" }, "steps"],
    ["steps not an array", { name: "x", steps: "/,/a" }, "steps"],
    ["a step with both fields", { name: "x", steps: [step, { page_path: "/a", goal: "Signup" }] }, "steps[1]"],
    ["a step with neither", { name: "x", steps: [step, {}] }, "steps[1]"],
    ["a step that is a string", { name: "x", steps: [step, "/a"] }, "steps[1]"],
    ["a page path without its /", { name: "x", steps: [step, { page_path: "pricing" }] }, "steps[1].page_path"],
    ["a page path of 301 characters", { name: "x", steps: [step, { page_path: `/${"a".repeat(300)}` }] }, "steps[1].page_path"],
    ["a page path of a number", { name: "x", steps: [step, { page_path: 5 }] }, "steps[1].page_path"],
    ["a goal the site does not have", { name: "x", steps: [step, { goal: "Nope" }] }, "steps[1].goal"],
    ["an unknown step field", { name: "x", steps: [step, { page: "/a" }] }, "steps[1].page"],
    ["a blank name", { name: "   ", steps: [step, step] }, "name"],
    ["a name of 121 characters", { name: "n".repeat(121), steps: [step, step] }, "name"],
    ["a name with U+0000", { name: "a\u0000b", steps: [step, step] }, "name"],
    ["a numeric name", { name: 7, steps: [step, step] }, "name"],
  ])("POST with %s: 400 naming %s", async (_label, body, field) => {
    const reply = await call(h.base, "POST", path(), { body, headers: admin });
    expect(reply.status, JSON.stringify(reply.json)).toBe(400);
    expect(reply.json.details.map((d: { path: string }) => d.path), JSON.stringify(reply.json)).toContain(field);
  });

  it("PATCH refuses 1 step, a bad step and unknown fields, naming them; an unknown funnel is 404", async () => {
    const id = await defineFunnel([{ page_path: "/" }, { page_path: "/done" }]);
    for (const [body, field] of [[{ steps: [step] }, "steps"], [{ steps: [step, { goal: "Nope" }] }, "steps[1].goal"], [{ colour: "red" }, "colour"], [{ name: null }, "name"]] as const) {
      const reply = await call(h.base, "PATCH", path(`/${id}`), { body, headers: admin });
      expect(reply.status, JSON.stringify(reply.json)).toBe(400);
      expect(reply.json.details.map((d: { path: string }) => d.path)).toContain(field);
    }
    for (const bad of ["999999", "0", "abc", "99999999999", "-1", "1.5"]) {
      expect((await call(h.base, "PATCH", path(`/${bad}`), { body: { name: "y" }, headers: admin })).status).toBe(404);
      expect((await call(h.base, "DELETE", path(`/${bad}`), { headers: admin })).status).toBe(404);
      expect((await result(bad, "days=3")).status).toBe(404);
    }
  });

  it("a funnel of one site is unknown under another site of the team", async () => {
    const id = await defineFunnel([{ page_path: "/" }, { page_path: "/done" }]);
    const other = (await h.pool.query("select id from sites where domain = 'other.example'")).rows[0].id as number;
    expect((await call(h.base, "GET", `/api/sites/${other}/funnels/${id}/result?days=3`, { headers: reader })).status).toBe(404);
    expect((await call(h.base, "DELETE", `/api/sites/${other}/funnels/${id}`, { headers: admin })).status).toBe(404);
    expect((await call(h.base, "PATCH", `/api/sites/${other}/funnels/${id}`, { body: { name: "z" }, headers: admin })).status).toBe(404);
    expect((await call(h.base, "GET", `/api/sites/${other}/funnels`, { headers: reader })).json.funnels).toEqual([]);
  });

  it.each([
    ["filters=nope", "filters"],
    [`filters=${encodeURIComponent("{}")}`, "filters"],
    [`filters=${encodeURIComponent('[["is","visit:city",["x"]]]')}`, "filters[0][1]"],
    [`filters=${encodeURIComponent('[["matches","event:page",["("]]]')}`, "filters[0][2][0]"],
    [`filters=${encodeURIComponent('[["is","event:page","x"]]')}`, "filters[0][2]"],
    [`filters=${"x".repeat(16_385)}`, "filters"],
    ["days=0", "days"],
    ["days=400", "days"],
    ["actor=robot", "actor"],
    ["hours=49", "hours"],
  ])("the result with %.40s…: 400 naming %s", async (query, field) => {
    const id = await defineFunnel([{ page_path: "/" }, { page_path: "/done" }]);
    const reply = await result(id, query);
    expect(reply.status, JSON.stringify(reply.json)).toBe(400);
    expect(reply.json.details.map((d: { path: string }) => d.path), JSON.stringify(reply.json)).toContain(field);
  });

  it("the result of an hours window and of a filtered view answer", async () => {
    const id = await defineFunnel([{ page_path: "/" }, { page_path: "/**" }]);
    const hours = await result(id, "hours=24&actor=all");
    expect(hours.status, JSON.stringify(hours.json)).toBe(200);
    expect(hours.json).toMatchObject({ hours: 24, actor: "all", date_range: ["2026-03-14T19:00:00.000Z", "2026-03-15T18:59:59.000Z"] });
  });
});
