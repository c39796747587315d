// The history import end to end, over real HTTP (and the real CLI) against a real PostgreSQL: bad lines
// reported by number, the same body twice imported once, every rollup equal to a recount of the raw rows,
// visitors distinct per UTC day only, no address anywhere, today's live state untouched, all or nothing.
import { writeFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, call, createApiKey, loginAsAdmin } from "../support/auth.ts";
import { runCli } from "../support/cli.ts";
import { dumpDatabase } from "../support/dump.ts";
import { type Harness, UA, post, startHarness } from "../support/harness.ts";
import { recomputedRollups, storedRollups } from "../support/recompute.ts";

const NOW = "2026-11-25T12:00:00Z";
const SECRET_IP = "198.51.100.77";
let h: Harness;
let admin: Record<string, string>;
let read: Record<string, string>;
let dir: string;
// pg 8 warns once per process when a connection is asked a query while another runs (pg 9 will refuse it).
const overlapping: string[] = [];
process.on("warning", (warning) => {
  if (warning.message.includes("already executing a query")) overlapping.push(warning.message);
});

beforeAll(async () => {
  h = await startHarness({ now: NOW, sites: ["imp.example", "cli.example", "zero.example", "busy.example"] });
  const login = await loginAsAdmin(h.base);
  admin = bearer(await createApiKey(h.base, login.token, "import admin", "admin"));
  read = bearer(await createApiKey(h.base, login.token, "import read"));
  dir = await mkdtemp(join(tmpdir(), "svc-import-"));
});
afterAll(async () => {
  await h?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const ndjson = (rows: readonly unknown[]) => rows.map((r) => (typeof r === "string" ? r : JSON.stringify(r))).join("\n") + "\n";
const importBody = (site: string, body: string, headers: Record<string, string> = admin, query = "") =>
  call(h.base, "POST", `/api/sites/${site}/import${query}`, { body, headers: { "content-type": "application/x-ndjson", ...headers } });

const siteId = async (domain: string): Promise<number> => (await h.pool.query("select id from sites where domain = $1", [domain])).rows[0].id;
const eventCount = async (id: number): Promise<number> => Number((await h.pool.query("select count(*) from events where site_id = $1", [id])).rows[0].count);

// Three visitors over three UTC days, with a visit from ChatGPT that reads on, a crawler, a goal, a line
// without visitor, and the bad lines at known line numbers.
const GOOD = [
  { timestamp: "2026-11-20T23:50:00Z", name: "pageview", visitor: "alice", pathname: "/", referrer: "https://chatgpt.com/", user_agent: UA.chrome, country: "DE" },
  { timestamp: "2026-11-20T23:55:00Z", name: "pageview", visitor: "alice", pathname: "/pricing", user_agent: UA.chrome, country: "DE" },
  // 00:10 UTC: a new UTC day, so alice is a new visitor (and a new visit).
  { timestamp: "2026-11-21T00:10:00Z", name: "pageview", visitor: "alice", pathname: "/docs", user_agent: UA.chrome, country: "DE" },
  { timestamp: "2026-11-21T00:12:00Z", name: "Signup", visitor: "alice", pathname: "/docs", props: { plan: "pro" } },
  { timestamp: "2026-11-21T09:00", name: "pageview", visitor: "bob", pathname: "/blog/a?utm_source=newsletter&utm_medium=email", device: "Mobile", browser: "Safari", os: "iOS" },
  { timestamp: "2026-11-21T09:40:00Z", name: "pageview", visitor: "bob", pathname: "/blog/b", referrer: "https://www.google.com/", device: "Mobile" },
  { timestamp: "2026-11-22T10:00:00Z", name: "pageview", pathname: "/", user_agent: UA.gptbot },
  { timestamp: "2026-11-22T10:00:00Z", name: "pageview", pathname: "/", source: "Bing" },
  { timestamp: "2026-11-22T10:00:01Z", name: "pageview", pathname: "/" },
];
const BAD: Array<[string, RegExp]> = [
  ['{"timestamp": "2026-11-21T10:00:00Z"', /malformed JSON/],
  [JSON.stringify({ timestamp: "2026-11-21T10:00:00Z", name: "pageview", ip: SECRET_IP }), /unknown field "ip"/],
  [JSON.stringify({ timestamp: "2026-11-25T09:00:00Z", name: "pageview" }), /live day/],
  [JSON.stringify({ timestamp: "2026-11-21T10:00:00Z", name: "pageview", country: "Germany" }), /country/],
  [JSON.stringify({ timestamp: "2020-01-01T10:00:00Z", name: "pageview" }), /older than the site's retention of 395 days/],
];
// Bad lines interleaved: lines 2, 4, 6, 8, 10 (from 1).
const FILE_ROWS = GOOD.flatMap((g, i) => (i < BAD.length ? [g, BAD[i]![0]] : [g]));

describe("POST /api/sites/{id}/import", () => {
  it("imports the good lines, reports the bad ones by line number and reason, and every rollup equals its recount", async () => {
    const id = await siteId("imp.example");
    const reply = await importBody("imp.example", ndjson(FILE_ROWS));
    expect(reply.status, JSON.stringify(reply.json)).toBe(200);
    expect(reply.json).toMatchObject({
      status: "imported", lines: FILE_ROWS.length, imported: GOOD.length, refused: BAD.length, refused_lines_omitted: 0,
      days: { from: "2026-11-20", to: "2026-11-22" },
    });
    expect(reply.json.refused_lines.map((r: { line: number }) => r.line)).toEqual([2, 4, 6, 8, 10]);
    BAD.forEach(([, reason], i) => expect(reply.json.refused_lines[i].reason).toMatch(reason));
    expect(reply.json.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await eventCount(id)).toBe(GOOD.length);
    // Past months have no partition until an import makes one: nothing in the default partition.
    expect(Number((await h.pool.query("select count(*) from events_default")).rows[0].count)).toBe(0);

    expect(await storedRollups(h.pool, id, "day")).toEqual(await recomputedRollups(h.pool, id, "day"));
    expect(await storedRollups(h.pool, id, "hour")).toEqual(await recomputedRollups(h.pool, id, "hour"));
  });

  it("visitors are exact per UTC day: equal strings are one visitor within a day, two across 00:00 UTC, a line without one is its own", async () => {
    const id = await siteId("imp.example");
    const { rows } = await h.pool.query(
      "select bucket::text as day, visitors::int, pageviews::int, events::int from rollup_daily where site_id = $1 and actor = 'all' and dim = 'total' order by bucket",
      [id],
    );
    expect(rows).toEqual([
      { day: "2026-11-20", visitors: 1, pageviews: 2, events: 0 },
      { day: "2026-11-21", visitors: 2, pageviews: 3, events: 1 },
      // GPTBot's line is a hit of "All traffic", not a visitor (issue 21): two of the day's three lines.
      { day: "2026-11-22", visitors: 2, pageviews: 3, events: 0 },
    ]);
    const distinct = await h.pool.query(
      "select date_trunc('day', ts, 'UTC')::date::text as day, count(distinct visitor_hash)::int as n from events where site_id = $1 and actor not in ('ai_crawler', 'bot') group by 1 order by 1",
      [id],
    );
    expect(distinct.rows.map((r) => r.n)).toEqual(rows.map((r) => r.visitors));
    // No hash of one day appears on another.
    const shared = await h.pool.query("select count(*)::int as n from (select visitor_hash from events where site_id = $1 group by 1 having count(distinct date_trunc('day', ts, 'UTC')) > 1) x", [id]);
    expect(shared.rows[0].n).toBe(0);
  });

  it("applies the visit rule and ingest's attribution: a visit from ChatGPT stays human_via_ai; the reads show the history", async () => {
    const id = await siteId("imp.example");
    const { rows } = await h.pool.query("select page, actor, ai_name, source, channel, rule, device, browser, browser_version, os_version, country from events where site_id = $1 and ts < '2026-11-21' order by ts", [id]);
    expect(rows).toEqual([
      { page: "/", actor: "human_via_ai", ai_name: "ChatGPT", source: "ChatGPT", channel: "ai_assistant", rule: "assistant_referrer", device: "desktop", browser: "Chrome", browser_version: "131.0", os_version: "10", country: "DE" },
      { page: "/pricing", actor: "human_via_ai", ai_name: "ChatGPT", source: "ChatGPT", channel: "ai_assistant", rule: "visit:assistant-referral", device: "desktop", browser: "Chrome", browser_version: "131.0", os_version: "10", country: "DE" },
    ]);
    const stats = await call(h.base, "GET", "/api/sites/imp.example/stats?days=7&actor=all", { headers: read });
    // 1 + 2 + 2 visitors: GPTBot counts as a hit, not a visitor, in "All traffic".
    expect(stats.json.current).toMatchObject({ visitors: 5, pageviews: 8, events: 1 });
    const sources = await call(h.base, "GET", "/api/sites/imp.example/breakdown?field=source&days=7", { headers: read });
    // bob's second page came 40 minutes later: a new visit, from Google. An unknown utm_source is kept as sent.
    expect(Object.fromEntries(sources.json.rows.map((r: any) => [r.label, r.pageviews]))).toEqual({ newsletter: 1, Google: 1, Bing: 1, "Direct / None": 2 });
    const ai = await call(h.base, "GET", "/api/sites/imp.example/ai?days=7", { headers: read });
    expect(ai.json.assistants).toMatchObject({ visitors: 1, pageviews: 2 });
  });

  it("the same body again is a duplicate: nothing changes; dry_run stores nothing", async () => {
    const id = await siteId("imp.example");
    const before = await storedRollups(h.pool, id, "day");
    const first = (await h.pool.query("select id from imports where site_id = $1", [id])).rows[0].id;
    const again = await importBody("imp.example", ndjson(FILE_ROWS));
    expect(again.json).toMatchObject({ status: "duplicate", import_id: first, imported: 0 });
    expect(await eventCount(id)).toBe(GOOD.length);
    expect(await storedRollups(h.pool, id, "day")).toEqual(before);
    const dry = await importBody("imp.example", ndjson([{ ...GOOD[0], visitor: "carol" }]), admin, "?dry_run=true");
    expect(dry.json).toMatchObject({ status: "dry_run", imported: 1, import_id: null });
    expect(await eventCount(id)).toBe(GOOD.length);
  });

  it("stores no address: the IP of a refused line, and any user agent, are nowhere in the database", async () => {
    const dump = await dumpDatabase(h.pool, h.url);
    expect(dump).not.toContain(SECRET_IP);
    expect(dump).not.toContain("KHTML, like Gecko) Chrome/131");
    expect(dump).not.toContain("alice");
  });

  it("keeps today's live visitor state untouched: a live visitor before and after an import is one visitor", async () => {
    const headers = { "user-agent": UA.iphone, "x-forwarded-for": "203.0.113.5" };
    expect((await post(h.base, "/api/event", { d: "busy.example", u: "https://busy.example/live" }, headers)).status).toBe(202);
    const stats = async () => (await call(h.base, "GET", "/api/sites/busy.example/stats?days=1&actor=all", { headers: read })).json.current;
    const today = await stats();
    const imported = await importBody("busy.example", ndjson([{ timestamp: "2026-11-24T10:00:00Z", name: "pageview", visitor: "x" }, { timestamp: NOW, name: "pageview" }]));
    expect(imported.json).toMatchObject({ status: "imported", imported: 1, refused: 1 });
    expect(await stats()).toEqual(today);
    expect((await post(h.base, "/api/event", { d: "busy.example", u: "https://busy.example/live2" }, headers)).status).toBe(202);
    expect(await stats()).toMatchObject({ visitors: 1, pageviews: 2 });
    const week = await call(h.base, "GET", "/api/sites/busy.example/stats?days=7&actor=all", { headers: read });
    expect(week.json.current).toMatchObject({ visitors: 2, pageviews: 3 });
    const id = await siteId("busy.example");
    expect(await storedRollups(h.pool, id, "day")).toEqual(await recomputedRollups(h.pool, id, "day"));
  });

  it("is all or nothing: a row the database refuses stores none of the call (422), and nothing is recorded", async () => {
    const id = await siteId("zero.example");
    await h.pool.query("alter table events add constraint import_test_no_boom check (name <> 'boom')");
    try {
      const reply = await importBody("zero.example", ndjson([{ timestamp: "2026-11-23T10:00:00Z", name: "pageview" }, { timestamp: "2026-11-23T10:01:00Z", name: "boom" }]));
      expect(reply).toMatchObject({ status: 422, json: { error: expect.stringMatching(/nothing of it was stored/) } });
    } finally {
      await h.pool.query("alter table events drop constraint import_test_no_boom");
    }
    expect(await eventCount(id)).toBe(0);
    expect((await h.pool.query("select count(*)::int as n from rollup_daily where site_id = $1", [id])).rows[0].n).toBe(0);
    expect((await h.pool.query("select count(*)::int as n from imports where site_id = $1", [id])).rows[0].n).toBe(0);
    // Nothing to import at all: empty, nothing recorded.
    expect((await importBody("zero.example", "\n\n")).json).toMatchObject({ status: "empty", lines: 2, imported: 0, refused: 0 });
  });

  it("takes a body far over the 64 KB ingest limit, streamed: 100,000 lines in one call", async () => {
    const rows: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      const t = Date.parse("2026-11-01T00:00:00Z") + i * 17_000;
      rows.push(JSON.stringify({ timestamp: new Date(t).toISOString(), name: i % 10 === 0 ? "Signup" : "pageview", visitor: `v${i % 7919}`, pathname: `/p/${i % 300}` }));
    }
    const body = rows.join("\n");
    expect(body.length).toBeGreaterThan(6_000_000);
    const reply = await importBody("cli.example", body);
    expect(reply.json).toMatchObject({ status: "imported", lines: 100_000, imported: 100_000, refused: 0 });
    const id = await siteId("cli.example");
    expect(await storedRollups(h.pool, id, "day")).toEqual(await recomputedRollups(h.pool, id, "day"));
  }, 180_000);

  it("the CLI imports a file into the same database, and the same file again is a duplicate", async () => {
    const file = join(dir, "history.ndjson");
    await writeFile(file, ndjson([{ timestamp: "2026-11-10T08:00:00Z", name: "pageview", visitor: "cli" }, "nope"]));
    const env = { DATABASE_URL: h.url };
    const first = await runCli(["import", "--site", "zero.example", file], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^imported: 1 of 2 lines \(2026-11-10 … 2026-11-10\), 1 refused, import \d+, sha256 [0-9a-f]{64}\n {2}line 2: malformed JSON\n$/);
    const again = await runCli(["import", "--site", "zero.example", file, "--json"], env);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: "duplicate", imported: 0 });
    const missing = await runCli(["import", "--site", "zero.example", join(dir, "none.ndjson")], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^svc: cannot read/);
    expect((await runCli(["import", "--site", "nobody.example", file], env)).stderr).toMatch(/no site nobody\.example/);
  }, 60_000);
});

describe("who may import", () => {
  it.each([
    ["no credential", {}, 401],
    ["a read key", () => read, 403],
  ])("%s → %s", async (_label, headers, status) => {
    const reply = await importBody("imp.example", ndjson([GOOD[0]]), typeof headers === "function" ? headers() : headers);
    expect(reply.status).toBe(status);
    expect(typeof reply.json.error).toBe("string");
  });
  it("an unknown site → 404, JSON instead of NDJSON → 415", async () => {
    expect((await importBody("nobody.example", ndjson([GOOD[0]]))).status).toBe(404);
    const json = await call(h.base, "POST", "/api/sites/imp.example/import", { body: GOOD[0], headers: admin });
    expect(json).toMatchObject({ status: 415, json: { error: expect.stringMatching(/application\/x-ndjson/) } });
  });
});

describe("the connection", () => {
  it("is asked one statement at a time, the overlap kept by chaining (no pg deprecation warning over every import above)", () => {
    expect(overlapping).toEqual([]);
  });
});
