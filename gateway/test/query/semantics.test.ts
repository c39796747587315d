// POST /api/v2/query against Plausible's documented semantics, case by case, over rows sent through the real
// ingest routes of a real gateway (real PostgreSQL, real DuckDB, real HTTP). The traffic (today 2026-03-15, a
// Sunday, UTC site):
//   V1 chrome  09:00 "/" from Google, 09:10 "/pricing", 09:12 Signup on /pricing  → 1 visit, 2 pv, 720 s
//   V2 firefox 09:00 "/blog/a", 10:00 "/blog/b" (60 min later: a second visit)    → 2 bounced visits
//   V3 iphone  11:00 "/pricing?utm_source=newsletter…", 11:05 "/blog/x"            → 1 visit, 2 pv, 300 s
//   GPTBot     11:30 hit on /blog/a (ai_crawler, counted only when visit:actor opens the actors)
//   yesterday: V4 one pageview "/"; a year ago (2025-03-15): V5 one pageview "/"
// Goals: "Signup" (event) and "Visit /blog/**" (page path).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, UA, post, startHarness } from "../support/harness.ts";
import { bearer, call, createApiKey, loginAsAdmin } from "../support/auth.ts";

const DOMAIN = "q.example";
const TODAY = "2026-03-15";
const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
const IP = { v1: "81.2.69.142", v2: "8.8.8.8", v3: "1.1.1.1", v4: "9.9.9.9", v5: "8.8.4.4" };

let h: Harness;
let auth: Record<string, string>;

async function send(at: string, ua: string, ip: string, path: string, extra: Record<string, unknown> = {}): Promise<void> {
  h.clock.set(at);
  const res = await post(h.base, "/api/event", { d: DOMAIN, u: `https://${DOMAIN}${path}`, ...extra }, { "user-agent": ua, "x-forwarded-for": ip });
  expect(res.status).toBe(202);
}

beforeAll(async () => {
  h = await startHarness({ now: "2025-03-15T12:00:00Z", sites: [DOMAIN] });
  await send("2025-03-15T12:00:00Z", UA.chrome, IP.v5, "/");
  await send("2026-03-14T10:00:00Z", UA.chrome, IP.v4, "/");
  await send(`${TODAY}T09:00:00Z`, UA.chrome, IP.v1, "/", { r: "https://www.google.com/" });
  await send(`${TODAY}T09:00:00Z`, firefox, IP.v2, "/blog/a");
  await send(`${TODAY}T09:10:00Z`, UA.chrome, IP.v1, "/pricing");
  await send(`${TODAY}T09:12:00Z`, UA.chrome, IP.v1, "/pricing", { n: "Signup", p: { plan: "pro" } });
  await send(`${TODAY}T10:00:00Z`, firefox, IP.v2, "/blog/b");
  await send(`${TODAY}T11:00:00Z`, UA.iphone, IP.v3, "/pricing?utm_source=newsletter&utm_medium=email&utm_campaign=launch");
  await send(`${TODAY}T11:05:00Z`, UA.iphone, IP.v3, "/blog/x");
  h.clock.set(`${TODAY}T11:30:00Z`);
  expect((await post(h.base, "/api/hit", { domain: DOMAIN, method: "GET", path: "/blog/a", status: 200, user_agent: UA.gptbot, referrer: null, ip: IP.v2 })).status).toBe(202);
  h.clock.set(`${TODAY}T12:00:00Z`);
  const login = await loginAsAdmin(h.base);
  auth = bearer(login.token);
  const site = (await call(h.base, "GET", "/api/sites", { headers: auth })).json.sites[0].id;
  expect((await post(h.base, `/api/sites/${site}/goals`, { name: "Signup" }, auth)).status).toBe(201);
  const page = await post(h.base, `/api/sites/${site}/goals`, { page_path: "/blog/**" }, auth);
  expect(page.status).toBe(201);
  expect(page.json).toMatchObject({ name: "Visit /blog/**", page_path: "/blog/**" });
});
afterAll(() => h.close());

async function query(body: Record<string, unknown>, headers = auth) {
  const res = await post(h.base, "/api/v2/query", { site_id: DOMAIN, date_range: "day", ...body }, headers);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json as { results: Array<{ dimensions: string[]; metrics: number[]; comparison?: { dimensions: string[]; metrics: number[]; change: number[] } }>; meta: any; query: any };
}
const rows = (r: Awaited<ReturnType<typeof query>>) => r.results.map((x) => [...x.dimensions, ...x.metrics]);

