// Shared links over real HTTP on a real PostgreSQL: made, listed and revoked by an admin; read by nobody in
// particular with the token alone; a password traded for an access key (and refused, and rate-limited); the
// link's actor and filters applied and never removable by the viewer; live streams restricted, fanned out from
// one hub subscription, ended within seconds of a revocation; and no token in any log line.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, call, createApiKey, loginAsAdmin } from "./support/auth.ts";
import { type Harness, UA, post, startHarness } from "./support/harness.ts";
import { subscribe } from "./support/sse.ts";

let h: Harness;
let admin: Record<string, string>;
let readKey: Record<string, string>;
const SITE = "shared.example";
/** A site whose days are New York's (UTC−5 in November). */
const ZONED = "zoned.shared.example";
/** A site in a half-hour zone (Asia/Kolkata, UTC+5:30), whose local midnight is no UTC hour. */
const HALF_HOUR = "kolkata.shared.example";
/** A site with AI traffic on two pages, for a filtered link's AI panel and counter. */
const AI_SITE = "ai.shared.example";
const tokens: string[] = [];

async function share(body: Record<string, unknown> = {}, site = SITE): Promise<{ id: number; token: string; url: string }> {
  const reply = await call(h.base, "POST", `/api/sites/${site}/shares`, { body, headers: admin });
  expect(reply.status, JSON.stringify(reply.json)).toBe(201);
  tokens.push(reply.json.token);
  return reply.json;
}
const get = (path: string) => call(h.base, "GET", path);
const visit = (path: string, ua: string, referrer = "", site = SITE) =>
  post(h.base, "/api/event", { d: site, u: `https://${site}${path}`, r: referrer }, { "user-agent": ua }).then((r) => expect(r.status).toBe(202));
const person = (n: number) => UA.chrome.replace("Chrome/131.0.0.0", `Chrome/131.0.${n}.0`);

beforeAll(async () => {
  h = await startHarness({ sites: [SITE, ZONED, AI_SITE, HALF_HOUR], env: { SVC_PUBLIC_URL: "https://stats.example.org" } });
  const { token } = await loginAsAdmin(h.base);
  admin = bearer(await createApiKey(h.base, token, "admin", "admin"));
  readKey = bearer(await createApiKey(h.base, token, "read"));
  await visit("/", person(1), "https://www.google.com/");
  await visit("/pricing", person(2), "https://www.google.com/");
  await visit("/", person(3), "https://news.ycombinator.com/");
  expect((await post(h.base, "/api/hit", { domain: SITE, method: "GET", path: "/", status: 200, user_agent: UA.gptbot, referrer: null, ip: "192.0.2.7" })).status).toBe(202);
  // A custom event and two goals, for the filtered link's goals card.
  expect((await post(h.base, "/api/event", { d: SITE, n: "Signup", u: `https://${SITE}/pricing`, r: "https://www.google.com/" }, { "user-agent": person(2) })).status).toBe(202);
  for (const goal of [{ name: "Signup" }, { page_path: "/pricing" }]) expect((await call(h.base, "POST", `/api/sites/${SITE}/goals`, { body: goal, headers: admin })).status).toBe(201);
});
afterAll(async () => {
  await h?.close();
});

