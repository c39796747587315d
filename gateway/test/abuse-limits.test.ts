// Abuse limits of the unauthenticated ingest routes over real HTTP: per-client /api/event (IPv6 per /64),
// per-site /api/hit (counted after the hit token), 429 with Retry-After, refill on the injected clock, and a
// bounded limiter. Small rates keep the requests few; the defaults' numbers are checked on their own.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { BURST_SECONDS, MAX_BUCKETS, TokenBuckets, createIngestLimits } from "../src/ingest/rate-limits.ts";
import { addressId } from "../src/ingest/siphash.ts";
import { type Harness, UA, post, startHarness } from "./support/harness.ts";

let h: Harness;
const RATE = 2; // per second: buckets of 2 × 30 = 60
const BURST = RATE * BURST_SECONDS;

beforeAll(async () => {
  h = await startHarness({
    sites: ["limited.example", "other.example"],
    env: { SVC_TRUST_PROXY: "1", SVC_EVENT_RATE_PER_CLIENT: String(RATE), SVC_HIT_RATE_PER_SITE: String(RATE) },
  });
});
afterAll(async () => {
  await h?.close();
});

const event = (ip: string) => post(h.base, "/api/event", { d: "limited.example", u: "https://limited.example/" }, { "user-agent": UA.chrome, "x-forwarded-for": ip });
const hits = (domain: string, n: number, headers: Record<string, string> = {}) =>
  post(h.base, "/api/hit", Array.from({ length: n }, (_, i) => ({ domain, method: "GET", path: `/h/${i}`, status: 200, user_agent: UA.gptbot, referrer: null, ip: "81.2.69.142" })), headers);

describe("the defaults", () => {
  it("are 10 events/s per client and 1,000 hits/s per site, with 30 s bursts", () => {
    expect(loadConfig({})).toMatchObject({ eventRatePerClient: 10, hitRatePerSite: 1000 });
    expect(BURST_SECONDS).toBe(30);
  });
});

describe("/api/event: per client", () => {
  it("answers 429 with Retry-After (and CORS) past the burst, other clients unaffected, refilled by the clock", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < BURST; i += 20) statuses.push(...(await Promise.all(Array.from({ length: 20 }, () => event("203.0.113.10")))).map((r) => r.status));
    expect(statuses.every((s) => s === 202)).toBe(true);
    const limited = await event("203.0.113.10");
    expect(limited.status).toBe(429);
    expect(limited.json).toEqual({ error: "too many events from this client; retry later" });
    expect(limited.headers.get("retry-after")).toBe("1");
    expect(limited.headers.get("access-control-allow-origin")).toBe("*");
    expect((await event("203.0.113.11")).status).toBe(202);

    h.clock.advance(1000); // 2 tokens
    expect((await event("203.0.113.10")).status).toBe(202);
    expect((await event("203.0.113.10")).status).toBe(202);
    expect((await event("203.0.113.10")).status).toBe(429);
    expect(h.gateway.counters.counts["rate_limited"]).toBeGreaterThanOrEqual(2);
  });

  it("counts an IPv6 client per /64: another address of the same block is the same client", async () => {
    for (let i = 0; i < BURST; i += 20) await Promise.all(Array.from({ length: 20 }, (_, j) => event(`2001:db8:1:2::${(i + j).toString(16)}`)));
    expect((await event("2001:db8:1:2:ffff:ffff:ffff:fffe")).status).toBe(429);
    expect((await event("2001:db8:1:3::1")).status).toBe(202);
  });
});

// /api/event hashes the client's address once (`addressId`) and hands the id to the limiter, which files an IPv4
// client (or an unknown one) under it and an IPv6 client under its /64 whatever id it is given.
describe("/api/event: the caller's address id", () => {
  const burst = 1 * BURST_SECONDS;
  it.each([
    { why: "IPv4: with and without the id, one bucket", first: "81.2.69.142", then: "81.2.69.142", shared: true },
    { why: "unknown client: with and without the id, one bucket", first: null, then: null, shared: true },
    { why: "IPv6: another address of the /64, one bucket", first: "2001:db8:1:2::1", then: "2001:db8:1:2::ffff", shared: true },
    { why: "IPv6: another /64, its own bucket", first: "2001:db8:1:2::1", then: "2001:db8:1:3::1", shared: false },
    { why: "IPv4: another address, its own bucket", first: "81.2.69.142", then: "81.2.69.143", shared: false },
  ])("$why", ({ first, then, shared }) => {
    const limits = createIngestLimits({ eventRatePerClient: 1, hitRatePerSite: 1, now: () => 0 });
    for (let i = 0; i < burst; i++) limits.event(first, addressId(first ?? ""));
    const next = () => limits.event(then);
    if (shared) expect(next).toThrow(/too many events/);
    else expect(next).not.toThrow();
  });
});