describe("metrics (Plausible's metric definitions)", () => {
  it("visitors, visits, pageviews, events, bounce_rate, visit_duration, views_per_visit, hits", async () => {
    const r = await query({ metrics: ["visitors", "visits", "pageviews", "events", "bounce_rate", "visit_duration", "views_per_visit", "hits"] });
    // 3 visitors, 4 visits (V2's second after 60 min), 6 pageviews, 7 events (pageviews + Signup), 2 of 4 visits
    // bounced, (720 + 0 + 0 + 300) / 4 = 255 s, 6 / 4 = 1.5 pageviews a visit; the crawler's hit is not human.
    expect(rows(r)).toEqual([[3, 4, 6, 7, 50, 255, 1.5, 0]]);
  });

  it("percentage: the share of all visitors of the query, one decimal", async () => {
    const r = await query({ metrics: ["visitors", "percentage"], dimensions: ["visit:source"] });
    expect(rows(r)).toEqual([["Direct / None", 1, 33.3], ["Google", 1, 33.3], ["newsletter", 1, 33.3]]);
  });

  it("conversion_rate over every visitor; events = total conversions; page-path goals with ** wildcards", async () => {
    const r = await query({ metrics: ["visitors", "events", "conversion_rate"], dimensions: ["event:goal"] });
    expect(rows(r)).toEqual([["Visit /blog/**", 2, 3, 66.67], ["Signup", 1, 1, 33.33]]);
  });

  it("GET /goals counts page-path goals too (pageviews of matching pages)", async () => {
    const site = (await call(h.base, "GET", "/api/sites", { headers: auth })).json.sites[0].id;
    const goals = (await call(h.base, "GET", `/api/sites/${site}/goals?days=1`, { headers: auth })).json.goals;
    expect(goals.map((g: any) => [g.name, g.page_path, g.conversions, g.visitors])).toEqual([["Signup", null, 1, 1], ["Visit /blog/**", "/blog/**", 3, 2]]);
    expect((await post(h.base, `/api/sites/${site}/goals`, { name: "X", page_path: "/x" }, auth)).status).toBe(400);
    expect((await post(h.base, `/api/sites/${site}/goals`, { page_path: "no-slash" }, auth)).status).toBe(400);
    expect((await post(h.base, `/api/sites/${site}/goals`, { page_path: "/blog/**" }, auth)).status).toBe(409);
  });

  it("group_conversion_rate divides by the visitors of the same dimension value", async () => {
    const r = await query({ metrics: ["visitors", "group_conversion_rate", "conversion_rate"], dimensions: ["visit:source"], filters: [["is", "event:goal", ["Visit /blog/**"]]] });
    expect(rows(r)).toEqual([["Direct / None", 1, 100, 33.33], ["newsletter", 1, 100, 33.33]]);
  });

  it("visit metrics with a visit filter count the matching visits", async () => {
    const r = await query({ metrics: ["visits", "bounce_rate", "visit_duration", "views_per_visit"], filters: [["is", "visit:source", ["Google"]]] });
    expect(rows(r)).toEqual([[1, 0, 720, 2]]);
  });

  it("visit metrics with an event filter count the visits that had a matching event", async () => {
    const r = await query({ metrics: ["visits", "bounce_rate", "visit_duration"], filters: [["is", "event:page", ["/pricing"]]] });
    expect(rows(r)).toEqual([[2, 0, 510]]);
  });
});