describe("the owner's side", () => {
  it("makes a link with an unguessable token, stored only as its hash, and lists it without the token", async () => {
    const made = await share({ frame_origins: ["https://Blog.example.com"] });
    expect(made.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(made.url).toBe(`https://stats.example.org/share/${made.token}`);
    expect(made).toMatchObject({ password_protected: false, actor: null, filters: [], frame_origins: ["https://blog.example.com"] });
    const stored = (await h.pool.query("select * from shares where id = $1", [made.id])).rows[0];
    expect(JSON.stringify(stored)).not.toContain(made.token);
    const list = await call(h.base, "GET", `/api/sites/${SITE}/shares`, { headers: admin });
    expect(list.json.shares.map((s: { id: number }) => s.id)).toContain(made.id);
    expect(JSON.stringify(list.json)).not.toContain(made.token);
    expect((await call(h.base, "GET", `/api/sites/${SITE}/shares`, { headers: readKey })).status).toBe(403);
  });

  it.each([
    ["a filter that is not an array", { filters: ["is"] }],
    ["an unknown operator", { filters: [["equals", "visit:source", ["Google"]]] }],
    ["an unknown dimension", { filters: [["is", "visit:planet", ["Mars"]]] }],
    ["values that are not strings", { filters: [["is", "visit:source", [1]]] }],
    ["no values", { filters: [["is", "visit:source", []]] }],
    ["a bad regular expression", { filters: [["matches", "event:page", ["("]]] }],
    ["a bad modifier", { filters: [["is", "visit:source", ["Google"], { case: false }]] }],
    ["an empty and", { filters: [["and", []]] }],
    ["a time dimension", { filters: [["is", "time:day", ["2026-01-01"]]] }],
    ["a pattern RE2 refuses (a lookahead)", { filters: [["matches", "event:page", ["^/(?=pricing)"]]] }],
    ["an operator the engine does not support", { filters: [["has_done", "event:goal", ["Signup"]]] }],
    ["a goal filter with is_not", { filters: [["is_not", "event:goal", ["Signup"]]] }],
    ["more than 20 filter leaves", { filters: Array.from({ length: 21 }, () => ["is", "visit:source", ["Google"]]) }],
    ["an unknown actor", { actor: "robot" }],
    ["a frame origin with a path", { frame_origins: ["https://example.com/embed"] }],
    ["a short password", { password: "short" }],
  ])("refuses %s with a 400 naming the field", async (_label, body) => {
    const reply = await call(h.base, "POST", `/api/sites/${SITE}/shares`, { body, headers: admin });
    expect(reply.status, JSON.stringify(reply.json)).toBe(400);
    expect(reply.json.details[0].path.split("[")[0]).toBe(Object.keys(body)[0]);
  });

  it("accepts Plausible's filter forms: modifiers, and / or / not", async () => {
    const filters = [["and", [["contains", "event:page", ["pric"], { case_sensitive: false }], ["not", ["is", "visit:country", ["FR"]]]]], ["or", [["matches", "visit:source", ["^Goo"]]]]];
    const made = await share({ filters });
    expect(made).toMatchObject({ filters });
  });
});

describe("the viewer's side", () => {
  it("reads the site's numbers with the token alone, the same numbers the owner reads", async () => {
    const { token } = await share();
    const info = await get(`/api/share/${token}`);
    expect(info.json).toEqual({ password_required: false, site: { domain: SITE, name: null, time_zone: "UTC" }, actor: null, filters: [], frame_origins: [] });
    for (const path of ["/stats?days=1", "/breakdown?field=source&days=1", "/goals?days=1", "/ai?days=1"]) {
      const shared = await get(`/api/share/${token}${path}`);
      const owner = await call(h.base, "GET", `/api/sites/${SITE}${path}`, { headers: readKey });
      expect(shared.status, path).toBe(200);
      expect(shared.json, path).toEqual(owner.json);
    }
    expect((await get(`/api/share/${token}/stats?days=1`)).json.current).toMatchObject({ visitors: 3, pageviews: 3 });
  });

  it("answers an unknown, malformed or revoked token with the same 404", async () => {
    const { id, token } = await share();
    expect((await call(h.base, "DELETE", `/api/sites/${SITE}/shares/${id}`, { headers: admin })).status).toBe(204);
    for (const t of [token, "x".repeat(43), "short", "a".repeat(44)]) {
      const reply = await get(`/api/share/${t}/stats`);
      expect(reply.status, t).toBe(404);
      expect(reply.json.error).toBe("unknown or revoked shared link");
    }
    expect((await call(h.base, "DELETE", `/api/sites/${SITE}/shares/${id}`, { headers: admin })).status).toBe(404);
  });

  it("needs the password: refuses reads and a wrong password, trades the right one for an access key", async () => {
    const { id, token } = await share({ password: "correct horse" });
    expect((await get(`/api/share/${token}`)).json).toEqual({ password_required: true, frame_origins: [] });
    expect((await get(`/api/share/${token}/stats`)).status).toBe(401);
    expect((await get(`/api/share/${token}/live`)).status).toBe(401);
    const wrong = await post(h.base, `/api/share/${token}/unlock`, { password: "wrong horse" });
    expect(wrong.status).toBe(401);
    expect(wrong.json.error).toBe("wrong password");
    const right = await post(h.base, `/api/share/${token}/unlock`, { password: "correct horse" });
    expect(right.status).toBe(200);
    const { access } = right.json;
    expect((await get(`/api/share/${token}/stats?days=1&access=${access}`)).status).toBe(200);
    expect((await get(`/api/share/${token}?access=${access}`)).json.password_required).toBe(false);
    // Another link's key, a forged one and an expired one open nothing.
    const tampered = access.slice(0, -2) + (access.endsWith("AA") ? "BB" : "AA");
    expect((await get(`/api/share/${token}/stats?access=${tampered}`)).status).toBe(401);
    h.clock.advance(12 * 3_600_000 + 1);
    expect((await get(`/api/share/${token}/stats?access=${access}`)).status).toBe(401);
    h.clock.advance(-(12 * 3_600_000 + 1));
    const stored = (await h.pool.query("select password_hash from shares where id = $1", [id])).rows[0].password_hash;
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(stored).not.toContain("correct horse");
  });

  it("limits password attempts like login: per client a minute, then per link with growing waits", async () => {
    const { token } = await share({ password: "correct horse" });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await post(h.base, `/api/share/${token}/unlock`, { password: `guess ${i}` })).status);
    // The earlier test spent 2 of this client's 10 a minute; after 5 wrong in a row the link makes each wait.
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual(Array(7).fill(429));
    const limited = await post(h.base, `/api/share/${token}/unlock`, { password: "correct horse" });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    h.clock.advance(61_000); // the client's window and the link's wait both pass
    expect((await post(h.base, `/api/share/${token}/unlock`, { password: "correct horse" })).status).toBe(200);
  });

  it("keeps the link's actor: other actors are refused, the AI panel too", async () => {
    const { token } = await share({ actor: "ai_crawler" });
    const stats = await get(`/api/share/${token}/stats?days=1`);
    expect(stats.json).toMatchObject({ actor: "ai_crawler", current: { hits: 1 } });
    expect((await get(`/api/share/${token}/stats?days=1&actor=ai_crawler`)).status).toBe(200);
    for (const actor of ["human", "all", "bot"]) {
      const reply = await get(`/api/share/${token}/stats?days=1&actor=${actor}`);
      expect(reply.status, actor).toBe(403);
      expect(reply.json.error).toBe("this shared link shows only actor ai_crawler");
    }
    expect((await get(`/api/share/${token}/ai`)).status).toBe(403);
  });

  // The engine's answer for the link's filters (the default actor, human, is the link's default too).
  const query = async (body: Record<string, unknown>) => {
    const reply = await call(h.base, "POST", "/api/v2/query", { body: { site_id: SITE, ...body }, headers: readKey });
    expect(reply.status, JSON.stringify(reply.json)).toBe(200);
    return reply.json.results as Array<{ dimensions: string[]; metrics: number[] }>;
  };
  const today = () => new Date().toISOString().slice(0, 10);
  const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const METRICS = ["visitors", "pageviews", "events", "hits"];
  const asCounts = (m: number[] = [0, 0, 0, 0]) => ({ visitors: m[0], pageviews: m[1], events: m[2]! - m[1]!, hits: m[3] });

  it.each([
    // Label, filters, visitors, goal conversions (Signup and Visit /pricing, both by the second Google visitor).
    ["a source", [["is", "visit:source", ["Google"]]], 2, 2],
    ["a negated source, case-insensitive", [["is_not", "visit:source", ["google"], { case_sensitive: false }]], 1, 0],
    ["a page and a country together", [["and", [["contains", "event:page", ["pric"]], ["not", ["is", "visit:country", ["FR"]]]]]], 1, 2],
  ])("applies the link's filters (%s) to stats, breakdowns and goals: the numbers of /api/v2/query with the same filters", async (_label, filters, visitors, converted) => {
    const { token } = await share({ filters });
    const stats = await get(`/api/share/${token}/stats?days=1`);
    expect(stats.status, JSON.stringify(stats.json)).toBe(200);
    const [now] = await query({ date_range: [today(), today()], metrics: METRICS, filters });
    const [before] = await query({ date_range: [yesterday(), yesterday()], metrics: METRICS, filters });
    expect(stats.json.current).toMatchObject(asCounts(now!.metrics));
    expect(stats.json.current.visitors).toBe(visitors);
    expect(stats.json.previous.totals).toMatchObject(asCounts(before?.metrics));
    // The series: each hour's counts are the engine's for that hour, and today's pageviews all land in it.
    const hours = await query({ date_range: [today(), today()], metrics: METRICS, filters, dimensions: ["time:hour"] });
    const sum = (k: "pageviews" | "hits") => stats.json.series.reduce((n: number, p: Record<string, number>) => n + p[k]!, 0);
    expect(sum("pageviews")).toBe(stats.json.current.pageviews);
    for (const h of hours) {
      const point = stats.json.series.find((p: { bucket: string }) => p.bucket === `${h.dimensions[0]!.replace(" ", "T")}.000Z`);
      expect(point, h.dimensions[0]).toMatchObject(asCounts(h.metrics));
    }

    for (const [field, dimension] of [["page", "event:page"], ["source", "visit:source"], ["event", "event:name"]] as const) {
      const shared = await get(`/api/share/${token}/breakdown?field=${field}&days=1`);
      expect(shared.status, field).toBe(200);
      const rows = await query({ date_range: [today(), today()], metrics: METRICS, filters, dimensions: [dimension], order_by: [["visitors", "desc"], ["pageviews", "desc"]] });
      expect(rows.length, field).toBeGreaterThan(0);
      expect(shared.json.rows.map((r: { value: string; visitors: number }) => [r.value, r.visitors]), field).toEqual(rows.map((r) => [r.dimensions[0], r.metrics[0]]));
    }

    const goals = await get(`/api/share/${token}/goals?days=1`);
    expect(goals.status).toBe(200);
    const conversions = new Map((await query({ date_range: [today(), today()], metrics: ["visitors", "events"], filters, dimensions: ["event:goal"] })).map((r) => [r.dimensions[0], r.metrics]));
    expect(goals.json.goals.length).toBe(2);
    for (const g of goals.json.goals) {
      const [v, e] = conversions.get(g.name) ?? [0, 0];
      expect({ name: g.name, visitors: g.visitors, conversions: g.conversions }).toEqual({ name: g.name, visitors: v, conversions: e });
    }
    expect(goals.json.goals.map((g: { conversions: number }) => g.conversions).reduce((a: number, b: number) => a + b)).toBe(converted);
  });

  it("the viewer cannot remove or widen the link's filters; the reads that cannot be filtered are refused", async () => {
    const filters = [["is", "visit:source", ["Google"]]];
    const { token } = await share({ filters });
    const stats = (await get(`/api/share/${token}/stats?days=1`)).json;
    for (const extra of ["filters=%5B%5D", "filters=", "filter=visit:source%3D%3DHacker%20News"]) {
      // Unknown query parameters are ignored: the answer is the filtered one.
      const tried = await get(`/api/share/${token}/stats?days=1&${extra}`);
      expect(tried.status, extra).toBe(200);
      expect(tried.json.current, extra).toEqual(stats.current);
      const sources = await get(`/api/share/${token}/breakdown?field=source&days=1&${extra}`);
      expect(sources.json.rows.map((r: { value: string }) => r.value), extra).toEqual(["Google"]);
    }
    expect(stats.current.visitors).toBe(2);
    // The bot rule is no column of the engine's rows: that one breakdown is refused.
    const rule = await get(`/api/share/${token}/breakdown?field=rule&days=1&actor=all`);
    expect(rule.status).toBe(409);
    expect(rule.json.error).toMatch(/cannot be limited to this shared link's fixed filters/);
  });
});

