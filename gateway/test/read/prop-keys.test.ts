// Custom property names (GET /api/sites/{id}/props and a shared link's GET /api/share/{token}/props), read by
// the query engine (read/prop-keys.ts) from its rows — two settled days from their Parquet files, today from
// PostgreSQL — against the same keys counted here by PostgreSQL from the raw rows (the route's reading before).
// A shared link's keys are those of its own rows only: a key sent only outside the link's filters or actor
// never shows. Bad input is a 4xx.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_PROP_KEYS } from "../../src/api-schema/read.ts";
import { queryWindow } from "../../src/read/window.ts";
import { bearer, call, loginAsAdmin } from "../support/auth.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { writeDayFiles } from "../support/query-engine.ts";
import { seededRandom } from "../support/seeded-random.ts";

const DOMAIN = "props.example";
const DAYS = ["2026-03-13", "2026-03-14", "2026-03-15"];
const NOW = "2026-03-15T18:00:00Z";
const KEYS = ["plan", "author", "lang", "theme", "size", "variant"];
const ACTORS = ["human", "human", "human_via_ai", "bot", "ai_agent"];
const SOURCES = [null, "Google", "Twitter"];
/** Sent once, by a bot from Twitter: outside every shared link below. */
const HIDDEN_KEY = "internal_build";

const rand = seededRandom(31);
const pick = <T,>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;

let h: Harness;
let auth: Record<string, string>;
let siteId: number;

beforeAll(async () => {
  h = await startHarness({ now: NOW, sites: [DOMAIN] });
  siteId = (await h.pool.query("select id from sites where domain = $1", [DOMAIN])).rows[0].id as number;
  for (const day of DAYS) {
    const start = Date.parse(`${day}T00:00:00Z`);
    for (let i = 0; i < 150; i++) {
      const ts = start + Math.floor(rand() * 86_400_000);
      if (ts > Date.parse(NOW)) continue;
      // Some rows carry no props, some an empty object, most one to three keys.
      const props = rand() < 0.3 ? null : Object.fromEntries(KEYS.filter(() => rand() < 0.35).map((k) => [k, pick(["a", "b", "c"])]));
      await h.pool.query(
        `insert into events (site_id, ts, name, page, source, channel, device, actor, rule, visitor_hash, props)
         values ($1, $2, $3, '/', $4, 'Direct', 'Desktop', $5, 'test', $6, $7)`,
        [siteId, new Date(ts), rand() < 0.7 ? "pageview" : "Signup", pick(SOURCES), pick(ACTORS), Buffer.from(Array.from({ length: 32 }, () => Math.floor(rand() * 256))), props === null ? null : JSON.stringify(props)],
      );
    }
  }
  await h.pool.query(
    `insert into events (site_id, ts, name, page, source, channel, device, actor, rule, visitor_hash, props)
     values ($1, $2, 'Build', '/', 'Twitter', 'Social', 'Desktop', 'bot', 'test', $3, $4)`,
    [siteId, new Date(`${DAYS[1]}T10:00:00Z`), Buffer.alloc(32, 7), JSON.stringify({ [HIDDEN_KEY]: "x" })],
  );
  // The day files' pass writes the days the rollups say had traffic.
  for (const day of DAYS) await h.pool.query("insert into rollup_daily (site_id, bucket, actor, dim, value, visitors) values ($1, $2, 'all', 'total', '', 1)", [siteId, day]);
  auth = bearer((await loginAsAdmin(h.base)).token);
  // The settled days go to Parquet, as the background job writes them.
  expect(await writeDayFiles(h, NOW)).toBe(2);
});
afterAll(() => h.close());

/** The keys PostgreSQL counts over the raw rows of the window, of `actors`, passing `where` (a condition on e). */
async function expected(window: { days?: number; hours?: number }, actors: readonly string[], where = "true"): Promise<{ key: string; events: number }[]> {
  const w = queryWindow(Date.parse(NOW), window, "all", "UTC");
  const { rows } = await h.pool.query<{ key: string; events: string }>(
    `select key, count(*) as events from events e, jsonb_object_keys(e.props) as key
      where e.site_id = $1 and e.ts >= $2 and e.ts <= $3 and e.actor = any($4) and ${where}
      group by key order by count(*) desc, key limit $5`,
    [siteId, new Date(w.startMs), new Date(NOW), actors, MAX_PROP_KEYS],
  );
  return rows.map((r) => ({ key: r.key, events: Number(r.events) }));
}

const ALL = ["human", "human_via_ai", "ai_crawler", "ai_agent", "bot"];
const WINDOWS: ReadonlyArray<readonly [string, { days?: number; hours?: number }]> = [
  ["today (PostgreSQL's rows)", { days: 1 }],
  ["two days (a Parquet file and today)", { days: 2 }],
  ["seven days (two Parquet files and today)", { days: 7 }],
  ["the last 24 hours (part of a Parquet day)", { hours: 24 }],
];
const query = (w: { days?: number; hours?: number }) => (w.hours !== undefined ? `hours=${w.hours}` : `days=${w.days}`);

