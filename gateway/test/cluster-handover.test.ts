// Two in-process gateways with SVC_CLUSTER on one database (no HAProxy: each request goes to the gateway the
// test names): `?d=` must name the body's site; a site owned by one gateway is refused by the other with 503 +
// Retry-After until the owner, asked over NOTIFY, lets it go once quiet; the visitor both saw counts once; and
// a live stream on the gateway that does not own a site gets that site's deltas within 1 s.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "@svc/core";
import { type Gateway, startGateway } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/log.ts";
import { addSite } from "../src/storage/sites.ts";
import { createApiKey, loginAsAdmin } from "./support/auth.ts";
import { createTestDatabase, type TestDatabase } from "./support/database.ts";
import { post, UA } from "./support/harness.ts";
import { recomputedRollups, storedRollups } from "./support/recompute.ts";
import { subscribe } from "./support/sse.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("two gateways of a cluster", () => {
  let db: TestDatabase;
  const gateways: Gateway[] = [];
  const logs: string[][] = [[], []];
  let a: string;
  let b: string;

  beforeAll(async () => {
    db = await createTestDatabase({ nowMs: Date.now() });
    for (const domain of ["handover.test", "live.test", "other.test"]) await addSite(db.pool, { domain });
    for (const [i, name] of ["a", "b"].entries()) {
      const config = {
        ...loadConfig({ SVC_PORT: "0", SVC_HOST: "127.0.0.1", SVC_CLUSTER: "true", SVC_GATEWAY_NAME: name, SVC_EVENT_RATE_PER_CLIENT: "0", SVC_FAILED_CREDENTIALS_PER_CLIENT: "0", SVC_LOG_LEVEL: "debug" }),
        databaseUrl: db.url,
      };
      gateways.push(
        await startGateway({ config, database: { pool: db.pool, url: db.url, embedded: false, close: async () => undefined }, clock: systemClock, log: createLogger("debug", (l) => logs[i]!.push(l)) }),
      );
    }
    [a, b] = gateways.map((g) => `http://127.0.0.1:${g.port}`) as [string, string];
  });

  afterAll(async () => {
    for (const g of gateways) await g.stop();
    await db.drop();
  });

  const eventOnce = (base: string, domain: string, d: string | null, page: string, ua: string = UA.chrome) =>
    post(base, `/api/event${d === null ? "" : `?d=${d}`}`, { d: domain, u: `https://${domain}${page}` }, { "user-agent": ua });
  /** As a client does: a 503 (a site's first rows wait for its lock and rebuild, ≤ 250 ms, then 503) is sent again. */
  const event = async (base: string, domain: string, d: string | null, page: string, ua: string = UA.chrome) => {
    for (let attempt = 1; ; attempt++) {
      const res = await eventOnce(base, domain, d, page, ua);
      if (res.status !== 503 || attempt === 20) return res;
      await sleep(250);
    }
  };

  it.each([
    { note: "another site in ?d=", d: "other.test", status: 400 },
    { note: "the same site, other case and a final dot", d: "HandOver.Test.", status: 202 },
    { note: "no ?d= (one gateway, or an old client)", d: null, status: 202 },
  ])("/api/event with $note → $status", async ({ d, status }) => {
    const res = await event(a, "handover.test", d, "/d");
    expect(res.status).toBe(status);
    if (status === 400) expect(res.json).toEqual({ error: "the body's domain differs from the d query parameter", details: [{ path: "d", message: "must be the domain of the body's site" }] });
  });

  it("/api/hit refuses an array with a hit of another site than ?d=", async () => {
    const hit = (domain: string) => ({ domain, method: "GET", path: "/x", status: 200, user_agent: UA.gptbot, ip: "203.0.113.5" });
    const res = await post(a, "/api/hit?d=handover.test", [hit("handover.test"), hit("other.test")]);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: "the body's domain differs from the d query parameter" });
  });

  it("hands a site over: 503 + Retry-After from the other gateway until the owner lets it go, the visitor counted once", async () => {
    expect((await event(a, "handover.test", "handover.test", "/first")).status).toBe(202);
    const refused = await eventOnce(b, "handover.test", "handover.test", "/second");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.json).toEqual({ error: "this site is moving between gateways; retry" });
    // The client retries after Retry-After; gateway a received nothing for a second by then and let the site go.
    let status = 503;
    for (let i = 0; i < 10 && status === 503; i++) {
      await sleep(1000);
      status = (await eventOnce(b, "handover.test", "handover.test", "/second")).status;
    }
    expect(status).toBe(202);
    expect(logs[0]!.join("\n")).toContain("site released to another gateway");
    await gateways[1]!.rollups.flushBeforeRead();
    const site = (await db.pool.query<{ id: number }>("select id from sites where domain = 'handover.test'")).rows[0]!.id;
    for (const grain of ["day", "hour"] as const) expect(await storedRollups(db.pool, site, grain)).toEqual(await recomputedRollups(db.pool, site, grain));
    const { rows } = await db.pool.query<{ visitors: number; pageviews: number }>(
      "select visitors::int, pageviews::int from rollup_daily where site_id = $1 and actor = 'all' and dim = 'total'",
      [site],
    );
    expect(rows).toEqual([{ visitors: 1, pageviews: 4 }]);
  }, 20_000);

  it("streams a site's live deltas on the gateway that does not own it, within 1 s of the 202", async () => {
    expect((await event(a, "live.test", "live.test", "/warm")).status).toBe(202);
    const { token } = await loginAsAdmin(b);
    const key = await createApiKey(b, token);
    const site = (await db.pool.query<{ id: number }>("select id from sites where domain = 'live.test'")).rows[0]!.id;
    const stream = subscribe(`${b}/api/sites/${site}/live`, { authorization: `Bearer ${key}` });
    await stream.opened;
    // The owner learns of the watcher within its next announcement (a new stream is announced within 200 ms).
    await sleep(600);
    const sent = Date.now();
    expect((await event(a, "live.test", "live.test", "/watched", UA.iphone)).status).toBe(202);
    let delta = stream.events.find((e) => e.event === "delta");
    while (delta === undefined && Date.now() - sent < 3000) {
      await sleep(20);
      delta = stream.events.find((e) => e.event === "delta");
    }
    stream.close();
    expect(delta).toBeDefined();
    expect(delta!.receivedAt - sent).toBeLessThanOrEqual(1000);
    expect(delta!.data.totals.human).toMatchObject({ pageviews: 1, visitors: 1 });
  }, 20_000);
});
