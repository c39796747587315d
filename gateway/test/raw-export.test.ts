// The raw export over real HTTP from a real PostgreSQL: every browser row of the range, one JSON object per
// line in the history import's format, nothing about the visitor but the day-scoped hash, streamed (a large
// range arrives whole, a client that hangs up frees its slot), admin scope, bad ranges refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, call, createApiKey, loginAsAdmin } from "./support/auth.ts";
import { type Harness, UA, post, startHarness } from "./support/harness.ts";

let h: Harness;
let admin: Record<string, string>;
const SITE = "export.example";
const today = () => new Date(h.clock.now()).toISOString().slice(0, 10);
// The history import's fields (issue 22, "History import"): nothing else may appear in a line.
const IMPORT_FIELDS = new Set([
  "timestamp", "name", "visitor", "hostname", "pathname", "referrer", "source", "utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term",
  "browser", "browser_version", "os", "os_version", "device", "country", "user_agent", "props", "actor",
]);

const lines = (text: string) => text.split("\n").filter(Boolean).map((l) => JSON.parse(l));

// The pause-until-drained path differs per transport (uWebSockets.js onWritable, node:http "drain"): both run.
describe.each(["uws", "node"] as const)("%s transport", (transport) => {
  beforeAll(async () => {
    h = await startHarness({ sites: [SITE], transport });
    const { token } = await loginAsAdmin(h.base);
    admin = bearer(await createApiKey(h.base, token, "export", "admin"));
    const send = (body: Record<string, unknown>, ua: string) => post(h.base, "/api/event", { d: SITE, ...body }, { "user-agent": ua }).then((r) => expect(r.status).toBe(202));
    await send({ u: `https://${SITE}/pricing?utm_source=news&utm_campaign=launch`, r: "https://www.google.com/search" }, UA.chrome);
    await send({ n: "Signup", u: `https://${SITE}/signup`, p: { plan: "pro", seats: 3, trial: true } }, UA.chrome);
    await send({ u: `https://${SITE}/`, w: 390 }, UA.iphone);
    expect((await post(h.base, "/api/hit", { domain: SITE, method: "GET", path: "/robots.txt", status: 200, user_agent: UA.gptbot, referrer: null, ip: "192.0.2.55" })).status).toBe(202);
  });
  afterAll(async () => {
    await h?.close();
  });

  describe("raw export", () => {
    it("streams every browser row of the range as import lines, with the day-scoped hash as the only visitor field", async () => {
      const res = await fetch(`${h.base}/api/sites/${SITE}/export?from=${today()}&to=${today()}`, { headers: admin });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
      expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${SITE}_${today()}_${today()}.ndjson"`);
      const text = await res.text();
      const rows = lines(text);
      const stored = (await h.pool.query("select encode(visitor_hash, 'hex') as visitor, name, page from events order by ts")).rows;
      expect(rows.map((r) => [r.visitor, r.name, r.pathname])).toEqual(stored.map((r) => [r.visitor, r.name, r.page]));
      for (const row of rows) {
        for (const key of Object.keys(row)) expect(IMPORT_FIELDS.has(key), key).toBe(true);
        expect(row.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      }
      expect(rows[0]).toMatchObject({ name: "pageview", pathname: "/pricing", referrer: "https://google.com/", source: "news", utm_source: "news", utm_campaign: "launch", browser: "Chrome", os: "Windows", device: "Desktop", actor: "human" });
      expect(rows[1]).toMatchObject({ name: "Signup", props: { plan: "pro", seats: "3", trial: "true" } });
      expect(rows[2]).toMatchObject({ device: "Mobile", os: "iOS" });
      // Same browser, same day: one visitor; the phone is another.
      expect(rows[0].visitor).toBe(rows[1].visitor);
      expect(rows[2].visitor).not.toBe(rows[0].visitor);
      // No address, no user agent, no hit rows.
      expect(text).not.toContain("127.0.0.1");
      expect(text).not.toContain("192.0.2.55");
      expect(text).not.toContain("Mozilla");
      expect(text).not.toContain("robots.txt");
    });

    it("an empty range is an empty file; a range outside the rows too", async () => {
      const res = await fetch(`${h.base}/api/sites/${SITE}/export?from=2020-01-01&to=2020-01-31`, { headers: admin });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("");
    });

    it.each([
      ["to before from", "from=2026-02-02&to=2026-02-01", "to"],
      ["a day that does not exist", "from=2026-02-30&to=2026-03-01", "from"],
      ["no from", "to=2026-03-01", "from"],
      ["a timestamp", "from=2026-01-01T00:00:00Z&to=2026-01-02", "from"],
    ])("refuses %s with a 400 naming the field", async (_label, query, field) => {
      const reply = await call(h.base, "GET", `/api/sites/${SITE}/export?${query}`, { headers: admin });
      expect(reply.status).toBe(400);
      expect(reply.json.details.map((d: { path: string }) => d.path)).toContain(field);
    });

    it("streams a large range whole, and a client that hangs up frees its slot", async () => {
      // 60,000 rows straight into the table (the ingest path is not what is measured here).
      await h.pool.query(
        `insert into events (site_id, ts, name, page, channel, device, actor, rule, visitor_hash)
         select (select id from sites where domain = $1), now() - (g || ' ms')::interval, 'pageview', '/bulk/' || g, 'direct', 'desktop', 'human', 'test', sha256(g::text::bytea)
         from generate_series(1, 60000) g`,
        [SITE],
      );
      const res = await fetch(`${h.base}/api/sites/${SITE}/export?from=${today()}&to=${today()}`, { headers: admin });
      expect(lines(await res.text()).length).toBe(60_003);
      // Two exports at once hang up after their first bytes; a third then starts (the slots were given back).
      for (let round = 0; round < 2; round++) {
        const aborts = [new AbortController(), new AbortController()];
        const open = await Promise.all(aborts.map((a) => fetch(`${h.base}/api/sites/${SITE}/export?from=${today()}&to=${today()}`, { headers: admin, signal: a.signal })));
        expect(open.map((r) => r.status)).toEqual([200, 200]);
        expect((await call(h.base, "GET", `/api/sites/${SITE}/export?from=${today()}&to=${today()}`, { headers: admin })).status).toBe(429);
        for (const [i, r] of open.entries()) {
          await r.body!.getReader().read();
          aborts[i]!.abort();
        }
        await expect.poll(async () => (await fetch(`${h.base}/api/sites/${SITE}/export?from=2020-01-01&to=2020-01-01`, { headers: admin })).status, { timeout: 5000 }).toBe(200);
      }
    });
  });
});
