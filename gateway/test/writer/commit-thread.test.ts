// The commit thread (SVC_COMMIT_THREAD, writer/commit-thread.ts) over real HTTP and a real PostgreSQL: a 202 is
// still answered only after the row's batch committed, every acknowledged event is stored exactly once with
// rollups equal to a recount, a row PostgreSQL refuses fails only its own request (422), no client address
// reaches the database, and the same holds with the thread off.
import { afterEach, describe, expect, it } from "vitest";
import { type Harness, UA, post, startHarness } from "../support/harness.ts";
import { recomputedRollups, storedRollups } from "../support/recompute.ts";

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const SITES = ["a.example", "b.example"];

function event(h: Harness, domain: string, page: string, ip: string): Promise<number> {
  return post(h.base, "/api/event", { d: domain, u: `https://${domain}${page}` }, { "user-agent": UA.chrome, "x-forwarded-for": ip }).then((r) => r.status);
}

async function storedPages(h: Harness): Promise<string[]> {
  return (await h.pool.query<{ page: string }>("select page from events order by page")).rows.map((r) => r.page);
}

describe.each([true, false])("SVC_COMMIT_THREAD=%s", (thread) => {
  it("answers 202 only after the commit, stores every acknowledged event once, rollups equal a recount", async () => {
    h = await startHarness({ sites: SITES, env: { SVC_TRUST_PROXY: "1", SVC_COMMIT_THREAD: String(thread) } });
    expect(h.logs.some((l) => l.includes("commit thread started"))).toBe(thread);
    // One at a time: each 202 must find its row already committed, as seen from another connection.
    for (let i = 0; i < 20; i++) {
      expect(await event(h, "a.example", `/seq/${i}`, `203.0.113.${i}`)).toBe(202);
      const { rows } = await h.pool.query("select count(*)::int as n from events where page = $1", [`/seq/${i}`]);
      expect(rows[0].n).toBe(1);
    }
    // Many at once over both sites: batches of many requests, each answered once its batch committed.
    const pages = Array.from({ length: 400 }, (_, i) => `/burst/${String(i).padStart(3, "0")}`);
    const statuses = await Promise.all(pages.map((page, i) => event(h!, SITES[i % 2]!, page, `198.51.100.${i % 200}`)));
    expect(statuses.every((s) => s === 202)).toBe(true);
    const stored = (await storedPages(h)).filter((p) => p.startsWith("/burst/"));
    expect(stored).toEqual(pages);
    // No client address is stored in any column (it is hashed in the lane and dropped).
    const { rows } = await h.pool.query("select count(*)::int as n from events e where e::text ~ '(203\\.0\\.113|198\\.51\\.100)\\.'");
    expect(rows[0].n).toBe(0);
    await h.gateway.rollups.flushBeforeRead();
    for (const domain of SITES) {
      const id = (await h.pool.query("select id from sites where domain = $1", [domain])).rows[0].id;
      for (const grain of ["day", "hour"] as const) expect(await storedRollups(h.pool, id, grain)).toEqual(await recomputedRollups(h.pool, id, grain));
    }
  });

  it("a row PostgreSQL refuses fails only its own request (422); the others in its batch commit", async () => {
    h = await startHarness({ sites: SITES, env: { SVC_TRUST_PROXY: "1", SVC_COMMIT_THREAD: String(thread) } });
    // Any refusal the schemas cannot foresee; a CHECK constraint stands for it (SQLSTATE 23514).
    await h.pool.query("alter table events add constraint refuse_test_rows check (page <> '/refused')");
    const pages = ["/ok/1", "/ok/2", "/refused", "/ok/3", "/ok/4"];
    const statuses = await Promise.all(pages.map((page, i) => event(h!, SITES[i % 2]!, page, `192.0.2.${i + 1}`)));
    expect(statuses).toEqual([202, 202, 422, 202, 202]);
    expect(await storedPages(h)).toEqual(["/ok/1", "/ok/2", "/ok/3", "/ok/4"]);
    // The writer goes on committing afterwards.
    expect(await event(h, "a.example", "/after", "192.0.2.9")).toBe(202);
    expect(await storedPages(h)).toContain("/after");
  });
});
