// An empty value reads the same whichever path answers: the rollups' breakdown route, the query API from the
// rollups, and the query API from the rows (a filtered query). Before, the breakdown said "Unknown" for a country
// the query API called "(not set)", so the dashboard showed one word unfiltered and the other once filtered.
import { DIRECT_LABEL, NOT_SET_LABEL, blankLabel } from "@svc/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, call, loginAsAdmin } from "../support/auth.ts";
import { type Harness, UA, post, startHarness } from "../support/harness.ts";

const DOMAIN = "blank.example";
let h: Harness;
let auth: Record<string, string>;

beforeAll(async () => {
  h = await startHarness({ now: "2026-11-26T12:00:00Z", sites: [DOMAIN] });
  // From loopback, with no referrer: no country, no source.
  expect((await post(h.base, "/api/event", { d: DOMAIN, u: `https://${DOMAIN}/` }, { "user-agent": UA.chrome })).status).toBe(202);
  auth = bearer((await loginAsAdmin(h.base)).token);
});
afterAll(() => h.close());

describe("the label of an empty value", () => {
  it.each([
    ["source", DIRECT_LABEL],
    ["referrer", DIRECT_LABEL],
    ["referrer_host", DIRECT_LABEL],
    ["country", NOT_SET_LABEL],
    ["browser", NOT_SET_LABEL],
    ["os", NOT_SET_LABEL],
    ["page", NOT_SET_LABEL],
    ["utm_source", NOT_SET_LABEL],
  ])("%s reads %s", (dimension, label) => {
    expect(blankLabel(dimension)).toBe(label);
  });

  it.each([
    ["country", "visit:country", NOT_SET_LABEL],
    ["source", "visit:source", DIRECT_LABEL],
  ])("%s: the breakdown route, the query API from the rollups and from the rows agree", async (field, dimension, label) => {
    const breakdown = await call(h.base, "GET", `/api/sites/${DOMAIN}/breakdown?field=${field}&days=1`, { headers: auth });
    expect(breakdown.status).toBe(200);
    expect(breakdown.json.rows.map((r: { value: string; label: string }) => [r.value, r.label])).toEqual([["", label]]);
    for (const filters of [[], [["is", "event:page", ["/"]]]]) {
      const res = await post(h.base, "/api/v2/query", { site_id: DOMAIN, date_range: "day", metrics: ["visitors"], dimensions: [dimension], filters }, auth);
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(res.json.results.map((r: { dimensions: string[] }) => r.dimensions[0])).toEqual([label]);
    }
  });
});