describe("POST /api/share/{token}/query (the shared view's explorer)", () => {
  const ask = (token: string, body: Record<string, unknown>) => call(h.base, "POST", `/api/share/${token}/query`, { body: { site_id: SITE, date_range: "day", ...body } });
  const owner = async (body: Record<string, unknown>) => {
    const reply = await call(h.base, "POST", "/api/v2/query", { body: { site_id: SITE, date_range: "day", ...body }, headers: readKey });
    expect(reply.status, JSON.stringify(reply.json)).toBe(200);
    return reply.json.results;
  };

  it("answers inside the link's filters, narrowed by the viewer's own: the owner's numbers for both filters together", async () => {
    const google = [["is", "visit:source", ["Google"]]];
    const { token } = await share({ filters: google });
    const body = { metrics: ["visitors", "visits", "bounce_rate"], dimensions: ["visit:entry_page"] };
    const reply = await ask(token, body);
    expect(reply.status, JSON.stringify(reply.json)).toBe(200);
    expect(reply.json.results).toEqual(await owner({ ...body, filters: google }));
    // The viewer's filter "and" the link's: Hacker News inside a Google link is nothing, never Hacker News.
    const widened = await ask(token, { metrics: ["visitors"], filters: [["is", "visit:source", ["Hacker News"]]] });
    expect(widened.status).toBe(200);
    expect(widened.json.results).toEqual(await owner({ metrics: ["visitors"], filters: [...google, ["is", "visit:source", ["Hacker News"]]] }));
    // An unfiltered link answers as the owner's query API does.
    const open = await share();
    expect((await ask(open.token, body)).json.results).toEqual(await owner(body));
  });

  it("keeps the link's actor, and its site; a bad body is a 400 naming the viewer's field; a password is needed first", async () => {
    const crawlers = await share({ actor: "ai_crawler" });
    const asHumans = await ask(crawlers.token, { metrics: ["visitors", "hits"], filters: [["is", "visit:actor", ["human"]]] });
    expect(asHumans.status).toBe(200);
    expect(asHumans.json.results[0]?.metrics ?? [0, 0]).toEqual([0, 0]);
    expect((await ask(crawlers.token, { metrics: ["hits"] })).json.results).toEqual(await owner({ metrics: ["hits"], filters: [["is", "visit:actor", ["ai_crawler"]]] }));
    const other = await call(h.base, "POST", `/api/share/${crawlers.token}/query`, { body: { site_id: ZONED, date_range: "day", metrics: ["visitors"] } });
    expect(other.status).toBe(403);
    const { token } = await share({ filters: [["is", "visit:source", ["Google"]]] });
    const bad = await ask(token, { metrics: ["visitors"], filters: [["near", "event:page", ["/"]]] });
    expect(bad.status).toBe(400);
    expect(bad.json.details).toEqual([expect.objectContaining({ path: "filters[0][0]" })]);
    const locked = await share({ password: "open sesame" });
    expect((await ask(locked.token, { metrics: ["visitors"] })).status).toBe(401);
  });
});