describe("dimensions", () => {
  it("entry and exit pages are the first and last pageview of each visit", async () => {
    expect(rows(await query({ metrics: ["visits"], dimensions: ["visit:entry_page"], order_by: [["visit:entry_page", "asc"]] }))).toEqual([
      ["/", 1], ["/blog/a", 1], ["/blog/b", 1], ["/pricing", 1],
    ]);
    expect(rows(await query({ metrics: ["visits", "bounce_rate"], dimensions: ["visit:exit_page"], order_by: [["visit:exit_page", "asc"]] }))).toEqual([
      ["/blog/a", 1, 100], ["/blog/b", 1, 100], ["/blog/x", 1, 0], ["/pricing", 1, 0],
    ]);
  });

  it("event:page counts rows per page; blank UTM values read (not set); custom properties (none)", async () => {
    expect(rows(await query({ metrics: ["visitors", "pageviews", "events"], dimensions: ["event:page"] }))).toEqual([
      ["/pricing", 2, 2, 3], ["/", 1, 1, 1], ["/blog/a", 1, 1, 1], ["/blog/b", 1, 1, 1], ["/blog/x", 1, 1, 1],
    ]);
    expect(rows(await query({ metrics: ["visitors"], dimensions: ["visit:utm_source"] }))).toEqual([["(not set)", 2], ["newsletter", 1]]);
    expect(rows(await query({ metrics: ["events"], dimensions: ["event:props:plan"] }))).toEqual([["(none)", 6], ["pro", 1]]);
  });

  it("browser and OS versions as the User-Agent gave them at ingest (major.minor); none reads (not set)", async () => {
    const sorted = (r: Awaited<ReturnType<typeof query>>) => rows(r).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(sorted(await query({ metrics: ["visitors", "pageviews"], dimensions: ["visit:browser", "visit:browser_version"] }))).toEqual([
      ["Chrome", "131.0", 1, 2], ["Firefox", "133.0", 1, 2], ["Safari", "17.5", 1, 2],
    ]);
    expect(sorted(await query({ metrics: ["visitors"], dimensions: ["visit:os", "visit:os_version"] }))).toEqual([
      ["iOS", "17.5", 1], ["Linux", "(not set)", 1], ["Windows", "10", 1],
    ]);
    expect(rows(await query({ metrics: ["visitors", "pageviews"], filters: [["is", "visit:browser_version", ["131.0"]]] }))).toEqual([[1, 2]]);
    expect(rows(await query({ metrics: ["visitors", "pageviews"], filters: [["is", "visit:os_version", ["17.5"]], ["is", "visit:os", ["iOS"]]] }))).toEqual([[1, 2]]);
    // A middleware hit stores its User-Agent's versions too (GPTBot's reads as WebKit 537.36, no OS).
    expect(rows(await query({ metrics: ["hits"], dimensions: ["visit:browser_version", "visit:os_version"], filters: [["is", "visit:actor", ["ai_crawler"]]] }))).toEqual([["537.36", "(not set)", 1]]);
  });

  it("visit:actor opens every actor, middleware hits included; event:agent names the crawler with its operator", async () => {
    expect(rows(await query({ metrics: ["visitors", "hits"], dimensions: ["visit:actor"] }))).toEqual([["human", 3, 0], ["ai_crawler", 1, 1]]);
    const agents = await query({ metrics: ["hits"], dimensions: ["event:agent"], filters: [["is", "visit:actor", ["ai_crawler"]]] });
    expect(rows(agents)).toEqual([["GPTBot", 1]]);
    expect(agents.meta.operators).toEqual({ GPTBot: "OpenAI" });
  });

  it("a visit metric with an event dimension is refused, naming the field", async () => {
    const res = await post(h.base, "/api/v2/query", { site_id: DOMAIN, date_range: "day", metrics: ["visitors", "bounce_rate"], dimensions: ["event:page"] }, auth);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatch(/^metrics\[1\]: bounce_rate is a visit metric/);
  });
});

