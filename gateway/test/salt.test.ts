// The daily salt: one visitor before 00:00 UTC and the same IP and UA after it are two visitors,
// and once the day is over its salt is gone from the database, so old hashes can't be recomputed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
