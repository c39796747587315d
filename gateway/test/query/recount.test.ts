// Exactness: random queries through POST /api/v2/query against the same numbers recomputed here, in plain
// TypeScript, from the raw rows read back from PostgreSQL. Two settled days are read from their Parquet files
// (written by the background job's pass), today from PostgreSQL, so both homes of the rows are checked, and a
// damaged file is dropped and the answer still comes out exact.
import { readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DayFiles } from "../../src/parquet/day-files.ts";
import { type Harness, post, startHarness } from "../support/harness.ts";
import { bearer, loginAsAdmin } from "../support/auth.ts";
import { seededRandom } from "../support/seeded-random.ts";

const DOMAIN = "recount.example";
const DAYS = ["2026-03-13", "2026-03-14", "2026-03-15"];
const NOW = "2026-03-15T18:00:00Z";
const PAGES = ["/", "/a", "/b", "/blog/x", "/blog/y", "/Pricing"];
const SOURCES = [null, "Google", "Twitter", "chatgpt.com"];
const COUNTRIES = [null, "DE", "US", "FR"];
const ACTORS = ["human", "human", "human", "human_via_ai", "bot", "ai_crawler"];

const rand = seededRandom(22);
const pick = <T,>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;

interface Row {
  kind: "e" | "h";
  ts: number;
  name: string;
  page: string;
  source: string | null;
  country: string | null;
  actor: string;
  visitor: string;
  props: string | null;
  // Filled by `enrich` for script rows.
  visit?: string;
  v_start?: number;
  v_entry?: string;
  v_exit?: string;
  v_pv?: number;
  v_n?: number;
  v_dur?: number;
}

let h: Harness;
let auth: Record<string, string>;
let raw: Row[] = [];

beforeAll(async () => {
  h = await startHarness({ now: NOW, sites: [DOMAIN] });
  const site = (await h.pool.query("select id from sites where domain = $1", [DOMAIN])).rows[0].id as number;
  for (const day of DAYS) {
    const start = Date.parse(`${day}T00:00:00Z`);
    for (let v = 0; v < 40; v++) {
      const hash = Buffer.from(Array.from({ length: 32 }, () => Math.floor(rand() * 256)));
      let ts = start + Math.floor(rand() * 20 * 3_600_000);
      const n = 1 + Math.floor(rand() * 6);
      const actor = pick(ACTORS);
      for (let i = 0; i < n; i++) {
        // Gaps of 0 to 50 minutes: some visits go on, some end at the 30 minutes.
        ts += Math.floor(rand() * 50) * 60_000;
        if (ts >= start + 86_400_000 || ts > Date.parse(NOW)) break;
        const at = new Date(ts);
        if (actor === "ai_crawler" || rand() < 0.1) {
          await h.pool.query(
            `insert into hits (site_id, ts, method, page, status, source, channel, country, device, actor, rule, visitor_hash)
             values ($1, $2, 'GET', $3, 200, $4, 'Direct', $5, 'Desktop', $6, 'test', $7)`,
            [site, at, pick(PAGES), pick(SOURCES), pick(COUNTRIES), actor, hash],
          );
        } else {
          const name = rand() < 0.8 ? "pageview" : pick(["Signup", "Click"]);
          await h.pool.query(
            `insert into events (site_id, ts, name, page, source, channel, country, device, actor, rule, visitor_hash, props)
             values ($1, $2, $3, $4, $5, 'Direct', $6, 'Desktop', $7, 'test', $8, $9)`,
            [site, at, name, pick(PAGES), pick(SOURCES), pick(COUNTRIES), actor, hash, rand() < 0.3 ? JSON.stringify({ plan: pick(["a", "b"]) }) : null],
          );
        }
      }
    }
    // The day files' job learns which days have rows from the daily rollups.
    await h.pool.query("insert into rollup_daily (site_id, bucket, actor, dim, value, visitors) values ($1, $2, 'all', 'total', '', 1)", [site, day]);
  }
  const { rows } = await h.pool.query(`
    select 'e' as kind, (extract(epoch from ts) * 1000)::int8 as ts, name, page, source, country, actor, encode(substring(visitor_hash from 1 for 8), 'hex') as visitor, props::text as props from events where site_id = $1
    union all
    select 'h', (extract(epoch from ts) * 1000)::int8, 'hit', page, source, country, actor, encode(substring(visitor_hash from 1 for 8), 'hex'), null from hits where site_id = $1`, [site]);
  raw = rows.map((r) => ({ ...r, ts: Number(r.ts) }));
  enrich(raw);
  auth = bearer((await loginAsAdmin(h.base)).token);
});
afterAll(() => h.close());

