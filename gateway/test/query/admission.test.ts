// The query engine's admission queue (query/admission.ts). Over HTTP with real PostgreSQL and DuckDB: a burst
// of queries at once answers exactly what the same queries answer one by one; work waits its turn first come
// first served; a full line answers 503 with Retry-After, never 500; rollup-served answers never wait. The
// queue alone: the wait bound, and a statement out of memory beside others tried again alone. A query whose
// client closed its connection while it waited is dropped at its turn, over HTTP and in the queue alone.
import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdmissionQueue } from "../../src/query/admission.ts";
import { ApiError, errorResponse } from "../../src/errors.ts";
import { bearer, call, loginAsAdmin } from "../support/auth.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { holdEngine } from "../support/query-engine.ts";
import { seededRandom } from "../support/seeded-random.ts";

const DOMAIN = "admission.example";
const NOW = "2026-03-15T18:00:00Z";
const QUEUED = 24;

let h: Harness;
let auth: Record<string, string>;

beforeAll(async () => {
  // One query at a time and a short line, so a burst waits and a bigger one overflows.
  h = await startHarness({ now: NOW, sites: [DOMAIN], env: { SVC_QUERY_RUNNING: "1", SVC_QUERY_QUEUE: String(QUEUED) } });
  const siteId = (await h.pool.query("select id from sites where domain = $1", [DOMAIN])).rows[0].id as number;
  const rand = seededRandom(22);
  const pick = <T,>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  for (const day of ["2026-03-14", "2026-03-15"]) {
    const start = Date.parse(`${day}T00:00:00Z`);
    for (let v = 0; v < 40; v++) {
      const hash = randomBytes(32);
      let ts = start + Math.floor(rand() * 17 * 3_600_000);
      for (let i = 1 + Math.floor(rand() * 5); i > 0 && ts < Date.parse(NOW); i--) {
        await h.pool.query(
          `insert into events (site_id, ts, name, page, source, channel, country, device, actor, rule, visitor_hash)
           values ($1, $2, $3, $4, $5, 'Direct', $6, 'Desktop', $7, 'test', $8)`,
          [siteId, new Date(ts), rand() < 0.9 ? "pageview" : "Signup", pick(["/", "/pricing", "/blog/a"]), pick([null, "Google"]), pick(["DE", "US", null]), pick(["human", "human", "bot"]), hash],
        );
        ts += Math.floor(rand() * 40) * 60_000;
      }
    }
  }
  await h.pool.query("insert into goals (site_id, name) values ($1, 'Signup')", [siteId]);
  auth = bearer((await loginAsAdmin(h.base)).token);
});
afterAll(() => h.close());

const RANGE = ["2026-03-14", "2026-03-15"] as const;
/** Queries DuckDB answers (filters, visit metrics, comparisons), one per shape. */
const DUCKDB_QUERIES: ReadonlyArray<Record<string, unknown>> = [
  { metrics: ["visitors", "visits", "bounce_rate", "visit_duration"], filters: [["is", "visit:source", ["Google"]]], include: { comparisons: { mode: "previous_period" } } },
  { metrics: ["visitors", "pageviews"], dimensions: ["event:page"], filters: [["is", "visit:country", ["DE"]]] },
  { metrics: ["visits", "views_per_visit"], dimensions: ["visit:entry_page"] },
  { metrics: ["visitors"], dimensions: ["visit:exit_page"], filters: [["is_not", "event:page", ["/"]]] },
  { metrics: ["visitors", "pageviews"], dimensions: ["time:day"], filters: [["contains", "event:page", ["blog"]]] },
  { metrics: ["visitors", "events"], dimensions: ["event:name"], filters: [["is", "visit:actor", ["human", "bot"]]] },
  { metrics: ["visitors"], dimensions: ["visit:source"], filters: [["is", "visit:country", ["US", "DE"]], ["is", "visit:actor", ["human"]]] },
  { metrics: ["bounce_rate"], dimensions: ["visit:country"] },
  { metrics: ["visitors", "pageviews"], dimensions: ["event:page"], filters: [["matches", "event:page", ["^/b"]]] },
  { metrics: ["visitors", "conversion_rate"], dimensions: ["visit:source"], filters: [["is", "event:goal", ["Signup"]]] },
];
const query = (body: Record<string, unknown>) => call(h.base, "POST", "/api/v2/query", { body: { site_id: DOMAIN, date_range: RANGE, ...body }, headers: auth });


