// Privacy invariant: after ingest from 1,000 distinct IPv4 and IPv6 addresses, through both ingest
// paths, neither the database (every table, dumped) nor any log line holds any of them, in any form.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, UA, post, startHarness } from "./support/harness.ts";
import { dumpDatabase } from "./support/dump.ts";

const expandV6 = (ip: string) => {
  const [head, tail = ""] = ip.split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
  return groups.map((g) => g.padStart(4, "0")).join(":");
};

function addresses(): string[] {
  const ips: string[] = [];
  for (let i = 0; i < 500; i++) ips.push(`${11 + (i % 80)}.${101 + ((i * 7) % 140)}.${17 + (i % 200)}.${23 + ((i * 13) % 220)}`);
  for (let i = 0; i < 500; i++) ips.push(`2a0${1 + (i % 8)}:4f8:${(0x1a2 + i).toString(16)}:${(0xbe0 + i * 3).toString(16)}::${(0x51 + i).toString(16)}`);
  return [...new Set(ips)];
}

function forms(ip: string): string[] {
  if (ip.includes(":")) {
    const full = expandV6(ip);
    return [ip, ip.toUpperCase(), full, full.replaceAll(":", "")];
  }
  return [ip, `::ffff:${ip}`];
}

describe("no IP address is stored or logged", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { SVC_TRUST_PROXY: "1" }, sites: ["example.com"] });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("after 1,000 distinct addresses on both paths", async () => {
    const ips = addresses();
    expect(ips.length).toBe(1000);
    const events = ips.slice(0, 500);
    const hits = ips.slice(500);
    for (let i = 0; i < events.length; i += 25) {
      const batch = events.slice(i, i + 25).map((ip, j) =>
        post(h.base, "/api/event", { d: "example.com", u: `https://example.com/page`, r: j % 2 ? "https://chatgpt.com/" : null }, { "user-agent": UA.chrome, "x-forwarded-for": ip }),
      );
      for (const r of await Promise.all(batch)) expect(r.status).toBe(202);
    }
    for (let i = 0; i < hits.length; i += 100) {
      const body = hits.slice(i, i + 100).map((ip) => ({ domain: "example.com", method: "GET", path: "/page", status: 200, user_agent: UA.gptbot, referrer: null, ip }));
      expect((await post(h.base, "/api/hit", body)).status).toBe(202);
    }
    // Rejected requests must not leak either.
    await post(h.base, "/api/event", { d: "unknown.example", u: "https://unknown.example/" }, { "x-forwarded-for": events[0]! });
    await post(h.base, "/api/hit", [{ domain: "unknown.example", method: "GET", path: "/", status: 200, user_agent: "x", referrer: null, ip: hits[0]! }]);

    const count = await h.pool.query("select (select count(*) from events)::int + (select count(*) from hits)::int as n");
    expect(count.rows[0].n).toBe(1000);

    const dump = (await dumpDatabase(h.pool, h.url)).toLowerCase();
    const logs = h.logs.join("\n").toLowerCase();
    expect(dump.length).toBeGreaterThan(100_000);
    expect(h.logs.length).toBeGreaterThan(0);
    const leaks: string[] = [];
    for (const ip of ips) {
      for (const form of forms(ip)) {
        const f = form.toLowerCase();
        if (dump.includes(f)) leaks.push(`db: ${form}`);
        if (logs.includes(f)) leaks.push(`log: ${form}`);
      }
    }
    expect(leaks).toEqual([]);
  });
});

describe("no e-mail address is stored: paths, event names and UTM values too, not only props", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sites: ["mail.example"] });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("cuts each address out before the row is written, counts it, and the raw tables and rollups hold none", async () => {
    const sent = await post(
      h.base,
      "/api/event",
      { d: "mail.example", n: "invited jane.doe@example.org", u: "https://mail.example/u/jane.doe%40example.org/edit?utm_source=bob@example.net&utm_medium=email" },
      { "user-agent": UA.chrome },
    );
    expect(sent.status).toBe(202);
    const hit = await post(h.base, "/api/hit", { domain: "mail.example", method: "GET", path: "/unsubscribe/carol@example.com", status: 200, user_agent: UA.gptbot, referrer: null, ip: "81.2.69.142" });
    expect(hit.status).toBe(202);
    const event = (await h.pool.query("select name, page, utm_source, utm_medium from events")).rows[0];
    expect(event).toEqual({ name: "invited (email)", page: "/u/(email)/edit", utm_source: "(email)", utm_medium: "email" });
    expect((await h.pool.query("select page from hits")).rows).toEqual([{ page: "/unsubscribe/(email)" }]);
    await h.gateway.rollups.flushBeforeRead();
    const dump = await dumpDatabase(h.pool, h.url);
    for (const address of ["jane.doe", "bob@example.net", "carol@example.com"]) expect(dump).not.toContain(address);
    // u, n and the URL's utm_source on the event; the hit's path.
    expect(h.gateway.counters.counts["emails_dropped"]).toBe(4);
  });
});
