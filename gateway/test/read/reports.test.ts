// Exact numbers of the read routes over the known fixture (fixture.ts), through real HTTP with an API key:
// stats for several windows and actors, every breakdown field, the AI panel and goal conversions per actor.
// Each response is also decoded with the Schema the OpenAPI document is generated from.
import { Schema } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AiResponse, BreakdownResponse, PropKeysResponse, StatsResponse } from "../../src/api-schema/read.ts";
import { GoalsReport } from "../../src/api-schema/sites.ts";
import { bearer, call, createApiKey, loginAsAdmin } from "../support/auth.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { recomputedRollups, storedRollups } from "../support/recompute.ts";
import { FIXTURE_DOMAIN, TODAY, YESTERDAY, ingestFixture } from "./fixture.ts";

let h: Harness;
let auth: Record<string, string>;
let siteId: number;

const get = async (path: string, schema: Schema.Top) => {
  const reply = await call(h.base, "GET", path, { headers: auth });
  expect(reply.status, JSON.stringify(reply.json)).toBe(200);
  Schema.decodeUnknownSync(schema as Schema.Codec<unknown>)(reply.json);
  return reply.json;
};

beforeAll(async () => {
  h = await startHarness({ now: `${YESTERDAY}T09:00:00Z`, env: { SVC_TRUST_PROXY: "1" }, sites: [FIXTURE_DOMAIN] });
  await ingestFixture(h);
  const { token } = await loginAsAdmin(h.base);
  // An admin key: the goal tests below create and delete goals.
  auth = bearer(await createApiKey(h.base, token, "reports", "admin"));
  siteId = (await h.pool.query("select id from sites where domain = $1", [FIXTURE_DOMAIN])).rows[0].id;
});
afterAll(async () => {
  await h?.close();
});

const obs = (value: number | null) => ({ value, basis: "observed" });
const zero = { visitors: 0, pageviews: 0, events: 0, hits: 0 };

describe("the fixture's rollups", () => {
  it("equal a recomputation from the raw rows (so the routes below read exact rollups)", async () => {
    await h.gateway.rollups.flushBeforeRead();
    expect(await storedRollups(h.pool, siteId, "day")).toEqual(await recomputedRollups(h.pool, siteId, "day"));
    expect(await storedRollups(h.pool, siteId, "hour")).toEqual(await recomputedRollups(h.pool, siteId, "hour"));
  });
});