const until = async (check: () => boolean): Promise<void> => {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
};

describe("over HTTP", () => {
  it("a burst of queries answers exactly what the same queries answer one by one, none refused", async () => {
    const sequential = [];
    for (const body of DUCKDB_QUERIES) {
      const reply = await query(body);
      expect(reply.status, JSON.stringify(reply.json)).toBe(200);
      sequential.push(reply.json);
    }
    // Everything at once: one runs, the rest wait their turn (the line holds QUEUED), twice over.
    const burst = await Promise.all([...DUCKDB_QUERIES, ...DUCKDB_QUERIES].map(query));
    for (const [i, reply] of burst.entries()) {
      expect(reply.status, JSON.stringify(reply.json)).toBe(200);
      expect(reply.json).toEqual(sequential[i % DUCKDB_QUERIES.length]);
    }
    expect(h.gateway.query.admission).toMatchObject({ running: 0, queued: 0, refused: 0 });
  });

  it("work starts first come first served: answers come back in the order the queries were sent", async () => {
    const hold = await holdEngine(h, DOMAIN, RANGE);
    const order: number[] = [];
    const replies: Array<Promise<unknown>> = [];
    for (const [i, body] of DUCKDB_QUERIES.slice(0, 6).entries()) {
      replies.push(query(body).then((reply) => {
        expect(reply.status).toBe(200);
        order.push(i);
      }));
      // Each query in the line before the next is sent (the route checks credentials and the site first).
      await until(() => h.gateway.query.admission.queued === i + 1);
    }
    hold.release();
    await Promise.all([...replies, hold.done]);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("a full line answers 503 overloaded with Retry-After, not 500; rollup-served answers do not wait", async () => {
    const hold = await holdEngine(h, DOMAIN, RANGE);
    const waiting = Array.from({ length: QUEUED }, (_, i) => query(DUCKDB_QUERIES[i % DUCKDB_QUERIES.length]!));
    await until(() => h.gateway.query.admission.queued === QUEUED);
    const before = h.gateway.query.admission.refused;
    const refused = await query(DUCKDB_QUERIES[0]!);
    expect(refused.status).toBe(503);
    expect(refused.json.error).toMatch(/^query engine overloaded: 24 queries are already waiting for the query engine; retry in \d+ s$/);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(h.gateway.query.admission.refused).toBe(before + 1);
    // The rollups answer unfiltered totals and breakdowns while the line is full.
    for (const body of [{ metrics: ["visitors", "pageviews"] }, { metrics: ["visitors"], dimensions: ["visit:source"] }]) {
      const reply = await query(body);
      expect(reply.status, JSON.stringify(reply.json)).toBe(200);
    }
    hold.release();
    for (const reply of await Promise.all(waiting)) expect(reply.status).toBe(200);
    await hold.done;
  });
});

describe("a client that goes away", () => {
  it("leaves the line: its query is dropped at its turn, never run, and the next one answers", async () => {
    const hold = await holdEngine(h, DOMAIN, RANGE);
    const before = h.gateway.query.admission.dropped;
    // A raw socket, so the test closes the connection itself while the query waits (as the dashboard's proxy
    // does when the browser withdraws a superseded question).
    const body = JSON.stringify({ site_id: DOMAIN, date_range: RANGE, ...DUCKDB_QUERIES[0] });
    const url = new URL(h.base);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    socket.write(`POST /api/v2/query HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: ${auth["authorization"]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    let answered = "";
    socket.on("data", (chunk: Buffer) => (answered += chunk.toString()));
    await until(() => h.gateway.query.admission.queued === 1);
    socket.destroy();
    const next = query(DUCKDB_QUERIES[1]!);
    await until(() => h.gateway.query.admission.queued === 2);
    // Let the transport see the closed connection before the turn comes.
    await new Promise((r) => setTimeout(r, 50));
    hold.release();
    await hold.done;
    expect((await next).status).toBe(200);
    expect(h.gateway.query.admission).toMatchObject({ running: 0, queued: 0, dropped: before + 1 });
    expect(answered).toBe("");
  });
});

describe("the queue alone", () => {
  it("drops work whose client has gone by its turn (499 client_closed), without running it", async () => {
    const queue = new AdmissionQueue({ running: 1, queued: 4, waitMs: 5000 });
    let release!: () => void;
    const running = queue.run(() => new Promise<void>((resolve) => (release = resolve)));
    let left = false;
    const ran: string[] = [];
    const gone = queue.run(async () => ran.push("gone"), undefined, () => left).catch((e: unknown) => e);
    const stays = queue.run(async () => ran.push("stays"), undefined, () => false);
    await until(() => queue.stats.queued === 2);
    left = true;
    release();
    await running;
    const error = await gone;
    await stays;
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).reason).toBe("client_closed");
    expect(errorResponse(error).status).toBe(499);
    expect(ran).toEqual(["stays"]);
    expect(queue.stats).toMatchObject({ running: 0, queued: 0, dropped: 1 });
  });

  const outOfMemory = () => new Error("Out of Memory Error: could not allocate block of size 256.0 KiB (240.0 MiB/244.1 MiB used)");
  const isOom = (e: unknown) => e instanceof Error && e.message.startsWith("Out of Memory Error");

  it("answers 503 after the longest wait, and the mapping gives 503 with Retry-After", async () => {
    const queue = new AdmissionQueue({ running: 1, queued: 4, waitMs: 100 });
    let release!: () => void;
    const running = queue.run(() => new Promise<void>((resolve) => (release = resolve)));
    const error = await queue.run(async () => "never").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe("query engine overloaded: the query waited 0.1 s for the query engine without starting; retry in 1 s");
    const response = errorResponse(error);
    expect(response.status).toBe(503);
    expect(response.headers?.["retry-after"]).toBe("1");
    release();
    await running;
    expect(queue.stats).toEqual({ running: 0, queued: 0, refused: 1, retriedAlone: 0, dropped: 0 });
  });

  it("a statement out of memory beside others runs once more alone; out of memory alone it fails", async () => {
    const queue = new AdmissionQueue({ running: 2, queued: 8, waitMs: 5000 });
    let releaseOther!: () => void;
    const other = queue.run(() => new Promise<string>((resolve) => (releaseOther = () => resolve("other"))));
    let attempts = 0;
    const aloneAtRetry: boolean[] = [];
    const retried = queue.run(async () => {
      attempts++;
      if (attempts === 1) throw outOfMemory();
      aloneAtRetry.push(queue.stats.running === 1);
      return "fits alone";
    }, isOom);
    // The retry waits for the other to end, and a newcomer waits behind the retry.
    await until(() => queue.stats.queued === 1);
    const later = queue.run(async () => "later");
    releaseOther();
    expect(await Promise.all([other, retried, later])).toEqual(["other", "fits alone", "later"]);
    expect(aloneAtRetry).toEqual([true]);
    expect(queue.stats.retriedAlone).toBe(1);

    // Alone from the start: the error stands, no retry.
    let tries = 0;
    await expect(queue.run(async () => {
      tries++;
      throw outOfMemory();
    }, isOom)).rejects.toThrow(/^Out of Memory Error/);
    expect(tries).toBe(1);
  });

  it("starts waiters in the order they came, as slots free up", async () => {
    const queue = new AdmissionQueue({ running: 2, queued: 8, waitMs: 5000 });
    const releases: Array<() => void> = [];
    const started: number[] = [];
    const all = Array.from({ length: 6 }, (_, i) => queue.run(() => new Promise<void>((resolve) => {
      started.push(i);
      releases[i] = resolve;
    })));
    await until(() => started.length === 2);
    await new Promise((r) => setTimeout(r, 20));
    expect(started).toEqual([0, 1]);
    releases[1]!();
    await until(() => started.length === 3);
    releases[0]!();
    await until(() => started.length === 4);
    expect(started).toEqual([0, 1, 2, 3]);
    releases[3]!();
    releases[2]!();
    await until(() => started.length === 6);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    releases[4]!();
    releases[5]!();
    await Promise.all(all);
  });
});
