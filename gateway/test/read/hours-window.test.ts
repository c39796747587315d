// The rolling hours window (`hours=1..48`) of /stats, /breakdown, /ai and /goals over the known fixture
// (fixture.ts: humans yesterday 10:00–10:02 and today 09:00–09:05, assistant visits today 10:xx, crawlers and
// agents today 11:xx), with the clock pinned on either side of an hour boundary: at 09:59:59.999 the last
// 24 hours start yesterday 10:00 and hold yesterday's humans; one millisecond later they start at 11:00 and
// yesterday's humans move to the previous window. Responses are decoded with the OpenAPI schemas too.
import { Schema } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AiResponse, BreakdownResponse, StatsResponse } from "../../src/api-schema/read.ts";
import { GoalsReport } from "../../src/api-schema/sites.ts";
import { bearer, call, createApiKey, loginAsAdmin } from "../support/auth.ts";
import { type Harness, UA, post, startHarness } from "../support/harness.ts";
import { FIXTURE_DOMAIN, TODAY, YESTERDAY, ingestFixture } from "./fixture.ts";

let h: Harness;
let auth: Record<string, string>;
let site: string;
const NOON = `${TODAY}T12:30:00Z`;

const get = async (path: string, schema: Schema.Top) => {
  const reply = await call(h.base, "GET", `/api/sites/${site}${path}`, { headers: auth });
  expect(reply.status, JSON.stringify(reply.json)).toBe(200);
  Schema.decodeUnknownSync(schema as Schema.Codec<unknown>)(reply.json);
  return reply.json;
};
/** A read with the clock at `iso`, the clock back at NOON after. */
const at = async <T>(iso: string, run: () => Promise<T>): Promise<T> => {
  h.clock.set(iso);
  try {
    return await run();
  } finally {
    h.clock.set(NOON);
  }
};

beforeAll(async () => {
  h = await startHarness({ now: `${YESTERDAY}T09:00:00Z`, env: { SVC_TRUST_PROXY: "1" }, sites: [FIXTURE_DOMAIN] });
  await ingestFixture(h);
  const { token } = await loginAsAdmin(h.base);
  auth = bearer(await createApiKey(h.base, token, "hours", "admin"));
  site = FIXTURE_DOMAIN;
  for (const name of ["Signup", "pageview"]) {
    expect((await call(h.base, "POST", `/api/sites/${site}/goals`, { body: { name }, headers: auth })).status).toBe(201);
  }
});
afterAll(async () => {
  await h?.close();
});

const inferred = (value: number | null) => ({ value, basis: "inferred" });
const zero = { visitors: 0, pageviews: 0, events: 0, hits: 0 };
const yesterdayHumans = { visitors: 2, pageviews: 2, events: 1, hits: 0 };
const todayHumans = { visitors: 2, pageviews: 4, events: 2, hits: 0 };
const both = { visitors: 4, pageviews: 6, events: 3, hits: 0 };

describe("GET /stats?hours=24 at the edges of an hour", () => {
  it.each([
    // [clock, first hour, current, previous, previous window's first hour]
    [`${TODAY}T09:59:59.999Z`, `${YESTERDAY}T10:00:00.000Z`, both, zero, "2026-03-13T10:00:00.000Z"],
    [`${TODAY}T10:00:00.000Z`, `${YESTERDAY}T11:00:00.000Z`, todayHumans, yesterdayHumans, "2026-03-13T11:00:00.000Z"],
    [NOON, `${YESTERDAY}T13:00:00.000Z`, todayHumans, yesterdayHumans, "2026-03-13T13:00:00.000Z"],
  ])("at %s the window starts %s", async (now, start, current, previous, previousStart) => {
    const s = await at(now, () => get("/stats?hours=24", StatsResponse));
    expect(s).toMatchObject({ actor: "human", hours: 24, start, days: 2, from: YESTERDAY, to: TODAY, granularity: "hour", visitors_basis: "inferred" });
    expect(s.visitors_inferred_days).toBeUndefined();
    expect(s.change.visitors.basis).toBe("inferred");
    expect(s.change.pageviews.basis).toBe("observed");
    expect(s.current).toEqual({ ...current, views_per_visitor: inferred(current.visitors === 0 ? null : current.pageviews / current.visitors) });
    expect(s.previous).toEqual({
      from: "2026-03-13",
      to: YESTERDAY,
      start: previousStart,
      totals: { ...previous, views_per_visitor: inferred(previous.visitors === 0 ? null : previous.pageviews / previous.visitors) },
    });
    // 24 hourly buckets ending with the current hour, zero-filled, summing to the totals.
    expect(s.series).toHaveLength(24);
    expect(s.series[0].bucket).toBe(start);
    expect(Date.parse(s.series[23].bucket)).toBe(Date.parse(now) - (Date.parse(now) % 3_600_000));
    const sum = (key: "visitors" | "pageviews" | "events") => s.series.reduce((n: number, p: any) => n + p[key], 0);
    expect({ visitors: sum("visitors"), pageviews: sum("pageviews"), events: sum("events") }).toEqual({ visitors: current.visitors, pageviews: current.pageviews, events: current.events });
  });

  it("hours=1 is the current hour only, against the hour before", async () => {
    const s = await at(`${TODAY}T10:30:00Z`, () => get("/stats?hours=1&actor=human_via_ai", StatsResponse));
    expect(s).toMatchObject({ hours: 1, start: `${TODAY}T10:00:00.000Z`, days: 1, from: TODAY, to: TODAY });
    expect(s.current).toMatchObject({ visitors: 3, pageviews: 3, events: 1 });
    expect(s.previous.totals).toMatchObject(zero);
    expect(s.series).toEqual([{ bucket: `${TODAY}T10:00:00.000Z`, visitors: 3, pageviews: 3, events: 1, hits: 0 }]);
  });

});