describe("GET /stats", () => {
  it("30 days for humans (the default): totals, empty previous window, daily zero-filled series", async () => {
    const s = await get(`/api/sites/${siteId}/stats`, StatsResponse);
    expect(s).toMatchObject({ site_id: siteId, actor: "human", days: 30, from: "2026-02-14", to: TODAY, granularity: "day" });
    expect(s.current).toEqual({ visitors: 4, pageviews: 6, events: 3, hits: 0, views_per_visitor: obs(1.5) });
    expect(s.previous).toEqual({ from: "2026-01-15", to: "2026-02-13", totals: { ...zero, views_per_visitor: obs(null) } });
    expect(s.change).toEqual({ visitors: obs(null), pageviews: obs(null), events: obs(null), hits: obs(null), views_per_visitor: obs(null) });
    expect(s.series).toHaveLength(30);
    expect(s.series[0]).toEqual({ bucket: "2026-02-14T00:00:00.000Z", ...zero });
    expect(s.series[28]).toEqual({ bucket: `${YESTERDAY}T00:00:00.000Z`, visitors: 2, pageviews: 2, events: 1, hits: 0 });
    expect(s.series[29]).toEqual({ bucket: `${TODAY}T00:00:00.000Z`, visitors: 2, pageviews: 4, events: 2, hits: 0 });
  });

  it("days=1 is today against yesterday, hourly through the current hour; the site's domain works as {id}", async () => {
    const s = await get(`/api/sites/${FIXTURE_DOMAIN}/stats?days=1`, StatsResponse);
    expect(s).toMatchObject({ days: 1, from: TODAY, to: TODAY, granularity: "hour" });
    expect(s.current).toEqual({ visitors: 2, pageviews: 4, events: 2, hits: 0, views_per_visitor: obs(2) });
    expect(s.previous.totals).toEqual({ visitors: 2, pageviews: 2, events: 1, hits: 0, views_per_visitor: obs(1) });
    expect(s.change).toEqual({ visitors: obs(0), pageviews: obs(1), events: obs(1), hits: obs(null), views_per_visitor: obs(1) });
    expect(s.series).toHaveLength(13); // 00:00 … 12:00
    expect(s.series.filter((p: any) => p.pageviews + p.events > 0)).toEqual([{ bucket: `${TODAY}T09:00:00.000Z`, visitors: 2, pageviews: 4, events: 2, hits: 0 }]);
  });

  it("days=2 is hourly over both days", async () => {
    const s = await get(`/api/sites/${siteId}/stats?days=2`, StatsResponse);
    expect(s.series).toHaveLength(24 + 13);
    expect(s.series[10]).toEqual({ bucket: `${YESTERDAY}T10:00:00.000Z`, visitors: 2, pageviews: 2, events: 1, hits: 0 });
  });

  it.each([
    ["human_via_ai", { visitors: 3, pageviews: 3, events: 1, hits: 0 }, 1],
    ["ai_crawler", { visitors: 2, pageviews: 0, events: 1, hits: 5 }, 0],
    ["ai_agent", { visitors: 2, pageviews: 1, events: 0, hits: 4 }, 0.5],
    ["bot", { visitors: 1, pageviews: 0, events: 0, hits: 1 }, 0],
  ] as const)("actor=%s counts only that actor", async (actor, counts, vpv) => {
    const s = await get(`/api/sites/${siteId}/stats?days=1&actor=${actor}`, StatsResponse);
    expect(s.current).toEqual({ ...counts, views_per_visitor: obs(vpv) });
  });

  it("actor=all counts every actor, visitors distinct over people and agents (crawlers and bots as hits only), so its ratios are observed", async () => {
    const s = await get(`/api/sites/${siteId}/stats?days=1&actor=all`, StatsResponse);
    // 10 visitor hashes today; the 2 AI crawlers' and the bot's are hits there, not visitors.
    expect(s.current).toEqual({ visitors: 7, pageviews: 8, events: 4, hits: 10, views_per_visitor: obs(1.1429) });
  });

  it("actor=humans sums human and human_via_ai, its visitors an upper bound (inferred)", async () => {
    const s = await get(`/api/sites/${siteId}/stats?days=1&actor=humans`, StatsResponse);
    expect(s).toMatchObject({ actor: "humans", visitors_basis: "inferred" });
    expect(s.current).toEqual({ visitors: 5, pageviews: 7, events: 3, hits: 0, views_per_visitor: { value: 1.4, basis: "inferred" } });
  });
});

describe("GET /breakdown (humans, 30 days)", () => {
  const row = (value: string, visitors: number, pageviews: number, label = value) => ({ value, label, visitors, pageviews, hits: 0 });
  it.each([
    ["page", [row("/", 3, 3), row("/pricing", 2, 2), row("/blog/a", 1, 1)]],
    // Visits: every page of a visit counts under its entry's source (Google today: "/" then "/pricing").
    ["source", [row("Google", 2, 3), row("newsletter", 1, 2), row("", 1, 1, "Direct / None")]],
    ["channel", [row("search", 2, 3), row("email", 1, 2), row("direct", 1, 1)]],
    // A visitors and pageviews tie: US has more other events (2 against 1).
    ["country", [row("US", 2, 3), row("GB", 2, 3)]],
    ["device", [row("desktop", 3, 4), row("mobile", 1, 2)]],
    ["browser", [row("Chrome", 2, 3), row("Safari", 1, 2), row("Firefox", 1, 1)]],
    ["os", [row("Windows", 2, 3), row("iOS", 1, 2), row("Linux", 1, 1)]],
    ["utm_source", [row("newsletter", 1, 2)]],
    ["utm_medium", [row("email", 1, 2)]],
    ["utm_campaign", [row("launch", 1, 2)]],
    [
      "event",
      [
        { value: "pageview", label: "pageview", visitors: 4, events: 6, hits: 0 },
        { value: "Signup", label: "Signup", visitors: 2, events: 2, hits: 0 },
        { value: "Outbound Link", label: "Outbound Link", visitors: 1, events: 1, hits: 0 },
      ],
    ],
  ] as const)("field=%s", async (field, rows) => {
    const b = await get(`/api/sites/${siteId}/breakdown?field=${field}`, BreakdownResponse);
    expect(b).toMatchObject({ site_id: siteId, actor: "human", days: 30, field });
    expect(b.rows).toEqual(rows);
  });

  it("limit cuts the list; another actor and window give that actor's rows", async () => {
    const b = await get(`/api/sites/${siteId}/breakdown?field=page&limit=1`, BreakdownResponse);
    expect(b.rows.map((r: any) => r.value)).toEqual(["/"]);
    const crawled = await get(`/api/sites/${siteId}/breakdown?field=page&actor=ai_crawler&days=1`, BreakdownResponse);
    expect(crawled.rows).toEqual([
      { value: "/blog/b", label: "/blog/b", visitors: 2, pageviews: 0, hits: 3 },
      { value: "/blog/a", label: "/blog/a", visitors: 1, pageviews: 0, hits: 1 },
      { value: "/docs", label: "/docs", visitors: 1, pageviews: 0, hits: 1 },
      // Only GPTBot's Signup event: a custom event on a page makes no visitor of it.
      { value: "/pricing", label: "/pricing", visitors: 0, pageviews: 0, hits: 0 },
    ]);
  });
});