describe("/api/hit: per site", () => {
  it("counts hits, not requests: 429 past the burst for that site only, refilled by the clock", async () => {
    expect((await hits("limited.example", BURST)).status).toBe(202);
    const limited = await hits("limited.example", 1);
    expect(limited.status).toBe(429);
    expect(limited.json).toEqual({ error: "too many hits for this site; retry later" });
    expect(limited.headers.get("retry-after")).toBe("1");
    expect((await hits("other.example", 10)).status).toBe(202);
    h.clock.advance(5000); // 10 hits
    expect((await hits("limited.example", 11)).status).toBe(429);
    expect((await hits("limited.example", 10)).status).toBe(202);
  });

  it("does not let requests without the site's hit token use up its budget", async () => {
    const site = (await h.pool.query("select id from sites where domain = 'other.example'")).rows[0].id as number;
    const { loginAsAdmin, bearer, call } = await import("./support/auth.ts");
    const { token } = await loginAsAdmin(h.base);
    const made = await call(h.base, "PATCH", `/api/sites/${site}`, { body: { hit_token: true }, headers: bearer(token) });
    expect(made.status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await hits("other.example", 100)).status).toBe(401);
    // A stranger's 500 hits took none of the budget: the whole burst is still there.
    h.clock.advance(BURST_SECONDS * 1000);
    expect((await hits("other.example", BURST, bearer(made.json.hit_token))).status).toBe(202);
  });
});

describe("the limiter's memory", () => {
  it("holds at most its bucket budget however many clients there are, forgetting the longest unseen", () => {
    const buckets = new TokenBuckets(1, () => 0, 1000);
    const client = (i: number) => addressId(`client-${i}`);
    for (let i = 0; i < 5000; i++) buckets.take(client(i));
    expect(buckets.size).toBe(1000);
    // The most recent client is still remembered (its bucket is one token short), the first one was forgotten.
    for (let i = 0; i < 29; i++) expect(buckets.take(client(4999)).ok).toBe(true);
    expect(buckets.take(client(4999)).ok).toBe(false);
    expect(buckets.take(client(0)).ok).toBe(true);
    expect(MAX_BUCKETS).toBe(100_000);
  });

  // Ids 1, 2, 3 sit in slots 1, 2, 3 of the table (id-table.ts), which the scan passes in that order from slot 0.
  it.each([
    { retaken: [1], forgotten: 2 },
    { retaken: [2], forgotten: 1 },
    { retaken: [1, 2], forgotten: 3 },
    // All three taken again: the scan clears the three marks, comes round and forgets the first.
    { retaken: [1, 2, 3], forgotten: 1 },
  ])("keeps a bucket taken from since the scan last passed it (second chance): $retaken taken again, $forgotten goes", ({ retaken, forgotten }) => {
    const buckets = new TokenBuckets(1, () => 0, 3); // 30 tokens a bucket
    for (const key of [1, 2, 3, ...retaken]) buckets.take(key);
    buckets.take(4); // full: one bucket goes
    expect(buckets.size).toBe(3);
    // The forgotten one last: its take files it again, which forgets another.
    for (const key of [1, 2, 3].filter((k) => k !== forgotten).concat(forgotten)) {
      // A kept bucket has what it had left; a forgotten one starts full again.
      const left = key === forgotten ? 30 : retaken.includes(key) ? 28 : 29;
      for (let i = 0; i < left; i++) expect(buckets.take(key).ok).toBe(true);
      expect(buckets.take(key).ok).toBe(false);
    }
  });
});