describe("GET /breakdown, /ai and /goals with hours", () => {
  const rows = (b: any) => b.rows;

  it.each([
    // [clock, hours, the days window (at NOON) holding the same human rows]
    [`${TODAY}T09:59:59.999Z`, 24, 2],
    [`${TODAY}T10:00:00.000Z`, 24, 1],
  ])("at %s, hours=%i lists the human rows of days=%i", async (now, hours, days) => {
    for (const field of ["page", "source", "event", "country"]) {
      const expected = await get(`/breakdown?field=${field}&days=${days}`, BreakdownResponse);
      const actual = await at(now, () => get(`/breakdown?field=${field}&hours=${hours}`, BreakdownResponse));
      expect(actual).toMatchObject({ field, hours, start: now.startsWith(`${TODAY}T09`) ? `${YESTERDAY}T10:00:00.000Z` : `${YESTERDAY}T11:00:00.000Z` });
      expect(rows(actual)).toEqual(rows(expected));
    }
  });

  it("the AI panel: crawlers of 11:xx are in hours=1 at 11:30, the assistants of 10:xx only from hours=2", async () => {
    const day = await get("/ai", AiResponse);
    const one = await at(`${TODAY}T11:30:00Z`, () => get("/ai?hours=1", AiResponse));
    expect(one).toMatchObject({ hours: 1, start: `${TODAY}T11:00:00.000Z` });
    expect(one.crawlers).toEqual(day.crawlers);
    expect(one.agents).toEqual(day.agents);
    expect(one.assistants).toEqual({ visitors: 0, pageviews: 0, rows: [] });
    const two = await at(`${TODAY}T11:30:00Z`, () => get("/ai?hours=2", AiResponse));
    expect(two.assistants).toEqual(day.assistants);
    expect(two.crawl_to_referral).toEqual(day.crawl_to_referral);
  });

  it.each([
    // [clock, query, conversions by goal as [conversions, visitors]]
    [`${TODAY}T11:30:00Z`, "hours=3", { Signup: [1, 1], pageview: [4, 2] }],
    [`${TODAY}T11:30:00Z`, "hours=2", { Signup: [0, 0], pageview: [0, 0] }],
    [`${TODAY}T11:30:00Z`, "hours=2&actor=all", { Signup: [2, 2], pageview: [4, 4] }],
    [`${TODAY}T09:59:59.999Z`, "hours=24", { Signup: [2, 2], pageview: [6, 4] }],
    [`${TODAY}T10:00:00.000Z`, "hours=24", { Signup: [1, 1], pageview: [4, 2] }],
  ])("goals at %s with %s", async (now, query, expected) => {
    const report = await at(now, () => get(`/goals?${query}`, GoalsReport));
    expect(report).toMatchObject({ hours: Number(/hours=(\d+)/.exec(query)![1]) });
    expect(Object.fromEntries(report.goals.map((g: any) => [g.name, [g.conversions, g.visitors]]))).toEqual(expected);
  });
});

describe("hours: validation and the OpenAPI document", () => {
  it.each([
    ["hours=0", "hours"],
    ["hours=49", "hours"],
    ["hours=1.5", "hours"],
    ["hours=24&days=1", "hours"],
  ])("%s is a 400 naming %s", async (query, path) => {
    for (const route of [`/stats?${query}`, `/breakdown?field=page&${query}`, `/ai?${query}`, `/goals?${query}`]) {
      const reply = await call(h.base, "GET", `/api/sites/${site}${route}`, { headers: auth });
      expect(reply.status, route).toBe(400);
      expect(reply.json.details.map((d: any) => d.path), route).toContain(path);
    }
  });

  it("documents hours on every windowed read", async () => {
    const doc = (await call(h.base, "GET", "/api/openapi.json")).json;
    for (const path of ["stats", "breakdown", "ai", "goals"]) {
      const param = doc.paths[`/api/sites/{id}/${path}`].get.parameters.find((p: any) => p.name === "hours");
      expect(param, path).toMatchObject({ in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: 48 } });
    }
  });
});

// Last: it adds a row the tests above do not expect.
describe("visitors over an hours window", () => {
  it("sums visitors per hour: one visitor back in a later hour counts twice (inferred), where days=1 counts once (observed)", async () => {
    h.clock.set(`${TODAY}T12:10:00Z`);
    // The human of 09:00 (same address and browser) again, three hours later.
    const res = await post(h.base, "/api/event", { d: FIXTURE_DOMAIN, u: `https://${FIXTURE_DOMAIN}/` }, { "user-agent": UA.chrome, "x-forwarded-for": "81.2.69.142" });
    expect(res.status).toBe(202);
    h.clock.set(NOON);
    const hours = await get("/stats?hours=24", StatsResponse);
    const days = await get("/stats?days=1", StatsResponse);
    expect(hours.current).toMatchObject({ visitors: 3, pageviews: 5, views_per_visitor: inferred(1.6667) });
    expect(days.current).toMatchObject({ visitors: 2, pageviews: 5, views_per_visitor: { value: 2.5, basis: "observed" } });
    expect(days.visitors_basis).toBeUndefined();
    expect(hours.series.find((p: any) => p.bucket === `${TODAY}T12:00:00.000Z`)).toMatchObject({ visitors: 1, pageviews: 1 });
  });
});
