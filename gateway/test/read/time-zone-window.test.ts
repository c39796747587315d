// The read routes' days in a site's time zone (read/window.ts zonedWindow): local days from the hourly
// rollups, for a whole-hour zone with a DST change and for a half-hour zone, against rows put in by the
// history import at instants on both sides of local and UTC midnights.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, call, createApiKey, loginAsAdmin } from "../support/auth.ts";
import { type Harness, startHarness } from "../support/harness.ts";

const NOW = "2026-11-25T12:00:00Z"; // 07:00 in New York, 17:30 in Kolkata
let h: Harness;
let admin: Record<string, string>;

const pageviews = (site: string, instants: readonly string[]) =>
  call(h.base, "POST", `/api/sites/${site}/import`, {
    body: instants.map((t, i) => JSON.stringify({ timestamp: t, name: "pageview", visitor: `v${i}` })).join("\n"),
    headers: { ...admin, "content-type": "application/x-ndjson" },
  });
const stats = async (site: string, query: string) => (await call(h.base, "GET", `/api/sites/${site}/stats?${query}`, { headers: admin })).json;

beforeAll(async () => {
  h = await startHarness({ now: NOW });
  const login = await loginAsAdmin(h.base);
  admin = bearer(await createApiKey(h.base, login.token, "tz", "admin"));
  for (const [domain, time_zone] of [["ny.example", "America/New_York"], ["in.example", "Asia/Kolkata"], ["utc.example", "UTC"]]) {
    expect((await call(h.base, "POST", "/api/sites", { body: { domain, time_zone }, headers: admin })).status).toBe(201);
  }
  const instants = [
    "2026-11-24T04:30:00Z", // 23:30 Nov 23 in New York; 10:00 Nov 24 in Kolkata
    "2026-11-24T05:30:00Z", // 00:30 Nov 24 in New York
    "2026-11-23T18:20:00Z", // 23:50 Nov 23 in Kolkata
    "2026-11-23T18:40:00Z", // 00:10 Nov 24 in Kolkata
    "2026-11-02T04:30:00Z", // 23:30 Nov 1 in New York (EST since 1 November)
  ];
  for (const site of ["ny.example", "in.example", "utc.example"]) expect((await pageviews(site, instants)).json).toMatchObject({ imported: 5 });
});
afterAll(async () => {
  await h?.close();
});

describe("days follow the site's time zone", () => {
  it("UTC sites are unchanged: UTC days from the daily rollups, visitors exact", async () => {
    const s = await stats("utc.example", "days=2");
    expect(s).toMatchObject({ from: "2026-11-24", to: "2026-11-25", current: { pageviews: 2 } });
    expect(s).not.toHaveProperty("time_zone");
    expect(s).not.toHaveProperty("visitors_basis");
  });

  it("New York: today and yesterday are local days (05:00 UTC on), the previous window the two before", async () => {
    const s = await stats("ny.example", "days=2");
    expect(s).toMatchObject({
      time_zone: "America/New_York", from: "2026-11-24", to: "2026-11-25", start: "2026-11-24T05:00:00.000Z",
      // 23:30 on the 23rd, and the two Kolkata instants (13:20 and 13:40 here).
      previous: { from: "2026-11-22", to: "2026-11-23", totals: { pageviews: 3 } },
      current: { pageviews: 1 }, visitors_basis: "inferred", granularity: "hour",
    });
    expect(s.series[0].bucket).toBe("2026-11-24T05:00:00.000Z");
    expect((await stats("ny.example", "days=1")).current.pageviews).toBe(0);
  });

  it("a daily series has one bucket per local day, 23, 24 or 25 hours long across a DST change", async () => {
    const s = await stats("ny.example", "days=30");
    expect(s.granularity).toBe("day");
    const buckets = s.series.map((p: { bucket: string }) => p.bucket);
    // 1 November 2026 (EDT → EST) is 25 hours long: 04:00 UTC to 05:00 UTC the next day.
    expect(buckets).toContain("2026-11-01T04:00:00.000Z");
    expect(buckets).toContain("2026-11-02T05:00:00.000Z");
    const at = (b: string) => s.series.find((p: { bucket: string }) => p.bucket === b);
    expect(at("2026-11-01T04:00:00.000Z").pageviews).toBe(1);
    expect(at("2026-11-23T05:00:00.000Z").pageviews).toBe(3);
    expect(at("2026-11-24T05:00:00.000Z").pageviews).toBe(1);
    expect(s.series.at(-1).bucket).toBe("2026-11-25T05:00:00.000Z");
    expect(s.current.pageviews).toBe(5);
  });

  it("Kolkata (+5:30): each local day is read from the UTC hour holding its midnight, so 23:50 counts with the next day", async () => {
    const s = await stats("in.example", "days=3");
    expect(s).toMatchObject({ time_zone: "Asia/Kolkata", from: "2026-11-23", to: "2026-11-25", start: "2026-11-22T18:00:00.000Z" });
    const byBucket = Object.fromEntries(s.series.map((p: { bucket: string; pageviews: number }) => [p.bucket, p.pageviews]));
    // The 24th (18:30 UTC on the 23rd to 18:30 on the 24th) holds 00:10, 10:00 and 11:00, and, from its first
    // hour bucket, 23:50 of the 23rd.
    expect(byBucket).toEqual({ "2026-11-22T18:00:00.000Z": 0, "2026-11-23T18:00:00.000Z": 4, "2026-11-24T18:00:00.000Z": 0 });
  });

  it("breakdowns and goals read the same local days", async () => {
    const b = await call(h.base, "GET", "/api/sites/ny.example/breakdown?field=page&days=2", { headers: admin });
    expect(b.json).toMatchObject({ time_zone: "America/New_York", rows: [{ value: "/", pageviews: 1 }] });
    const utc = await call(h.base, "GET", "/api/sites/utc.example/breakdown?field=page&days=2", { headers: admin });
    expect(utc.json.rows[0].pageviews).toBe(2);
  });
});