describe("filters: each operator, the case-insensitive modifier, and/or/not", () => {
  const cases: Array<[string, unknown[], number, number]> = [
    ["is", [["is", "event:page", ["/pricing"]]], 2, 2],
    ["is_not", [["is_not", "event:page", ["/pricing"]]], 3, 4],
    ["contains", [["contains", "event:page", ["blog"]]], 2, 3],
    ["contains_not", [["contains_not", "event:page", ["blog"]]], 2, 3],
    ["matches", [["matches", "event:page", ["^/blog/[ab]$"]]], 1, 2],
    ["matches_not", [["matches_not", "event:page", ["^/blog/[ab]$"]]], 2, 4],
    ["is, case-sensitive by default", [["is", "visit:source", ["google"]]], 0, 0],
    ["is, case_sensitive false", [["is", "visit:source", ["google"], { case_sensitive: false }]], 1, 2],
    ["contains, case_sensitive false", [["contains", "event:page", ["PRIC"], { case_sensitive: false }]], 2, 2],
    ["matches, case_sensitive false", [["matches", "event:page", ["^/BLOG/X$"], { case_sensitive: false }]], 1, 1],
    ["several clauses: any matches", [["is", "event:page", ["/", "/blog/x"]]], 2, 2],
    ["or", [["or", [["is", "event:page", ["/"]], ["is", "event:page", ["/blog/x"]]]]], 2, 2],
    ["and (implicit at the top)", [["is", "event:page", ["/pricing"]], ["is", "visit:source", ["Google"]]], 1, 1],
    ["not", [["not", ["is", "visit:source", ["Google"]]]], 2, 4],
    ["a visit dimension filters whole visits", [["is", "visit:entry_page", ["/pricing"]]], 1, 2],
    ["Direct / None is the blank source", [["is", "visit:source", ["Direct / None"]]], 1, 2],
    ["a goal filter keeps the converting rows", [["is", "event:goal", ["Signup"]]], 1, 0],
  ];
  it.each(cases)("%s", async (_name, filters, visitors, pageviews) => {
    expect(rows(await query({ metrics: ["visitors", "pageviews"], filters }))).toEqual([[visitors, pageviews]]);
  });

  // `is` on a stored column compares the column (pushed into the scan), a blank value reading as its label;
  // each answer must equal the same test written as a full-match regular expression, which reads the label.
  const anchored = (clauses: string[]) => clauses.map((c) => `^${c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`);
  const blanks: Array<[string, string, string[]]> = [
    ["the blank source's label", "visit:source", ["Direct / None"]],
    ["the label and a stored value", "visit:source", ["Direct / None", "Google"]],
    ["a stored value only", "visit:source", ["Google"]],
    ["an empty clause matches no stored value", "visit:source", [""]],
    ["the blank UTM source's label", "visit:utm_source", ["(not set)"]],
    ["a label of another dimension is a stored value here", "visit:utm_source", ["Direct / None"]],
    ["the blank country's label", "visit:country", ["(not set)", "US"]],
  ];
  it.each(blanks)("is, %s: as a regular expression does, under not too", async (_name, dimension, clauses) => {
    const metrics = ["visitors", "pageviews", "visits", "bounce_rate"];
    for (const wrap of [(f: unknown) => f, (f: unknown) => ["not", f]]) {
      const plain = await query({ metrics, filters: [wrap(["is", dimension, clauses])] });
      const regex = await query({ metrics, filters: [wrap(["matches", dimension, anchored(clauses)])] });
      expect(rows(plain)).toEqual(rows(regex));
    }
  });
});

describe("the rollups answer what they can, exactly as DuckDB over the rows does", () => {
  // A filter that keeps every row sends the same query to DuckDB.
  const everyRow = ["is_not", "event:page", ["/never-a-page"]];
  it.each([[], ["time:day"], ["event:page"], ["visit:source"], ["visit:country"], ["visit:device"], ["visit:browser"], ["visit:os"], ["visit:channel"]])("dimensions %j", async (...dims) => {
    const body = { metrics: ["visitors", "pageviews", "events", "hits"], date_range: "7d", dimensions: dims, include: { total_rows: true } };
    const rollups = await query(body);
    const duck = await query({ ...body, filters: [everyRow] });
    expect(rollups.results).toEqual(duck.results);
    expect(rollups.meta).toEqual(duck.meta);
    expect(rollups.results.length).toBeGreaterThan(0);
  });
});

describe("ordering, pagination, time labels", () => {
  it("default order: the first metric descending, ties by dimension; order_by overrides; pagination after ordering", async () => {
    expect(rows(await query({ metrics: ["visitors"], dimensions: ["visit:source"], order_by: [["visit:source", "desc"]] }))).toEqual([["newsletter", 1], ["Google", 1], ["Direct / None", 1]]);
    const page = await query({ metrics: ["visitors"], dimensions: ["visit:source"], pagination: { limit: 1, offset: 1 }, include: { total_rows: true } });
    expect(rows(page)).toEqual([["Google", 1]]);
    expect(page.meta.total_rows).toBe(3);
  });

  it("time:hour over a day lists every hour in time_labels; results only where there is data, in time order", async () => {
    const r = await query({ metrics: ["visitors", "pageviews"], dimensions: ["time:hour"], include: { time_labels: true } });
    expect(r.meta.time_labels).toHaveLength(24);
    expect(r.meta.time_labels[0]).toBe(`${TODAY} 00:00:00`);
    expect(rows(r)).toEqual([[`${TODAY} 09:00:00`, 2, 3], [`${TODAY} 10:00:00`, 1, 1], [`${TODAY} 11:00:00`, 1, 2]]);
  });

  it("time picks the grain from the range; weeks start on Monday and never before the range", async () => {
    const r = await query({ metrics: ["visitors"], dimensions: ["time"], date_range: ["2026-03-01", "2026-03-15"], include: { time_labels: true } });
    expect(r.meta.time_labels).toHaveLength(15);
    expect(rows(r)).toEqual([["2026-03-14", 1], ["2026-03-15", 3]]);
    const weeks = await query({ metrics: ["visitors"], dimensions: ["time:week"], date_range: ["2026-03-04", "2026-03-15"], include: { time_labels: true } });
    expect(weeks.meta.time_labels).toEqual(["2026-03-04", "2026-03-09"]);
    expect(rows(weeks)).toEqual([["2026-03-09", 4]]);
  });
});

