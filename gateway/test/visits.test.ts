// Visits over real HTTP: a person who lands from an assistant stays `human_via_ai` for the whole visit, and
// every page of a visit counts under its entry's source. Each case checks the read routes' numbers, the raw
// rows (attributed values plus the row's own referrer host) and the rollups against the independent SQL
// recomputation; the state survives a clean restart (saved day state) and a rebuild from the raw rows.
import { afterEach, describe, expect, it } from "vitest";
import { bearer, call, createApiKey, loginAsAdmin } from "./support/auth.ts";
import { type Harness, UA, post, startHarness } from "./support/harness.ts";
import { recomputedRollups, storedRollups } from "./support/recompute.ts";

const DOMAIN = "visits.example";
const DAY = "2026-05-04";
const MINUTE = 60_000;
const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

interface Send {
  readonly at: string;
  readonly ua: string;
  readonly ip: string;
  readonly path: string;
  readonly referrer?: string;
  readonly name?: string;
}

async function send(harness: Harness, s: Send): Promise<void> {
  harness.clock.set(`${DAY}T${s.at}Z`);
  const body = { d: DOMAIN, u: `https://${DOMAIN}${s.path}`, ...(s.referrer ? { r: s.referrer } : {}), ...(s.name ? { n: s.name } : {}) };
  const res = await post(harness.base, "/api/event", body, { "user-agent": s.ua, "x-forwarded-for": s.ip });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
}

async function reader(harness: Harness) {
  const { token } = await loginAsAdmin(harness.base);
  const auth = bearer(await createApiKey(harness.base, token));
  const get = async (path: string) => {
    const reply = await call(harness.base, "GET", `/api/sites/${DOMAIN}${path}`, { headers: auth });
    expect(reply.status, JSON.stringify(reply.json)).toBe(200);
    return reply.json;
  };
  const totals = async (actor: string) => (await get(`/stats?days=1&actor=${actor}`)).current;
  const rows = async (field: string, actor: string) =>
    (await get(`/breakdown?field=${field}&days=1&actor=${actor}`)).rows.map((r: any) => [r.label, r.visitors, r.pageviews ?? r.events]);
  return { get, totals, rows };
}

async function expectExactRollups(harness: Harness): Promise<void> {
  const site = (await harness.pool.query("select id from sites where domain = $1", [DOMAIN])).rows[0].id;
  await harness.gateway.rollups.flushBeforeRead();
  expect(await storedRollups(harness.pool, site, "day")).toEqual(await recomputedRollups(harness.pool, site, "day"));
  expect(await storedRollups(harness.pool, site, "hour")).toEqual(await recomputedRollups(harness.pool, site, "hour"));
}

// The scenario: one person from chatgpt.com reads three pages and converts on the third, one from
// google.com reads two. Before visits: actor=all 3 visitors, "Direct / None" 2 visitors / 3 pageviews.
const SCENARIO: readonly Send[] = [
  { at: "10:00:00", ua: UA.chrome, ip: "1.1.1.1", path: "/guide", referrer: "https://chatgpt.com/" },
  { at: "10:01:00", ua: firefox, ip: "9.9.9.9", path: "/", referrer: "https://www.google.com/" },
  { at: "10:02:00", ua: UA.chrome, ip: "1.1.1.1", path: "/pricing" },
  { at: "10:03:00", ua: firefox, ip: "9.9.9.9", path: "/about" },
  { at: "10:04:00", ua: UA.chrome, ip: "1.1.1.1", path: "/signup" },
  { at: "10:04:30", ua: UA.chrome, ip: "1.1.1.1", path: "/signup", name: "Signup" },
];

