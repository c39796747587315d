// The engine reads beside POST /api/v2/query — goals (a page-path goal; every goal of a filtered shared link),
// funnels and property names, the owner's and a shared link's — pass the request's `gone` to the query engine
// as the query route does (query/admission.ts): a client that closed its connection while its read waited for
// the engine is dropped at its turn, never run, and the next read answers. Over real HTTP with raw sockets,
// real PostgreSQL and DuckDB. The running case: work over the engine's rows (a funnel's, the property names')
// whose client leaves mid-statement is interrupted and frees the engine.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseQuery } from "../../src/query/request.ts";
import { findSiteByDomain } from "../../src/storage/sites.ts";
import { bearer, call, loginAsAdmin } from "../support/auth.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { holdEngine } from "../support/query-engine.ts";

const DOMAIN = "gone.example";
const NOW = "2026-03-15T18:00:00Z";

let h: Harness;
let auth: Record<string, string>;
let siteId: number;
let funnelId: number;
let filteredToken: string;
let plainToken: string;

beforeAll(async () => {
  h = await startHarness({ now: NOW, sites: [DOMAIN], env: { SVC_QUERY_RUNNING: "1", SVC_QUERY_QUEUE: "8" } });
  siteId = (await h.pool.query("select id from sites where domain = $1", [DOMAIN])).rows[0].id as number;
  for (let i = 0; i < 30; i++) {
    await h.pool.query(
      `insert into events (site_id, ts, name, page, source, channel, device, actor, rule, visitor_hash, props)
       values ($1, $2, 'pageview', $3, 'Google', 'Search', 'Desktop', 'human', 'test', $4, '{"plan":"pro"}')`,
      [siteId, new Date(Date.parse("2026-03-15T10:00:00Z") + i * 60_000), i % 2 === 0 ? "/" : "/pricing", Buffer.alloc(32, i % 5)],
    );
  }
  auth = bearer((await loginAsAdmin(h.base)).token);
  expect((await call(h.base, "POST", `/api/sites/${siteId}/goals`, { body: { page_path: "/pricing" }, headers: auth })).status).toBe(201);
  const funnel = await call(h.base, "POST", `/api/sites/${siteId}/funnels`, { body: { name: "Pricing", steps: [{ page_path: "/" }, { page_path: "/pricing" }] }, headers: auth });
  funnelId = funnel.json.id;
  filteredToken = (await call(h.base, "POST", `/api/sites/${siteId}/shares`, { body: { filters: [["is", "visit:source", ["Google"]]] }, headers: auth })).json.token;
  plainToken = (await call(h.base, "POST", `/api/sites/${siteId}/shares`, { body: {}, headers: auth })).json.token;
});
afterAll(() => h.close());

const until = async (check: () => boolean): Promise<void> => {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
};


/** A GET on a raw socket, so the test closes the connection itself; what came back before it closed. */
async function rawGet(path: string, headers: Record<string, string>): Promise<{ close: () => void; answered: () => string }> {
  const url = new URL(h.base);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("");
  socket.write(`GET ${path} HTTP/1.1\r\nhost: ${url.host}\r\n${lines}\r\n`);
  let answered = "";
  socket.on("data", (chunk: Buffer) => (answered += chunk.toString()));
  return { close: () => socket.destroy(), answered: () => answered };
}

const READS: ReadonlyArray<readonly [string, () => string, boolean]> = [
  ["the owner's goals (a page-path goal is counted by the engine)", () => `/api/sites/${siteId}/goals?days=7`, true],
  ["the owner's funnel", () => `/api/sites/${siteId}/funnels/${funnelId}/result?days=7`, true],
  ["the owner's property names", () => `/api/sites/${siteId}/props?days=7`, true],
  ["a filtered link's goals", () => `/api/share/${filteredToken}/goals?days=7`, false],
  ["a link's funnel", () => `/api/share/${plainToken}/funnels/${funnelId}/result?days=7`, false],
  ["a link's property names", () => `/api/share/${plainToken}/props?days=7`, false],
];

describe("a client that goes away while its read waits for the engine", () => {
  it.each(READS)("%s: dropped at its turn, never run; the next read answers", async (_name, path, owner) => {
    const headers = owner ? auth : {};
    // What the read answers when its client stays.
    const whole = await call(h.base, "GET", path(), { headers });
    expect(whole.status, JSON.stringify(whole.json)).toBe(200);

    const hold = await holdEngine(h, DOMAIN, "day");
    const before = h.gateway.query.admission.dropped;
    const leaving = await rawGet(path(), headers);
    await until(() => h.gateway.query.admission.queued === 1);
    leaving.close();
    const next = call(h.base, "GET", path(), { headers });
    await until(() => h.gateway.query.admission.queued === 2);
    // Let the transport see the closed connection before the turn comes.
    await new Promise((r) => setTimeout(r, 50));
    hold.release();
    await hold.done;
    const answer = await next;
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual(whole.json);
    expect(h.gateway.query.admission).toMatchObject({ running: 0, queued: 0, dropped: before + 1 });
    expect(leaving.answered()).toBe("");
  });
});

describe("a client that goes away while its read runs", () => {
  it("interrupts the statement over the engine's rows and frees the engine for the next read", async () => {
    const site = (await findSiteByDomain(h.pool, DOMAIN))!;
    let left = false;
    const started = Date.now();
    // A statement of many seconds (10^11 rows counted), as a funnel over a long range can be.
    const work = h.gateway.query.overRows(site, parseQuery({ site_id: DOMAIN, date_range: "day", metrics: ["visitors"] }), async (connection) => {
      setTimeout(() => (left = true), 200);
      await connection.run("select count(*) from range(100000000000) t(i) where i % 7 = 3");
    }, () => left);
    const error = await work.catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: "client_closed" });
    // Stopped within the poll (100 ms) after the client left, not after the statement's seconds.
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(h.gateway.query.admission).toMatchObject({ running: 0, queued: 0 });
    expect((await call(h.base, "GET", `/api/sites/${siteId}/props?days=7`, { headers: auth })).status).toBe(200);
  });
});