describe("comparisons", () => {
  it("previous_period: each row beside its counterpart, change in percent (points for rates)", async () => {
    const r = await query({ metrics: ["visitors", "bounce_rate"], include: { comparisons: { mode: "previous_period" } } });
    expect(r.results[0]!.comparison).toEqual({ dimensions: [], metrics: [1, 100], change: [200, -50] });
    expect(r.query.comparison_date_range).toEqual(["2026-03-14T00:00:00+00:00", "2026-03-14T23:59:59+00:00"]);
  });

  it("year_over_year, and a series lists every bucket with the bucket at the same place in the other range", async () => {
    expect((await query({ metrics: ["visitors"], include: { comparisons: { mode: "year_over_year" } } })).results[0]!.comparison).toEqual({ dimensions: [], metrics: [1], change: [200] });
    const series = await query({ metrics: ["visitors"], dimensions: ["time:day"], date_range: "7d", include: { comparisons: { mode: "previous_period" } } });
    expect(series.results.map((x) => [x.dimensions[0], x.metrics[0], x.comparison!.dimensions[0]])).toEqual([
      ["2026-03-09", 0, "2026-03-02"], ["2026-03-10", 0, "2026-03-03"], ["2026-03-11", 0, "2026-03-04"], ["2026-03-12", 0, "2026-03-05"],
      ["2026-03-13", 0, "2026-03-06"], ["2026-03-14", 1, "2026-03-07"], ["2026-03-15", 3, "2026-03-08"],
    ]);
  });

  it("match_day_of_week moves the comparison back to the main range's weekday; custom takes its own dates", async () => {
    const yoy = await query({ metrics: ["visitors"], date_range: "7d", include: { comparisons: { mode: "year_over_year", match_day_of_week: true } } });
    // 2026-03-09 is a Monday; 2025-03-09 a Sunday, so the comparison starts on Monday 2025-03-03.
    expect(yoy.query.comparison_date_range).toEqual(["2025-03-03T00:00:00+00:00", "2025-03-09T23:59:59+00:00"]);
    const custom = await query({ metrics: ["visitors"], include: { comparisons: { mode: "custom", date_range: ["2025-03-15", "2025-03-15"] } } });
    expect(custom.results[0]!.comparison!.metrics).toEqual([1]);
  });
});