describe("GET /breakdown?field=rule (what was not counted as human, and why)", () => {
  const rule = (value: string, label: string, visitors: number, pageviews: number, hits: number) => ({ value, label, visitors, pageviews, hits });
  it("lists the classifier's rule and matched name for bot, ai_crawler and ai_agent rows (actor all by default)", async () => {
    const b = await get(`/api/sites/${siteId}/breakdown?field=rule`, BreakdownResponse);
    expect(b).toMatchObject({ actor: "all", field: "rule" });
    expect(b.rows).toEqual([
      rule("headless_marker:HeadlessChrome", "headless browser marker HeadlessChrome (crawler-user-agents)", 1, 1, 0),
      rule("ai_agent_token:ChatGPT-User", "user agent token ChatGPT-User (ai.robots.txt)", 1, 0, 4),
      // Under `all`, crawlers and bots are hits, not visitors: ranked by their other counts (3 hits + GPTBot's Signup event).
      rule("ai_crawler_token:GPTBot", "user agent token GPTBot (ai.robots.txt)", 0, 0, 3),
      rule("ai_crawler_token:ClaudeBot", "user agent token ClaudeBot (device-detector)", 0, 0, 2),
      rule("generic_bot", "generic bot pattern (isbot)", 0, 0, 1),
    ]);
  });

  it("one actor's rules with actor=; humans have none", async () => {
    const crawlers = await get(`/api/sites/${siteId}/breakdown?field=rule&actor=ai_crawler&days=1`, BreakdownResponse);
    expect(crawlers.rows.map((r: any) => r.value)).toEqual(["ai_crawler_token:GPTBot", "ai_crawler_token:ClaudeBot"]);
    const humans = await get(`/api/sites/${siteId}/breakdown?field=rule&actor=human`, BreakdownResponse);
    expect(humans.rows).toEqual([]);
  });
});

