import { afterAll, beforeAll, it } from "vitest";
import { type Harness, startHarness, post } from "../support/harness.ts";
import { bearer, loginAsAdmin } from "../support/auth.ts";
import { FIXTURE_DOMAIN, ingestFixture, TODAY } from "../read/fixture.ts";

let h: Harness;
let auth: Record<string, string>;
beforeAll(async () => {
  h = await startHarness({ now: `${TODAY}T08:00:00Z`, sites: [FIXTURE_DOMAIN] });
  await ingestFixture(h);
  auth = bearer((await loginAsAdmin(h.base)).token);
});
afterAll(() => h.close());

it("smoke", async () => {
  for (const body of [
    { metrics: ["visitors", "visits", "pageviews", "events", "bounce_rate", "visit_duration", "views_per_visit", "hits"], date_range: "7d" },
    { metrics: ["visitors", "percentage", "bounce_rate"], date_range: "7d", dimensions: ["visit:source"] },
    { metrics: ["visitors", "hits"], date_range: "7d", dimensions: ["visit:actor"] },
    { metrics: ["visitors", "events", "conversion_rate"], date_range: "7d", dimensions: ["event:goal"] },
    { metrics: ["visitors", "pageviews"], date_range: "7d", dimensions: ["time:day"], include: { time_labels: true, comparisons: { mode: "previous_period" } } },
    { metrics: ["visitors", "visits"], date_range: "7d", dimensions: ["visit:entry_page"], filters: [["contains", "event:page", ["pric"]]] },
  ]) {
    const r = await post(h.base, "/api/v2/query", { site_id: FIXTURE_DOMAIN, ...body }, auth);
    console.log(r.status, JSON.stringify(r.json).slice(0, 1500));
    if (r.status === 500) console.log(h.logs.filter((l) => l.includes("unhandled")).pop());
  }
});