/** The visit rule of query/rows.ts, restated: per UTC day and visitor, script rows with gaps under 30 minutes. */
function enrich(rows: Row[]): void {
  const groups = new Map<string, Row[]>();
  for (const r of rows.filter((x) => x.kind === "e")) {
    const key = `${r.visitor}|${Math.floor(r.ts / 86_400_000)}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  for (const list of groups.values()) {
    list.sort((a, b) => a.ts - b.ts || (a.page < b.page ? -1 : a.page > b.page ? 1 : 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    let visit: Row[] = [];
    const close = () => {
      if (visit.length === 0) return;
      const byTimePage = (a: Row, b: Row) => a.ts - b.ts || (a.page < b.page ? -1 : a.page > b.page ? 1 : 0);
      const pv = visit.filter((r) => r.name === "pageview").sort(byTimePage);
      const all = [...visit].sort(byTimePage);
      const entry = (pv[0] ?? all[0]!).page;
      const exit = (pv[pv.length - 1] ?? all[all.length - 1]!).page;
      for (const r of visit) {
        Object.assign(r, { visit: `${r.visitor}@${visit[0]!.ts}`, v_start: visit[0]!.ts, v_entry: entry, v_exit: exit, v_pv: pv.length, v_n: visit.length, v_dur: (visit[visit.length - 1]!.ts - visit[0]!.ts) / 1000 });
      }
      visit = [];
    };
    for (const r of list) {
      if (visit.length > 0 && r.ts - visit[visit.length - 1]!.ts >= 1_800_000) close();
      visit.push(r);
    }
    close();
  }
}

type Dim = "event:page" | "event:name" | "visit:source" | "visit:country" | "visit:entry_page" | "visit:exit_page" | "visit:actor" | "time:day" | "event:props:plan";
const value = (r: Row, d: Dim): string => {
  switch (d) {
    case "event:page": return r.page;
    case "event:name": return r.name;
    case "visit:source": return r.source || "Direct / None";
    case "visit:country": return r.country || "(not set)";
    case "visit:entry_page": return r.v_entry ?? "(not set)";
    case "visit:exit_page": return r.v_exit ?? "(not set)";
    case "visit:actor": return r.actor;
    case "time:day": return new Date(r.ts).toISOString().slice(0, 10);
    case "event:props:plan": return r.props === null ? "(none)" : ((JSON.parse(r.props) as { plan?: string }).plan ?? "(none)");
  }
};

type Leaf = [op: string, dim: Dim, clauses: string[]];
const matches = (r: Row, [op, dim, clauses]: Leaf): boolean => {
  const v = value(r, dim);
  switch (op) {
    case "is": return clauses.includes(v);
    case "is_not": return !clauses.includes(v);
    case "contains": return clauses.some((c) => v.includes(c));
    case "contains_not": return !clauses.some((c) => v.includes(c));
    case "matches": return clauses.some((c) => new RegExp(c).test(v));
    default: return !clauses.some((c) => new RegExp(c).test(v));
  }
};

const ROW_METRICS = ["visitors", "pageviews", "events", "hits"] as const;
const VISIT_METRICS = ["visits", "bounce_rate", "visit_duration", "views_per_visit"] as const;

function expected(metrics: string[], dims: Dim[], filters: Leaf[], from: number, to: number): Array<[string[], number[]]> {
  const all = dims.includes("visit:actor") || filters.some((f) => f[1] === "visit:actor");
  const m = raw.filter((r) => r.ts >= from && r.ts < to && (all || r.actor === "human") && filters.every((f) => matches(r, f)));
  const groups = new Map<string, Row[]>();
  for (const r of m) {
    const key = JSON.stringify(dims.map((d) => value(r, d)));
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  if (dims.length === 0) groups.set("[]", m);
  // A visit's time bucket is its start.
  const visitGroups = new Map<string, Map<string, Row>>();
  for (const r of m.filter((x) => x.kind === "e")) {
    const key = JSON.stringify(dims.map((d) => (d === "time:day" ? new Date(Math.max(r.v_start!, from)).toISOString().slice(0, 10) : value(r, d))));
    if (!visitGroups.has(key)) visitGroups.set(key, new Map());
    visitGroups.get(key)!.set(r.visit!, r);
  }
  const wantsRows = metrics.some((x) => (ROW_METRICS as readonly string[]).includes(x));
  const wantsVisits = metrics.some((x) => (VISIT_METRICS as readonly string[]).includes(x));
  // The SQL groups the rows when a row metric is asked (or none of the visit ones), the visits when a visit
  // metric is, and lists every group either has.
  const keys = new Set([...(wantsRows || !wantsVisits ? groups.keys() : []), ...(wantsVisits ? visitGroups.keys() : []), ...(dims.length === 0 ? ["[]"] : [])]);
  return [...keys].map((key) => {
    const rows = groups.get(key) ?? [];
    const visits = [...(visitGroups.get(key)?.values() ?? [])];
    const n = visits.length;
    const out = metrics.map((metric) => {
      switch (metric) {
        case "visitors": return new Set(rows.map((r) => r.visitor)).size;
        case "pageviews": return rows.filter((r) => r.kind === "e" && r.name === "pageview").length;
        case "events": return rows.filter((r) => r.kind === "e").length;
        case "hits": return rows.filter((r) => r.kind === "h").length;
        case "visits": return n;
        case "bounce_rate": return n === 0 ? 0 : Math.round((visits.filter((v) => v.v_n === 1).length / n) * 100);
        case "visit_duration": return n === 0 ? 0 : Math.round(visits.reduce((s, v) => s + v.v_dur!, 0) / n);
        default: return n === 0 ? 0 : Math.round((visits.reduce((s, v) => s + v.v_pv!, 0) / n) * 100) / 100;
      }
    });
    return [JSON.parse(key) as string[], out];
  });
}

const sorted = (list: Array<[string[], number[]]>) => [...list].map(([d, m]) => JSON.stringify([d, m])).sort();

function randomQuery(): { metrics: string[]; dims: Dim[]; filters: Leaf[] } {
  const eventDims: Dim[] = ["event:page", "event:name", "event:props:plan"];
  const visitDims: Dim[] = ["visit:source", "visit:country", "visit:entry_page", "visit:exit_page", "visit:actor", "time:day"];
  const dims: Dim[] = rand() < 0.2 ? [] : rand() < 0.5 ? [pick(eventDims)] : [pick(visitDims)];
  if (rand() < 0.25 && dims.length === 1 && dims[0] !== "time:day") dims.push("time:day");
  const visitOk = !dims.some((d) => d.startsWith("event:"));
  const metrics = [...ROW_METRICS, ...(visitOk ? VISIT_METRICS : (["visits"] as const))].filter(() => rand() < 0.5);
  if (metrics.length === 0) metrics.push("visitors");
  const filters: Leaf[] = [];
  for (let i = Math.floor(rand() * 3); i > 0; i--) {
    const dim = pick<Dim>(["event:page", "visit:source", "visit:country", "visit:entry_page", "visit:actor", "event:name"]);
    const op = pick(["is", "is_not", "contains", "contains_not", "matches", "matches_not"]);
    const sample = value(pick(raw), dim);
    const clause = op.startsWith("contains") ? sample.slice(0, 2) : op.startsWith("matches") ? `^${sample.slice(0, 2).replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}` : sample;
    filters.push([op, dim, [clause]]);
  }
  return { metrics, dims, filters };
}

describe("random queries recounted from the raw rows", () => {
  it("the day files' pass writes the settled days, not today", async () => {
    const db = await DuckDBInstance.create(":memory:");
    try {
      const files = new DayFiles(h.dataDir);
      const pass = await files.pass(h.pool, () => db.connect(), Date.parse(NOW));
      expect(pass.written).toBe(2);
      expect((await readdir(path.join(h.dataDir, "parquet", "site-1"))).sort()).toEqual(["2026-03-13.parquet", "2026-03-14.parquet"]);
      // Idempotent: a second pass writes nothing.
      expect((await files.pass(h.pool, () => db.connect(), Date.parse(NOW))).written).toBe(0);
    } finally {
      db.closeSync();
    }
  });

  it.each(Array.from({ length: 30 }, (_, i) => i))("query %i", async () => {
    const q = randomQuery();
    const ranges: Array<[unknown, number, number]> = [
      ["7d", Date.parse("2026-03-09T00:00:00Z"), Date.parse("2026-03-16T00:00:00Z")],
      [["2026-03-14", "2026-03-14"], Date.parse("2026-03-14T00:00:00Z"), Date.parse("2026-03-15T00:00:00Z")],
      [["2026-03-14T06:00:00Z", "2026-03-15T05:59:59Z"], Date.parse("2026-03-14T06:00:00Z"), Date.parse("2026-03-15T06:00:00Z")],
    ];
    const [dateRange, from, to] = pick(ranges);
    const res = await post(h.base, "/api/v2/query", { site_id: DOMAIN, date_range: dateRange, metrics: q.metrics, dimensions: q.dims, filters: q.filters }, auth);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const got = (res.json.results as Array<{ dimensions: string[]; metrics: number[] }>).map((r) => [r.dimensions, r.metrics] as [string[], number[]]);
    const want = expected(q.metrics, q.dims, q.filters, from, to);
    expect(sorted(got), JSON.stringify(q)).toEqual(sorted(want));
  });

  it("a damaged day file is dropped and the answer comes from PostgreSQL, still exact", async () => {
    await writeFile(path.join(h.dataDir, "parquet", "site-1", "2026-03-14.parquet"), "not parquet");
    const res = await post(h.base, "/api/v2/query", { site_id: DOMAIN, date_range: "7d", metrics: ["visitors", "visits", "pageviews"] }, auth);
    expect(res.status).toBe(200);
    const [want] = expected(["visitors", "visits", "pageviews"], [], [], Date.parse("2026-03-09T00:00:00Z"), Date.parse("2026-03-16T00:00:00Z"));
    expect(res.json.results[0].metrics).toEqual(want![1]);
    expect(await readdir(path.join(h.dataDir, "parquet", "site-1"))).toEqual(["2026-03-13.parquet"]);
  });
});