describe("GET /ai", () => {
  it("assistants, crawlers with operators, agents, crawl-to-referral and agent task metrics", async () => {
    const ai = await get(`/api/sites/${siteId}/ai`, AiResponse);
    expect(ai).toEqual({
      site_id: siteId,
      days: 30,
      from: "2026-02-14",
      to: TODAY,
      assistants: {
        visitors: 3,
        pageviews: 3,
        rows: [
          { name: "ChatGPT", operator: "OpenAI", visitors: 2, pageviews: 2 },
          { name: "Perplexity", operator: "Perplexity", visitors: 1, pageviews: 1 },
        ],
      },
      crawlers: {
        hits: 5,
        rows: [
          { name: "GPTBot", operator: "OpenAI", hits: 3 },
          { name: "ClaudeBot", operator: "Anthropic", hits: 2 },
        ],
      },
      agents: {
        fetches: 5,
        rows: [
          { name: "ChatGPT-User", operator: "OpenAI", fetches: 4, visitors: 1 },
          { name: "HeadlessChrome", operator: "Google (Chrome headless mode)", fetches: 1, visitors: 1 },
        ],
      },
      crawl_to_referral: [
        { page: "/blog/b", crawled: 3, referred: 0, referred_pageviews: 0, never_referred: true },
        { page: "/docs", crawled: 1, referred: 2, referred_pageviews: 2, never_referred: false },
        { page: "/blog/a", crawled: 1, referred: 1, referred_pageviews: 1, never_referred: false },
      ],
      agent_tasks: {
        fetches: 5,
        status: { "2xx": 1, "3xx": 0, "4xx": 2, "5xx": 1 },
        error_share: obs(0.75),
        top_paths: [
          { page: "/docs", fetches: 2 },
          { page: "/missing", fetches: 2 },
          { page: "/pricing", fetches: 1 },
        ],
      },
    });
  });

  it("ignores actor, honours limit, and is empty for a window before the traffic", async () => {
    const limited = await get(`/api/sites/${siteId}/ai?limit=1&actor=bot`, AiResponse);
    expect(limited.crawlers.rows).toEqual([{ name: "GPTBot", operator: "OpenAI", hits: 3 }]);
    expect(limited.crawl_to_referral).toHaveLength(1);
    h.clock.set("2026-06-01T00:00:00Z");
    try {
      const later = await get(`/api/sites/${siteId}/ai?days=7`, AiResponse);
      expect(later.crawlers).toEqual({ hits: 0, rows: [] });
      expect(later.agent_tasks.error_share).toEqual(obs(null));
    } finally {
      h.clock.set(`${TODAY}T12:30:00Z`);
    }
  });
});

describe("GET /ai?filters= (a view's filters) and GET /props", () => {
  const docs = [["is", "event:page", ["/docs"]]];
  it("the panel narrowed by filters is the query engine's, equal to a shared link's with the same fixed filters", async () => {
    const filtered = await get(`/api/sites/${siteId}/ai?filters=${encodeURIComponent(JSON.stringify(docs))}`, AiResponse);
    // /docs only: the two assistant visitors who landed there, the one crawler hit; statuses unknown to the engine.
    expect(filtered.crawl_to_referral).toEqual([{ page: "/docs", crawled: 1, referred: 2, referred_pageviews: 2, never_referred: false }]);
    expect(filtered.assistants.visitors).toBe(2);
    expect(filtered.agent_tasks.status).toBeNull();
    const link = await call(h.base, "POST", `/api/sites/${siteId}/shares`, { body: { filters: docs }, headers: auth });
    expect(link.status, JSON.stringify(link.json)).toBe(201);
    const shared = await call(h.base, "GET", `/api/share/${link.json.token}/ai`);
    expect(shared.status).toBe(200);
    expect(shared.json).toEqual(filtered);
    // No filters, or an empty list: the rollups' panel, statuses and all.
    expect((await get(`/api/sites/${siteId}/ai?filters=%5B%5D`, AiResponse)).agent_tasks.status).toEqual({ "2xx": 1, "3xx": 0, "4xx": 2, "5xx": 1 });
  });

  it.each([
    ["not JSON", "nope", "filters"],
    ["not an array", encodeURIComponent('{"is":1}'), "filters"],
    ["an unknown dimension", encodeURIComponent('[["is","visit:nope",["x"]]]'), "filters[0][1]"],
    ["a bad operator", encodeURIComponent('[["near","event:page",["/docs"]]]'), "filters[0][0]"],
  ])("filters that are %s: a 400 naming the field", async (_name, value, path) => {
    const reply = await call(h.base, "GET", `/api/sites/${siteId}/ai?filters=${value}`, { headers: auth });
    expect(reply.status, JSON.stringify(reply.json)).toBe(400);
    expect(reply.json.details).toEqual([expect.objectContaining({ path })]);
  });

  it("the window's property names, the most used first; none before the traffic", async () => {
    expect(await get(`/api/sites/${siteId}/props`, PropKeysResponse)).toEqual({ site_id: siteId, keys: [{ key: "url", events: 1 }] });
    h.clock.set("2026-06-01T00:00:00Z");
    try {
      expect((await get(`/api/sites/${siteId}/props?days=7`, PropKeysResponse)).keys).toEqual([]);
    } finally {
      h.clock.set(`${TODAY}T12:30:00Z`);
    }
  });
});

