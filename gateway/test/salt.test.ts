// The daily salt: one visitor before 00:00 UTC and the same IP and UA after it are two visitors,
// and once the day is over its salt is gone from the database, so old hashes can't be recomputed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitRows } from "../src/writer/commit-rows.ts";
import { type Harness, UA, post, startHarness } from "./support/harness.ts";

describe("daily salt rotation", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ now: "2026-06-14T23:59:59.999Z", env: { SVC_TRUST_PROXY: "1" }, sites: ["example.com"] });
  });
  afterAll(async () => {
    await h?.close();
  });

  const send = (page: string) =>
    post(h.base, "/api/event", { d: "example.com", u: `https://example.com${page}` }, { "user-agent": UA.chrome, "x-forwarded-for": "81.2.69.142" });

  it("counts the same IP and UA as two visitors across midnight, and deletes the past salt", async () => {
    expect((await send("/before")).status).toBe(202);
    expect((await send("/before-again")).status).toBe(202);
    h.clock.set("2026-06-15T00:00:00.000Z");
    expect((await send("/after")).status).toBe(202);

    const { rows } = await h.pool.query("select page, encode(visitor_hash, 'hex') as hash from events order by ts, page");
    const byPage = Object.fromEntries(rows.map((r) => [r.page, r.hash]));
    expect(byPage["/before"]).toBe(byPage["/before-again"]);
    expect(byPage["/after"]).not.toBe(byPage["/before"]);

    await h.gateway.rollups.flushBeforeRead();
    const daily = await h.pool.query("select bucket::text as day, visitors::int from rollup_daily where dim = 'total' and actor = 'human' order by bucket");
    expect(daily.rows).toEqual([{ day: "2026-06-14", visitors: 1 }, { day: "2026-06-15", visitors: 1 }]);

    await h.restart(); // maintenance runs at boot, as it does every minute
    const salts = await h.pool.query("select day::text as day from salts order by day");
    expect(salts.rows).toEqual([{ day: "2026-06-15" }]);
  });
});

// A row's hash is made when it is offered to its lane, with the lane's salt of that moment (SiteLane.offer); the
// lane's turn may come after midnight, when the row is stamped in the new day and must carry the new day's hash.
describe("a row offered before midnight and taken after it", () => {
  let h: Harness;
  let gate: Promise<void> = Promise.resolve();
  let release: () => void = () => undefined;
  let waiting = 0;
  beforeAll(async () => {
    h = await startHarness({
      now: "2026-06-14T23:59:59.990Z",
      env: { SVC_TRUST_PROXY: "1" },
      sites: ["example.com"],
      // Commits wait while the test holds the gate: the lane's next turn waits for them.
      commit: async (connections, batch) => {
        waiting++;
        await gate;
        await commitRows(connections, batch);
      },
    });
  });
  afterAll(async () => {
    release();
    await h?.close();
  });

  const send = (page: string) =>
    post(h.base, "/api/event", { d: "example.com", u: `https://example.com${page}` }, { "user-agent": UA.chrome, "x-forwarded-for": "81.2.69.142" });

  it("is hashed again with the new day's salt", async () => {
    expect((await send("/a")).status).toBe(202);
    gate = new Promise<void>((r) => (release = r));
    const b = send("/b");
    await expect.poll(() => waiting, { timeout: 5_000 }).toBe(2);
    // While "/b" commits, "/c" and "/d" reach the lane, which takes the first into its hand (waiting for the commit
    // slot) and leaves the other in its mailbox: both were offered, and hashed ahead, with the 14th's salt.
    const later = [send("/c"), send("/d")];
    const lane = h.gateway.lanes.find((await h.pool.query("select id from sites where domain = 'example.com'")).rows[0].id)!;
    await expect.poll(() => lane.depth, { timeout: 5_000 }).toBe(1);
    h.clock.set("2026-06-15T00:00:00.000Z");
    release();
    expect([(await b).status, ...(await Promise.all(later)).map((r) => r.status)]).toEqual([202, 202, 202]);
    expect((await send("/e")).status).toBe(202);

    const { rows } = await h.pool.query("select page, ts, encode(visitor_hash, 'hex') as hash from events order by page");
    const byPage = Object.fromEntries(rows.map((r) => [r.page, r]));
    expect(byPage["/b"].hash).toBe(byPage["/a"].hash);
    expect([byPage["/c"].ts, byPage["/d"].ts]).toEqual([new Date("2026-06-15T00:00:00.000Z"), new Date("2026-06-15T00:00:00.000Z")]);
    expect([byPage["/c"].hash, byPage["/d"].hash]).toEqual([byPage["/e"].hash, byPage["/e"].hash]);
    expect(byPage["/e"].hash).not.toBe(byPage["/a"].hash);
  });
});