describe("credentials and bad input", () => {
  it("a read key works; no credential 401; a wrong one 401; another team's site 403; an unknown site 404", async () => {
    const login = await loginAsAdmin(h.base);
    const key = bearer(await createApiKey(h.base, login.token, "query reader"));
    expect(rows(await query({ metrics: ["visitors"] }, key))).toEqual([[3]]);
    const ask = (body: unknown, headers: Record<string, string>) => post(h.base, "/api/v2/query", body, headers);
    const good = { site_id: DOMAIN, date_range: "day", metrics: ["visitors"] };
    expect((await ask(good, {})).status).toBe(401);
    expect((await ask(good, bearer("svc_live_wrong"))).status).toBe(401);
    await h.pool.query("insert into teams (id, slug, name) values (2, 'other', 'Other') on conflict do nothing");
    await h.pool.query("insert into sites (domain, team_id) values ('other-team.example', 2) on conflict do nothing");
    expect((await ask({ ...good, site_id: "other-team.example" }, auth)).status).toBe(403);
    expect((await ask({ ...good, site_id: "nowhere.example" }, auth)).status).toBe(404);
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ["malformed JSON", "{nope", /malformed JSON/],
    ["not an object", [1, 2], /invalid body/],
    ["unknown field", { date_range: "day", metrics: ["visitors"], extra: 1 }, /invalid body/],
    ["unknown metric", { date_range: "day", metrics: ["visitors", "sessions"] }, /^metrics\[1\]: unknown metric "sessions"/],
    ["metrics wrong type", { date_range: "day", metrics: "visitors" }, /^metrics: must be a non-empty list/],
    ["unknown dimension", { date_range: "day", metrics: ["visitors"], dimensions: ["visit:planet"] }, /^dimensions\[0\]: unknown dimension/],
    ["unknown operator", { date_range: "day", metrics: ["visitors"], filters: [["equals", "event:page", ["/"]]] }, /^filters\[0\]\[0\]: unknown operator/],
    ["time in a filter", { date_range: "day", metrics: ["visitors"], filters: [["is", "time:day", ["2026-03-15"]]] }, /^filters\[0\]\[1\]: time dimensions cannot be filtered/],
    ["a goal with is_not", { date_range: "day", metrics: ["visitors"], filters: [["is_not", "event:goal", ["Signup"]]] }, /^filters\[0\]\[0\]: event:goal takes only/],
    ["a clause that is not a string", { date_range: "day", metrics: ["visitors"], filters: [["is", "event:page", [1]]] }, /^filters\[0\]\[2\]\[0\]: must be a string/],
    ["a bad regular expression", { date_range: "day", metrics: ["visitors"], filters: [["matches", "event:page", ["(unclosed"]]] }, /^filters\[0\]\[2\]\[0\]: not a valid regular expression/],
    ["an unknown modifier", { date_range: "day", metrics: ["visitors"], filters: [["is", "event:page", ["/"], { fuzzy: true }]] }, /^filters\[0\]\[3\]\.fuzzy/],
    ["conversion_rate without a goal", { date_range: "day", metrics: ["conversion_rate"] }, /^metrics\[0\]: conversion_rate needs an event:goal/],
    ["percentage without dimensions", { date_range: "day", metrics: ["percentage"] }, /^metrics\[0\]: percentage needs at least one dimension/],
    ["time_labels without a time dimension", { date_range: "day", metrics: ["visitors"], include: { time_labels: true } }, /^include\.time_labels: needs a time dimension/],
    ["order_by something not asked for", { date_range: "day", metrics: ["visitors"], order_by: [["pageviews", "desc"]] }, /^order_by\[0\]\[0\]/],
    ["a date range shortcut Plausible lacks", { date_range: "fortnight", metrics: ["visitors"] }, /^date_range: must be one of/],
    ["an end before the start", { date_range: ["2026-03-15", "2026-03-01"], metrics: ["visitors"] }, /^date_range: the end is before the start/],
    ["too long a range", { date_range: ["2000-01-01", "2026-03-01"], metrics: ["visitors"] }, /^date_range: spans more than 3660 days/],
    ["too many filters", { date_range: "day", metrics: ["visitors"], filters: Array.from({ length: 21 }, () => ["is", "event:page", ["/"]]) }, /at most 20 filters/],
    ["too many clauses", { date_range: "day", metrics: ["visitors"], filters: [["is", "event:page", Array.from({ length: 101 }, (_, i) => `/${i}`)]] }, /at most 100 values/],
    ["too many dimensions", { date_range: "day", metrics: ["visitors"], dimensions: ["visit:source", "visit:os", "visit:browser", "visit:device", "visit:country", "visit:channel"] }, /^dimensions: at most 5/],
    ["pagination out of range", { date_range: "day", metrics: ["visitors"], pagination: { limit: 0 } }, /^pagination\.limit/],
    ["comparisons custom without dates", { date_range: "day", metrics: ["visitors"], include: { comparisons: { mode: "custom" } } }, /^include\.comparisons\.date_range: is required/],
  ];
  it.each(bad)("400 for %s, naming the field", async (_name, body, message) => {
    const payload = typeof body === "string" || Array.isArray(body) ? body : { site_id: DOMAIN, ...(body as object) };
    const res = await call(h.base, "POST", "/api/v2/query", { body: typeof payload === "string" ? payload : JSON.stringify(payload), headers: { ...auth, "content-type": "application/json" } });
    expect(res.status, JSON.stringify(res.json)).toBe(400);
    expect(res.json.error).toMatch(message);
    if (res.json.error === "invalid body") expect(res.json.details.length).toBeGreaterThan(0);
  });

  it("413 for a body over the limit", async () => {
    const res = await post(h.base, "/api/v2/query", { site_id: DOMAIN, date_range: "day", metrics: ["visitors"], filters: [["is", "event:page", ["x".repeat(70_000)]]] }, auth);
    expect(res.status).toBe(413);
  });
});