describe("settled days (read from the in-memory cache of past days' sums)", () => {
  const at = async <T>(iso: string, run: () => Promise<T>): Promise<T> => {
    h.clock.set(iso);
    try {
      return await run();
    } finally {
      h.clock.set(`${TODAY}T12:30:00Z`);
    }
  };
  const strip = ({ days: _d, from: _f, to: _t, ...rest }: any) => rest;

  it.each(["2026-03-16T00:10:00Z", "2026-03-16T08:00:00Z", "2026-03-18T08:00:00Z"])("give the same breakdowns and AI panel at %s (part or all of the fixture settled)", async (later) => {
    const expected = await Promise.all([
      ...["page", "source", "event", "country"].map((f) => get(`/api/sites/${siteId}/breakdown?field=${f}&actor=all`, BreakdownResponse)),
      get(`/api/sites/${siteId}/ai`, AiResponse),
    ]);
    for (let round = 0; round < 2; round++) {
      const actual = await at(later, () =>
        Promise.all([
          ...["page", "source", "event", "country"].map((f) => get(`/api/sites/${siteId}/breakdown?field=${f}&actor=all&days=7`, BreakdownResponse)),
          get(`/api/sites/${siteId}/ai?days=7`, AiResponse),
        ]),
      );
      expect(actual.map(strip)).toEqual(expected.map(strip));
    }
  });

  it("a settled day's sums are cached for 5 minutes, then re-read", async () => {
    const later = "2026-03-18T08:00:00Z";
    const pages = async () => (await get(`/api/sites/${siteId}/breakdown?field=page&days=7`, BreakdownResponse)).rows.map((r: any) => r.value);
    await at(later, async () => {
      expect(await pages()).not.toContain("/edited");
      await h.pool.query("insert into rollup_daily (site_id, bucket, actor, dim, value, pageviews, visitors) values ($1, $2, 'human', 'page', '/edited', 50, 50)", [siteId, YESTERDAY]);
      expect(await pages()).not.toContain("/edited");
      h.clock.advance(5 * 60_000 + 1);
      expect((await pages())[0]).toBe("/edited");
    });
    await h.pool.query("delete from rollup_daily where value = '/edited'");
  });
});

describe("goals", () => {
  const conversions = async (query: string) => {
    const report = await get(`/api/sites/${siteId}/goals${query}`, GoalsReport);
    return Object.fromEntries(report.goals.map((g: any) => [g.name, [g.conversions, g.visitors]]));
  };

  it("counts each goal's events per actor; a crawler firing the goal never counts for human", async () => {
    for (const name of ["Signup", "pageview", "Outbound Link", "Never fired"]) {
      expect((await call(h.base, "POST", `/api/sites/${siteId}/goals`, { body: { name }, headers: auth })).status).toBe(201);
    }
    expect(await conversions("")).toEqual({ Signup: [2, 2], pageview: [6, 4], "Outbound Link": [1, 1], "Never fired": [0, 0] });
    expect(await conversions("?days=1")).toEqual({ Signup: [1, 1], pageview: [4, 2], "Outbound Link": [1, 1], "Never fired": [0, 0] });
    expect(await conversions("?days=1&actor=ai_crawler")).toEqual({ Signup: [1, 1], pageview: [0, 0], "Outbound Link": [0, 0], "Never fired": [0, 0] });
    expect(await conversions("?actor=human_via_ai")).toEqual({ Signup: [1, 1], pageview: [3, 3], "Outbound Link": [0, 0], "Never fired": [0, 0] });
    expect(await conversions("?days=1&actor=all")).toEqual({ Signup: [3, 3], pageview: [8, 6], "Outbound Link": [1, 1], "Never fired": [0, 0] });
  });

  it("a deleted goal leaves the report; its events remain and count again when re-created", async () => {
    const report = await get(`/api/sites/${siteId}/goals`, GoalsReport);
    const signup = report.goals.find((g: any) => g.name === "Signup");
    expect((await call(h.base, "DELETE", `/api/sites/${siteId}/goals/${signup.id}`, { headers: auth })).status).toBe(204);
    expect(Object.keys(await conversions(""))).toEqual(["pageview", "Outbound Link", "Never fired"]);
    expect((await h.pool.query("select count(*)::int as n from events where name = 'Signup'")).rows[0].n).toBe(4);
    expect((await call(h.base, "POST", `/api/sites/${siteId}/goals`, { body: { name: "Signup" }, headers: auth })).status).toBe(201);
    expect((await conversions(""))["Signup"]).toEqual([2, 2]);
  });
});