describe("a filtered link's AI panel and counter", () => {
  const hit = (path: string, ua: string, status = 200) =>
    post(h.base, "/api/hit", { domain: AI_SITE, method: "GET", path, status, user_agent: ua, referrer: null, ip: "192.0.2.7" }).then((r) => expect(r.status).toBe(202));
  const filters = [["is", "event:page", ["/pricing"]]];
  const query = async (body: Record<string, unknown>) => {
    const reply = await call(h.base, "POST", "/api/v2/query", { body: { site_id: AI_SITE, ...body }, headers: readKey });
    expect(reply.status, JSON.stringify(reply.json)).toBe(200);
    return reply.json.results as Array<{ dimensions: string[]; metrics: number[] }>;
  };
  const today = () => new Date(h.clock.now()).toISOString().slice(0, 10);

  beforeAll(async () => {
    await visit("/", person(70), "", AI_SITE);
    await visit("/pricing", person(71), "https://chatgpt.com/", AI_SITE);
    await visit("/", person(72), "https://chatgpt.com/", AI_SITE);
    await hit("/pricing", UA.gptbot);
    await hit("/pricing", UA.gptbot);
    await hit("/", UA.gptbot);
    await hit("/pricing", UA.claudebot);
    await hit("/pricing", UA.chatgptUser, 404);
    await hit("/", UA.chatgptUser);
  });

  it("the AI panel counts the segment's rows: the query API's numbers for the link's filters", async () => {
    const { token } = await share({ filters }, AI_SITE);
    const ai = await get(`/api/share/${token}/ai?days=1`);
    expect(ai.status, JSON.stringify(ai.json)).toBe(200);
    const range = { date_range: [today(), today()] };
    const actorFilter = (actor: string) => [...filters, ["is", "visit:actor", [actor]]];
    const assistants = await query({ ...range, metrics: ["visitors", "pageviews"], filters: actorFilter("human_via_ai"), dimensions: ["visit:assistant"] });
    const crawlers = await query({ ...range, metrics: ["hits"], filters: actorFilter("ai_crawler"), dimensions: ["event:agent"], order_by: [["hits", "desc"]] });
    const agents = await query({ ...range, metrics: ["hits", "pageviews", "visitors"], filters: actorFilter("ai_agent"), dimensions: ["event:agent"] });
    expect(ai.json.assistants.rows.map((r: { name: string; visitors: number }) => [r.name, r.visitors])).toEqual(assistants.map((r) => [r.dimensions[0], r.metrics[0]]));
    expect(ai.json.assistants.visitors).toBe(1);
    expect(ai.json.crawlers.rows.map((r: { name: string; hits: number }) => [r.name, r.hits])).toEqual(crawlers.map((r) => [r.dimensions[0], r.metrics[0]]));
    expect(ai.json.crawlers.hits).toBe(3);
    expect(ai.json.agents.rows.map((r: { name: string; fetches: number }) => [r.name, r.fetches])).toEqual(agents.map((r) => [r.dimensions[0], r.metrics[0]! + r.metrics[1]!]));
    expect(ai.json.agents.fetches).toBe(1);
    // Only the link's page: crawled 3 times, one visitor referred by an assistant; "/" is not in the segment.
    expect(ai.json.crawl_to_referral).toEqual([{ page: "/pricing", crawled: 3, referred: 1, referred_pageviews: 1, never_referred: false }]);
    expect(ai.json.agent_tasks).toMatchObject({ fetches: 1, status: null, error_share: { value: null }, top_paths: [{ page: "/pricing", fetches: 1 }] });
    // The same link without filters: the owner's panel, status classes included.
    const whole = await share({}, AI_SITE);
    expect((await get(`/api/share/${whole.token}/ai?days=1`)).json).toEqual((await call(h.base, "GET", `/api/sites/${AI_SITE}/ai?days=1`, { headers: readKey })).json);
  });

  it("the counter counts the visitors with a row of the segment in the last 5 minutes, from one hub subscription", async () => {
    const { token } = await share({ filters }, AI_SITE);
    const before = h.gateway.live.stats.subscribers;
    const counters = Array.from({ length: 5 }, () => subscribe(`${h.base}/api/share/${token}/counter/live`, {}));
    await Promise.all(counters.map((c) => c.opened));
    expect(counters.map((c) => c.status)).toEqual([200, 200, 200, 200, 200]);
    const latest = (c: (typeof counters)[number]) => c.events.filter((e) => e.event === "count").at(-1)?.data.visitors;
    await expect.poll(() => counters.every((c) => latest(c) !== undefined), { timeout: 5000 }).toBe(true);
    expect(h.gateway.live.stats.subscribers - before).toBe(1);
    // People (human and human_via_ai) with a /pricing row in the last 5 minutes: the query API's number.
    const now = h.clock.now();
    const recent = async () => (await query({ date_range: [new Date(now - 300_000).toISOString(), new Date(now).toISOString()], metrics: ["visitors"], filters: [...filters, ["is", "visit:actor", ["human", "human_via_ai"]]] }))[0]?.metrics[0] ?? 0;
    const first = await recent();
    expect(first).toBe(1);
    expect(latest(counters[0]!)).toBe(first);
    // A visit outside the segment changes nothing; one inside it counts within about a second (one engine count a second at most).
    await visit("/", person(80), "", AI_SITE);
    await visit("/pricing", person(81), "", AI_SITE);
    const acked = Date.now();
    await expect.poll(() => counters.every((c) => latest(c) === first + 1), { timeout: 5000 }).toBe(true);
    expect(await recent()).toBe(first + 1);
    for (const c of counters) {
      expect(c.events.find((e) => e.event === "count" && e.data.visitors === first + 1)!.receivedAt - acked).toBeLessThan(2500);
      expect(c.events.filter((e) => e.event === "count").every((e) => e.data.visitors <= first + 1)).toBe(true);
    }
    for (const c of counters) c.close();
    await expect.poll(() => h.gateway.live.stats.subscribers, { timeout: 3000 }).toBe(before);
  });
});

