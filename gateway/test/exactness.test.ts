// After a randomised mixed load across an hour, a day and a month boundary, every rollup row equals
// the aggregate recomputed from the raw rows — including exact distinct visitors per value — and a
// restart mid-day continues the numbers exactly.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, UA, post, startHarness } from "./support/harness.ts";
import { recomputedRollups, storedRollups } from "./support/recompute.ts";
import { commitRows } from "../src/writer/commit-rows.ts";
import type { CommitFn } from "../src/writer/group-commit.ts";

function prng(seed: number) {
  return () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
}

const UAS = Object.values(UA);
const REFERRERS = [null, "https://www.google.com/", "https://chatgpt.com/", "https://perplexity.ai/search", "https://news.ycombinator.com/", "https://example.com/self"];
const PAGES = ["/", "/pricing", "/blog/a", "/blog/b", "/docs?utm_source=newsletter&utm_medium=email", "/launch?utm_source=chatgpt.com&utm_campaign=spring"];
const IPS = Array.from({ length: 40 }, (_, i) => (i % 4 === 0 ? `2a02:c7c:${i.toString(16)}::1` : `81.2.${i}.${(i * 7) % 250}`));

async function load(h: Harness, rand: () => number, n: number): Promise<void> {
  const pick = <T,>(a: readonly T[]) => a[Math.floor(rand() * a.length)]!;
  const requests: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const ip = pick(IPS);
    const ua = pick(UAS);
    const page = pick(PAGES);
    if (rand() < 0.7) {
      const name = rand() < 0.8 ? "pageview" : pick(["Signup", "Outbound Link", "File Download"]);
      requests.push(post(h.base, "/api/event", { d: "example.com", n: name, u: `https://example.com${page}`, r: pick(REFERRERS) }, { "user-agent": ua, "x-forwarded-for": ip }));
    } else {
      requests.push(post(h.base, "/api/hit", [{ domain: "example.com", method: "GET", path: page, status: pick([200, 200, 301, 404, 500]), user_agent: ua, referrer: pick(REFERRERS), ip }]));
    }
    if (requests.length >= 16) {
      const results = (await Promise.all(requests.splice(0))) as Array<{ status: number }>;
      for (const r of results) expect(r.status).toBe(202);
    }
  }
  const results = (await Promise.all(requests)) as Array<{ status: number }>;
  for (const r of results) expect(r.status).toBe(202);
}

describe("rollups are exact", () => {
  let h: Harness;
  let siteId: number;
  beforeAll(async () => {
    h = await startHarness({ now: "2026-03-31T22:40:00Z", env: { SVC_TRUST_PROXY: "1" }, sites: ["example.com"] });
    siteId = (await h.pool.query("select id from sites where domain = 'example.com'")).rows[0].id;
  });
  afterAll(async () => {
    await h?.close();
  });

  it("across hours, the day and month boundary, and a restart mid-day", async () => {
    const rand = prng(42);
    await load(h, rand, 250); // 22:40
    h.clock.set("2026-03-31T23:59:59.500Z");
    await load(h, rand, 150);
    h.clock.set("2026-04-01T00:00:00.000Z"); // a new day, a new month, a new salt
    await load(h, rand, 150);
    h.clock.set("2026-04-01T01:15:00.000Z");
    await load(h, rand, 150);
    await h.restart(); // the same day continues from the rows already stored
    await load(h, rand, 200);
    await h.gateway.rollups.flushBeforeRead();

    for (const grain of ["day", "hour"] as const) {
      const stored = await storedRollups(h.pool, siteId, grain);
      const expected = await recomputedRollups(h.pool, siteId, grain);
      expect(stored.length).toBeGreaterThan(100);
      expect(stored).toEqual(expected);
    }
    const days = await h.pool.query("select distinct bucket::text as day from rollup_daily where site_id = $1 order by 1", [siteId]);
    expect(days.rows.map((r) => r.day)).toEqual(["2026-03-31", "2026-04-01"]);
    const partitions = await h.pool.query("select count(*)::int as n from events_default");
    expect(partitions.rows[0].n).toBe(0);
  });
});

describe("rollups stay exact when a batch fails while another is in flight", () => {
  let h: Harness;
  let siteId: number;
  beforeAll(async () => {
    // The database refuses every batch holding a row of /poison; everything else commits normally.
    const commit: CommitFn = async (pool, batch) => {
      if (batch.events.some((e) => e.page === "/poison")) throw new Error("simulated database failure");
      await commitRows(pool, batch);
    };
    h = await startHarness({ env: { SVC_TRUST_PROXY: "1", SVC_WRITER_IN_FLIGHT: "2" }, sites: ["example.com"], commit });
    siteId = (await h.pool.query("select id from sites where domain = 'example.com'")).rows[0].id;
  });
  afterAll(async () => {
    await h?.close();
  });

  it("answers 503 for what was not stored, and every rollup still equals its raw rows", async () => {
    const rand = prng(7);
    const send = (page: string, ip: string) =>
      post(h.base, "/api/event", { d: "example.com", u: `https://example.com${page}` }, { "user-agent": UA.chrome, "x-forwarded-for": ip });
    const statuses: number[] = [];
    for (let round = 0; round < 3; round++) {
      // A new visitor whose first row is refused, then seen again by batches committed while the
      // refused batch is still being retried: those batches assumed the visitor was already counted.
      const poisoned = send("/poison", `81.9.9.${round}`);
      await new Promise((r) => setTimeout(r, 120));
      const followers = await Promise.all([send("/a", `81.9.9.${round}`), send("/b", `81.9.9.${round}`), send("/a", `81.2.3.${round}`)]);
      statuses.push((await poisoned).status, ...followers.map((r) => r.status));
    }
    await load(h, rand, 60); // the site recovers and keeps counting
    expect(statuses).toContain(503);
    expect(statuses).toContain(202);
    expect(new Set(statuses)).toEqual(new Set([202, 503]));
    expect(h.gateway.writer.stats.failedBatches).toBeGreaterThan(0);
    await h.gateway.rollups.flushBeforeRead();
    const poisoned = await h.pool.query("select count(*)::int as n from events where page = '/poison'");
    expect(poisoned.rows[0].n).toBe(0);
    for (const grain of ["day", "hour"] as const) {
      expect(await storedRollups(h.pool, siteId, grain)).toEqual(await recomputedRollups(h.pool, siteId, grain));
    }
  });
});