describe("GET /api/sites/{id}/props", () => {
  it.each(WINDOWS)("%s: the keys of every actor's rows, the most used first, as PostgreSQL counts them", async (_name, window) => {
    const reply = await call(h.base, "GET", `/api/sites/${siteId}/props?${query(window)}`, { headers: auth });
    expect(reply.status, JSON.stringify(reply.json)).toBe(200);
    const want = await expected(window, ALL);
    expect(want.length).toBeGreaterThan(3);
    expect(reply.json).toEqual({ site_id: siteId, keys: want });
  });

  it("reads no raw row of the settled days from PostgreSQL: their keys come from the Parquet files", async () => {
    // The settled days' rows are gone from PostgreSQL; their keys still answer (the day files hold them).
    const before = (await call(h.base, "GET", `/api/sites/${siteId}/props?days=7`, { headers: auth })).json;
    const settled = [siteId, new Date(`${DAYS[2]}T00:00:00Z`)];
    await h.pool.query("create table props_kept as select * from events where site_id = $1 and ts < $2", settled);
    await h.pool.query("delete from events where site_id = $1 and ts < $2", settled);
    try {
      expect((await call(h.base, "GET", `/api/sites/${siteId}/props?days=7`, { headers: auth })).json).toEqual(before);
    } finally {
      // Later tests count with PostgreSQL over every day: the rows go back.
      await h.pool.query("insert into events select * from props_kept");
      await h.pool.query("drop table props_kept");
    }
  });

  it.each([
    ["days not a number", "days=seven"],
    ["days and hours together", "days=7&hours=24"],
    ["days beyond the retention's cap", "days=100000"],
  ])("%s: a 400 with the reason", async (_name, q) => {
    const reply = await call(h.base, "GET", `/api/sites/${siteId}/props?${q}`, { headers: auth });
    expect(reply.status).toBe(400);
    expect(reply.json.error).toEqual(expect.any(String));
  });
});

describe("GET /api/share/{token}/props", () => {
  const LINKS: ReadonlyArray<readonly [string, Record<string, unknown>, readonly string[], string]> = [
    ["a link for Google's people", { filters: [["is", "visit:source", ["Google"]]], actor: "human" }, ["human"], "e.source = 'Google'"],
    ["a link for everything but Twitter, any actor", { filters: [["is_not", "visit:source", ["Twitter"]]] }, ALL, "coalesce(e.source, '') <> 'Twitter'"],
    ["a link for assistants' visitors", { actor: "human_via_ai" }, ["human_via_ai"], "true"],
  ];
  it.each(LINKS)("%s: the keys of its rows only, never one sent outside it", async (_name, body, actors, where) => {
    const link = await call(h.base, "POST", `/api/sites/${siteId}/shares`, { body, headers: auth });
    expect(link.status, JSON.stringify(link.json)).toBe(201);
    for (const [, window] of WINDOWS) {
      const reply = await call(h.base, "GET", `/api/share/${link.json.token}/props?${query(window)}`);
      expect(reply.status, JSON.stringify(reply.json)).toBe(200);
      expect(reply.json).toEqual({ site_id: siteId, keys: await expected(window, actors, where) });
      expect(reply.json.keys.map((k: { key: string }) => k.key)).not.toContain(HIDDEN_KEY);
    }
    // The owner sees it.
    const owner = await call(h.base, "GET", `/api/sites/${siteId}/props?days=7`, { headers: auth });
    expect(owner.json.keys.map((k: { key: string }) => k.key)).toContain(HIDDEN_KEY);
  });

  it("a link filtered on a visit column (entry page): today's rows sessionized for it, its keys a part of the site's", async () => {
    const link = await call(h.base, "POST", `/api/sites/${siteId}/shares`, { body: { filters: [["is", "visit:entry_page", ["/"]]] }, headers: auth });
    const shared = await call(h.base, "GET", `/api/share/${link.json.token}/props?days=1`);
    expect(shared.status, JSON.stringify(shared.json)).toBe(200);
    // Every row's page is "/": every visit enters there, so the link's keys are the site's of today (any actor).
    expect(shared.json.keys).toEqual(await expected({ days: 1 }, ALL));
  });

  it("an unknown token is a 404; a password link without its access key a 401", async () => {
    expect((await call(h.base, "GET", `/api/share/${"x".repeat(43)}/props?days=7`)).status).toBe(404);
    const locked = await call(h.base, "POST", `/api/sites/${siteId}/shares`, { body: { password: "open sesame" }, headers: auth });
    expect((await call(h.base, "GET", `/api/share/${locked.json.token}/props?days=7`)).status).toBe(401);
  });
});