describe("live", () => {
  it("streams the link's actor only; revoking ends the stream within seconds", async () => {
    const { id, token } = await share({ actor: "human" });
    const s = subscribe(`${h.base}/api/share/${token}/live`, {});
    await s.opened;
    expect(s.status).toBe(200);
    await expect.poll(() => s.events.find((e) => e.event === "snapshot"), { timeout: 5000 }).toBeTruthy();
    const snapshot = s.events.find((e) => e.event === "snapshot")!.data;
    expect(Object.keys(snapshot.totals)).toEqual(["human"]);
    expect(Object.keys(snapshot.visitors_last_5_minutes)).toEqual(["human"]);
    await visit("/live", person(9));
    expect((await post(h.base, "/api/hit", { domain: SITE, method: "GET", path: "/live", status: 200, user_agent: UA.gptbot, referrer: null, ip: "192.0.2.7" })).status).toBe(202);
    await expect.poll(() => s.events.filter((e) => e.event === "delta").length, { timeout: 3000 }).toBeGreaterThan(0);
    for (const delta of s.events.filter((e) => e.event === "delta")) {
      expect(Object.keys(delta.data.totals).every((a) => a === "human")).toBe(true);
      expect(delta.data.dimensions.every((d: { actor: string }) => d.actor === "human")).toBe(true);
    }
    const deleted = Date.now();
    expect((await call(h.base, "DELETE", `/api/sites/${SITE}/shares/${id}`, { headers: admin })).status).toBe(204);
    await expect.poll(() => s.events.find((e) => e.event === "revoked"), { timeout: 3000 }).toBeTruthy();
    expect(s.events.find((e) => e.event === "revoked")!.receivedAt - deleted).toBeLessThan(2000);
    s.close();
  });

  it("sends a filtered link bare ticks: a snapshot and deltas without totals, visitors now or dimension values", async () => {
    const { token } = await share({ filters: [["is", "visit:source", ["Google"]]] });
    const s = subscribe(`${h.base}/api/share/${token}/live`, {});
    await s.opened;
    expect(s.status).toBe(200);
    await expect.poll(() => s.events.find((e) => e.event === "snapshot"), { timeout: 5000 }).toBeTruthy();
    const snapshot = s.events.find((e) => e.event === "snapshot")!.data;
    expect(snapshot.totals).toEqual({});
    expect(snapshot.visitors_last_5_minutes).toEqual({});
    await visit("/ticks", person(11), "https://news.ycombinator.com/");
    await expect.poll(() => s.events.filter((e) => e.event === "delta").length, { timeout: 3000 }).toBeGreaterThan(0);
    for (const delta of s.events.filter((e) => e.event === "delta")) {
      expect(delta.data.totals).toEqual({});
      expect(delta.data.dimensions ?? []).toEqual([]);
    }
    s.close();
  });

  it("ends the streams of a link deleted behind this gateway's back (another gateway, the CLI) within 2 s", async () => {
    const { id, token } = await share();
    const s = subscribe(`${h.base}/api/share/${token}/counter/live`, {});
    await s.opened;
    await h.pool.query("delete from shares where id = $1", [id]);
    const deleted = Date.now();
    await expect.poll(() => s.events.find((e) => e.event === "revoked"), { timeout: 5000 }).toBeTruthy();
    expect(s.events.find((e) => e.event === "revoked")!.receivedAt - deleted).toBeLessThan(3000);
    s.close();
  });

  it("counts visitors now for every counter from one hub subscription, ticking within 1 s of an event", async () => {
    const { token } = await share();
    const before = h.gateway.live.stats.subscribers;
    const counters = Array.from({ length: 25 }, () => subscribe(`${h.base}/api/share/${token}/counter/live`, {}));
    await Promise.all(counters.map((c) => c.opened));
    await expect.poll(() => counters.every((c) => c.events.some((e) => e.event === "count")), { timeout: 5000 }).toBe(true);
    expect(h.gateway.live.stats.subscribers - before).toBe(1);
    const first = counters[0]!.events.find((e) => e.event === "count")!.data.visitors;
    await visit("/counter", person(42));
    const acked = Date.now();
    await expect.poll(() => counters.every((c) => c.events.some((e) => e.event === "count" && e.data.visitors === first + 1)), { timeout: 3000 }).toBe(true);
    for (const c of counters) expect(c.events.find((e) => e.event === "count" && e.data.visitors === first + 1)!.receivedAt - acked).toBeLessThan(1000);
    for (const c of counters) c.close();
    await expect.poll(() => h.gateway.live.stats.subscribers, { timeout: 3000 }).toBe(before);
  });
});