describe("visits", () => {
  it("the issue's scenario: ChatGPT 3 pages and Google 2 pages give 2 visitors, no Direct row, the goal for human_via_ai", async () => {
    h = await startHarness({ now: `${DAY}T09:00:00Z`, env: { SVC_TRUST_PROXY: "1" }, sites: [DOMAIN] });
    for (const s of SCENARIO) await send(h, s);
    const r = await reader(h);

    expect(await r.totals("all")).toEqual({ visitors: 2, pageviews: 5, events: 1, hits: 0, views_per_visitor: { value: 2.5, basis: "observed" } });
    expect(await r.totals("human_via_ai")).toMatchObject({ visitors: 1, pageviews: 3, events: 1 });
    expect(await r.totals("human")).toMatchObject({ visitors: 1, pageviews: 2, events: 0 });
    expect(await r.rows("source", "all")).toEqual([["ChatGPT", 1, 3], ["Google", 1, 2]]);
    expect(await r.rows("channel", "all")).toEqual([["ai_assistant", 1, 3], ["search", 1, 2]]);
    expect(await r.rows("event", "human_via_ai")).toEqual([["pageview", 1, 3], ["Signup", 1, 1]]);
    expect(await r.rows("event", "human")).toEqual([["pageview", 1, 2]]);
    await expectExactRollups(h);
  });

  it("a goal fired on the third page of the ChatGPT visit converts for human_via_ai, not human", async () => {
    h = await startHarness({ now: `${DAY}T09:00:00Z`, env: { SVC_TRUST_PROXY: "1" }, sites: [DOMAIN] });
    for (const s of SCENARIO) await send(h, s);
    const { token } = await loginAsAdmin(h.base);
    const auth = bearer(await createApiKey(h.base, token, "goals", "admin"));
    const goal = await call(h.base, "POST", `/api/sites/${DOMAIN}/goals`, { headers: auth, body: { name: "Signup" } });
    expect(goal.status).toBe(201);
    const goals = async (actor: string) => (await call(h!.base, "GET", `/api/sites/${DOMAIN}/goals?days=1&actor=${actor}`, { headers: auth })).json.goals[0];
    expect(await goals("human_via_ai")).toMatchObject({ name: "Signup", conversions: 1, visitors: 1 });
    expect(await goals("human")).toMatchObject({ name: "Signup", conversions: 0, visitors: 0 });
  });

  it("raw rows store the visit's values, the row's own referrer host, and a rule that says the label was inherited", async () => {
    h = await startHarness({ now: `${DAY}T09:00:00Z`, env: { SVC_TRUST_PROXY: "1" }, sites: [DOMAIN] });
    for (const s of SCENARIO.filter((s) => s.ip === "1.1.1.1")) await send(h, s);
    const { rows } = await h.pool.query(
      "select page, name, actor, ai_name, rule, source, channel, referrer_host, own_referrer_host from events order by ts, name desc",
    );
    expect(rows).toEqual([
      { page: "/guide", name: "pageview", actor: "human_via_ai", ai_name: "ChatGPT", rule: "assistant_referrer", source: "ChatGPT", channel: "ai_assistant", referrer_host: "chatgpt.com", own_referrer_host: "chatgpt.com" },
      { page: "/pricing", name: "pageview", actor: "human_via_ai", ai_name: "ChatGPT", rule: "visit:assistant-referral", source: "ChatGPT", channel: "ai_assistant", referrer_host: "chatgpt.com", own_referrer_host: null },
      { page: "/signup", name: "pageview", actor: "human_via_ai", ai_name: "ChatGPT", rule: "visit:assistant-referral", source: "ChatGPT", channel: "ai_assistant", referrer_host: "chatgpt.com", own_referrer_host: null },
      { page: "/signup", name: "Signup", actor: "human_via_ai", ai_name: "ChatGPT", rule: "visit:assistant-referral", source: "ChatGPT", channel: "ai_assistant", referrer_host: "chatgpt.com", own_referrer_host: null },
    ]);
  });

  // Each case: one visitor's rows (minutes after 10:00, referrer, path with UTM), then the stored
  // (actor, source, rule, utm_source) of each row.
  it.each([
    {
      name: "a later external referrer does not change the visit: a Google visit that follows a ChatGPT link stays human from Google",
      rows: [[0, "https://www.google.com/", "/"], [5, "https://chatgpt.com/", "/a"], [6, null, "/b"]],
      stored: [["human", "Google", "default", null], ["human", "Google", "visit:entry", null], ["human", "Google", "default", null]],
    },
    {
      name: "a gap of 30 minutes starts a new visit with its own entry",
      rows: [[0, "https://chatgpt.com/", "/"], [29, null, "/a"], [59, null, "/b"], [60, "https://www.perplexity.ai/", "/c"]],
      stored: [["human_via_ai", "ChatGPT", "assistant_referrer", null], ["human_via_ai", "ChatGPT", "visit:assistant-referral", null], ["human", null, "default", null], ["human", null, "visit:entry", null]],
    },
    {
      name: "UTM values come from the entry row",
      rows: [[0, null, "/?utm_source=newsletter&utm_medium=email"], [1, null, "/a?utm_source=other"]],
      stored: [["human", "newsletter", "default", "newsletter"], ["human", "newsletter", "default", "newsletter"]],
    },
  ] as const)("$name", async ({ rows, stored }) => {
    h = await startHarness({ now: `${DAY}T09:00:00Z`, env: { SVC_TRUST_PROXY: "1" }, sites: [DOMAIN] });
    for (const [minutes, referrer, path] of rows) {
      const at = new Date(Date.parse(`${DAY}T10:00:00Z`) + minutes * MINUTE).toISOString().slice(11, 19);
      await send(h, { at, ua: UA.chrome, ip: "1.1.1.1", path, ...(referrer ? { referrer } : {}) });
    }
    const got = await h.pool.query("select actor, source, rule, utm_source from events order by ts");
    expect(got.rows.map((r) => [r.actor, r.source, r.rule, r.utm_source])).toEqual(stored);
    await expectExactRollups(h);
  });

  it("middleware hits and non-human rows keep their own labels", async () => {
    h = await startHarness({ now: `${DAY}T09:00:00Z`, env: { SVC_TRUST_PROXY: "1" }, sites: [DOMAIN] });
    await send(h, { at: "10:00:00", ua: UA.chrome, ip: "1.1.1.1", path: "/", referrer: "https://chatgpt.com/" });
    h.clock.set(`${DAY}T10:01:00Z`);
    const hit = { domain: DOMAIN, method: "GET", path: "/api/data", status: 200, user_agent: UA.chrome, referrer: null, ip: "1.1.1.1" };
    expect((await post(h.base, "/api/hit", [hit])).status).toBe(202);
    await send(h, { at: "10:02:00", ua: UA.headless, ip: "1.1.1.1", path: "/", referrer: "https://chatgpt.com/" });
    const hits = await h.pool.query("select actor, source, rule from hits");
    expect(hits.rows).toEqual([{ actor: "human", source: null, rule: "default" }]);
    const agent = await h.pool.query("select actor, rule from events where actor = 'ai_agent'");
    expect(agent.rows).toEqual([{ actor: "ai_agent", rule: "headless_marker" }]);
    await expectExactRollups(h);
  });

  it.each(["clean restart (saved day state)", "rebuild from the raw rows (no saved state)"] as const)(
    "the visit goes on across a %s",
    async (how) => {
      h = await startHarness({ now: `${DAY}T09:00:00Z`, env: { SVC_TRUST_PROXY: "1" }, sites: [DOMAIN] });
      for (const s of SCENARIO.slice(0, 2)) await send(h, s);
      if (how === "clean restart (saved day state)") {
        await h.restart();
        expect(h.logs.some((l) => l.includes("site states of the last clean stop loaded"))).toBe(true);
      } else {
        await h.restart(async () => {
          await h!.pool.query("delete from lane_snapshots");
        });
      }
      for (const s of SCENARIO.slice(2)) await send(h, s);
      const r = await reader(h);
      expect(await r.totals("all")).toMatchObject({ visitors: 2, pageviews: 5 });
      expect(await r.totals("human_via_ai")).toMatchObject({ visitors: 1, pageviews: 3, events: 1 });
      expect(await r.rows("source", "all")).toEqual([["ChatGPT", 1, 3], ["Google", 1, 2]]);
      const restored = h.logs.some((l) => l.includes("site state restored from the last clean stop"));
      expect(restored).toBe(how === "clean restart (saved day state)");
      await expectExactRollups(h);
    },
  );
});