describe("the site's time zone", () => {
  it("a shared view's days are the site's local days, as on the owner's view", async () => {
    expect((await call(h.base, "PATCH", `/api/sites/${ZONED}`, { body: { time_zone: "America/New_York" }, headers: admin })).status).toBe(200);
    const started = h.clock.now();
    try {
      // 22:00 on the 19th in New York (the 20th in UTC), then 01:00 on the 20th there.
      h.clock.set("2026-11-20T03:00:00Z");
      await visit("/late", person(60), "", ZONED);
      h.clock.set("2026-11-20T06:00:00Z");
      await visit("/early", person(61), "", ZONED);
      const { token } = await share({}, ZONED);
      for (const path of ["/stats?days=1", "/stats?days=7", "/stats?hours=24", "/breakdown?field=page&days=1", "/breakdown?field=page&days=7", "/goals?days=1", "/ai?days=1"]) {
        const shared = await get(`/api/share/${token}${path}`);
        const owner = await call(h.base, "GET", `/api/sites/${ZONED}${path}`, { headers: readKey });
        expect(shared.status, path).toBe(200);
        expect(shared.json, path).toEqual(owner.json);
      }
      // Today in New York holds only the visit after its midnight; in UTC both visits would be today's.
      const today = (await get(`/api/share/${token}/stats?days=1`)).json;
      expect(today).toMatchObject({ from: "2026-11-20", to: "2026-11-20", time_zone: "America/New_York", current: { visitors: 1 }, previous: { from: "2026-11-19", to: "2026-11-19", totals: { visitors: 1 } } });
      expect((await get(`/api/share/${token}/breakdown?field=page&days=1`)).json.rows.map((r: { value: string }) => r.value)).toEqual(["/early"]);
    } finally {
      h.clock.set(started);
    }
  });
});

describe("a filtered link in a half-hour zone", () => {
  it("reads the site's local days exactly: totals, previous window and each day of the series are the query API's", async () => {
    expect((await call(h.base, "PATCH", `/api/sites/${HALF_HOUR}`, { body: { time_zone: "Asia/Kolkata" }, headers: admin })).status).toBe(200);
    const started = h.clock.now();
    try {
      // 23:40 on the 14th in Kolkata (the window before), two at 23:50 on the 19th, one at 00:10 on the 20th.
      for (const [at, n] of [["2026-11-14T18:10:00Z", 90], ["2026-11-19T18:20:00Z", 91], ["2026-11-19T18:20:00Z", 92], ["2026-11-19T18:40:00Z", 93]] as const) {
        h.clock.set(at);
        await visit("/edge", person(n), "", HALF_HOUR);
      }
      h.clock.set("2026-11-21T06:00:00Z"); // 11:30 on the 21st there
      const filters = [["contains", "event:page", ["edge"]]];
      const { token } = await share({ filters }, HALF_HOUR);
      const stats = (await get(`/api/share/${token}/stats?days=7`)).json;
      expect(stats).toMatchObject({ from: "2026-11-15", to: "2026-11-21", time_zone: "Asia/Kolkata" });
      const ask = async (body: Record<string, unknown>) =>
        (await call(h.base, "POST", "/api/v2/query", { body: { site_id: HALF_HOUR, metrics: ["visitors"], filters, ...body }, headers: readKey })).json.results as Array<{ dimensions: string[]; metrics: number[] }>;
      const [now] = await ask({ date_range: ["2026-11-15", "2026-11-21"] });
      const [before] = await ask({ date_range: ["2026-11-08", "2026-11-14"] });
      expect([stats.current.visitors, stats.previous.totals.visitors]).toEqual([now!.metrics[0], before!.metrics[0]]);
      expect([stats.current.visitors, stats.previous.totals.visitors]).toEqual([3, 1]);
      const days = new Map((await ask({ date_range: ["2026-11-15", "2026-11-21"], dimensions: ["time:day"] })).map((r) => [r.dimensions[0], r.metrics[0]]));
      const shown = stats.series.map((p: { visitors: number }, i: number) => [`2026-11-${15 + i}`, p.visitors]);
      expect(shown).toEqual(["15", "16", "17", "18", "19", "20", "21"].map((d) => [`2026-11-${d}`, days.get(`2026-11-${d}`) ?? 0]));
      expect(Object.fromEntries(shown)).toMatchObject({ "2026-11-19": 2, "2026-11-20": 1 });
    } finally {
      h.clock.set(started);
    }
  });

  it("buckets an hours window's series by UTC hour, as the owner's rollups do, not by the zone's half-hour-off local hours", async () => {
    const started = h.clock.now();
    try {
      // 15:50 and 16:10 in Kolkata: both in the UTC hour 10:00, in two local hours there.
      for (const [at, n] of [["2026-11-23T10:20:00Z", 94], ["2026-11-23T10:20:00Z", 95], ["2026-11-23T10:40:00Z", 96]] as const) {
        h.clock.set(at);
        await visit("/hourly", person(n), "", HALF_HOUR);
      }
      h.clock.set("2026-11-23T12:05:00Z");
      const { token } = await share({ filters: [["contains", "event:page", ["hourly"]]] }, HALF_HOUR);
      const shared = (await get(`/api/share/${token}/stats?hours=24`)).json;
      const owner = (await call(h.base, "GET", `/api/sites/${HALF_HOUR}/stats?hours=24`, { headers: readKey })).json;
      const visitors = (series: Array<{ visitors: number }>) => series.map((p) => p.visitors);
      expect(visitors(shared.series)).toEqual(visitors(owner.series));
      expect(visitors(shared.series).filter((v) => v > 0)).toEqual([3]);
    } finally {
      h.clock.set(started);
    }
  });
});

describe("privacy", () => {
  it("never writes a token (or an access key) to a log line", () => {
    expect(tokens.length).toBeGreaterThan(5);
    const logs = h.logs.join("\n");
    for (const token of tokens) expect(logs).not.toContain(token);
    expect(logs).toContain("shared link created");
  });
});
