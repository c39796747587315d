// The shared view as good as the owner's (issue 23), in real Chromium before a real gateway on real PostgreSQL:
// a viewer clicks a row to filter — on top of the link's fixed filters, which stay applied and cannot be
// removed; the numbers on screen equal POST /api/v2/query's for the link's and the viewer's filters together,
// and a viewer's filter never reaches a row outside the link —; the Properties card offers only the link's
// property names; the Funnels card shows the link's funnel, narrowed by the viewer's filters. The owner's
// filtered view counts "visitors now" among the filtered visitors, not the whole site. Screenshots of the
// filtered shared view (light, dark, 375 px) go to dashboard/screenshots/.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, call, loginAsAdmin } from "../../gateway/test/support/auth.ts";
import { DASHBOARD_DIR } from "../scripts/launch.ts";
import { type Stack, startStack } from "./support/stack.ts";
import { apiJson, apiQuery, pageview, visitorUa } from "./support/traffic.ts";

const DOMAIN = "share-explorer.example";
const SHOTS = join(DASHBOARD_DIR, "screenshots");
const GOOGLE = { r: "https://www.google.com/search?q=svc" };
const BING = { r: "https://www.bing.com/" };
/** The link's fixed filter: Google's visitors only. */
const LINK = [["is", "visit:source", ["Google"]]];
let stack: Stack;
let admin: Record<string, string>;
let token: string;
let funnelId: number;
let signedIn: Awaited<ReturnType<BrowserContext["storageState"]>>;
let visitor = 900;

/** The tiles' numbers as the DOM shows them (`data-value`: the number before formatting). */
async function tiles(page: Page): Promise<Record<string, number>> {
  return page.evaluate(() => Object.fromEntries(Array.from(document.querySelectorAll<HTMLElement>("[data-metric][data-value]")).map((e) => [e.dataset.metric!, Number(e.dataset.value)])));
}
const rows = (page: Page, field: string) => page.locator(`[data-testid="breakdown-${field}"] tbody tr`).evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.value!));

/** What the tiles must read for today: the query API's totals for `filters`, events as custom events. */
async function expectedTiles(filters: unknown[]): Promise<Record<string, number>> {
  const metrics = ["visitors", "visits", "pageviews", "views_per_visit", "bounce_rate", "visit_duration", "events"];
  const answer = await apiQuery(stack.gateway.base, { site_id: DOMAIN, date_range: "day", metrics, filters });
  const m = (answer.results[0]?.metrics ?? metrics.map(() => 0)) as number[];
  const out = Object.fromEntries(metrics.map((name, i) => [name, m[i]!]));
  return { ...out, events: out.events! - out.pageviews! };
}

async function openShared(query: string, options: { dark?: boolean; mobile?: boolean } = {}) {
  const opened = await stack.open(options);
  await opened.page.goto(`/share/${token}?period=today${query}`);
  await opened.page.locator("html[data-hydrated]").waitFor();
  await opened.page.getByTestId("share-filters").waitFor();
  return opened;
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  stack = await startStack({ sites: [DOMAIN] });
  const base = stack.gateway.base;
  const { token: session } = await loginAsAdmin(base);
  admin = bearer(session);
  // Google: three visitors (one reads / then /pricing, one signs up on /pricing with a plan); Bing: one with a
  // campaign property (outside the link); direct: one.
  const a = visitorUa(visitor++);
  await pageview(base, DOMAIN, "/", a, GOOGLE);
  await pageview(base, DOMAIN, "/pricing", a, GOOGLE);
  const b = visitorUa(visitor++);
  await pageview(base, DOMAIN, "/pricing", b, GOOGLE);
  await pageview(base, DOMAIN, "/pricing", b, { ...GOOGLE, n: "Signup", p: { plan: "pro" } });
  await pageview(base, DOMAIN, "/docs", visitorUa(visitor++), GOOGLE);
  const d = visitorUa(visitor++);
  await pageview(base, DOMAIN, "/", d, BING);
  await pageview(base, DOMAIN, "/", d, { ...BING, n: "Download", p: { campaign: "spring" } });
  await pageview(base, DOMAIN, "/blog/one", visitorUa(visitor++));
  const link = await call(base, "POST", `/api/sites/${DOMAIN}/shares`, { body: { filters: LINK }, headers: admin });
  expect(link.status, JSON.stringify(link.json)).toBe(201);
  token = link.json.token;
  const funnel = await call(base, "POST", `/api/sites/${DOMAIN}/funnels`, { body: { name: "Home to pricing", steps: [{ page_path: "/" }, { page_path: "/pricing" }] }, headers: admin });
  expect(funnel.status, JSON.stringify(funnel.json)).toBe(201);
  funnelId = funnel.json.id;
  // The query engine reads today's rows from PostgreSQL: wait until all of them are there.
  for (let tries = 0; (await apiQuery(base, { site_id: DOMAIN, date_range: "day", metrics: ["events"] })).results[0]?.metrics[0] !== 8; tries++) {
    if (tries === 50) throw new Error("the test's rows never reached the query engine");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const { page, context } = await stack.open();
  await stack.signIn(page);
  signedIn = await context.storageState();
  await context.close();
});
afterAll(() => stack?.close());

describe("a viewer filters the shared view", () => {
  it("a row's click narrows every number to the link's and the viewer's filters; clearing keeps the link's", async () => {
    const { page, errors, context } = await openShared("");
    const linkOnly = await expectedTiles(LINK);
    expect(linkOnly.visitors).toBe(3);
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining({ visitors: 3 }));
    await page.locator('[data-testid="breakdown-page"] tr[data-value="/pricing"] a[data-filter-link]').click();
    await page.waitForURL((url) => url.search.includes("f=page~is~/pricing"));
    const both = await expectedTiles([...LINK, ["is", "event:page", ["/pricing"]]]);
    expect(both.visitors).toBe(2);
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining(both));
    // The cards narrow: the sources are the query API's for both filters (Google only: Bing's and direct's
    // visitors never show), and so are the pages.
    const dimension = async (name: string) => (await apiQuery(stack.gateway.base, { site_id: DOMAIN, date_range: "day", metrics: ["visitors"], dimensions: [name], filters: [...LINK, ["is", "event:page", ["/pricing"]]] })).results.map((r: { dimensions: string[] }) => r.dimensions[0]).sort();
    expect(await dimension("visit:source")).toEqual(["Google"]);
    await expect.poll(async () => (await rows(page, "source")).sort(), { timeout: 15_000 }).toEqual(["Google"]);
    await expect.poll(async () => (await rows(page, "page")).sort(), { timeout: 15_000 }).toEqual(await dimension("event:page"));
    // One chip, the viewer's; the link's filter is said above and has no chip to remove.
    expect(await page.getByTestId("filter-bar").locator(".chip").count()).toBe(1);
    expect(await page.getByTestId("share-filters").textContent()).toContain("Source is Google");
    expect(await page.getByTestId("segment-pick").count()).toBe(0);
    expect(await page.getByTestId("segment-save").count()).toBe(0);
    // Goals narrow too: the conversions of the query route.
    await expect.poll(() => page.locator('[data-testid="goals"]').count()).toBe(1);
    // Clearing the viewer's filters: the link's numbers again, never the whole site's (5 visitors).
    await page.getByTestId("clear-filters").click();
    await page.waitForURL((url) => !url.search.includes("f="));
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining({ visitors: linkOnly.visitors, pageviews: linkOnly.pageviews }));
    expect(errors).toEqual([]);
    await context.close();
  });

  it.each([
    ["a source outside the link", "&f=source~is~Bing"],
    ["the negation of the link's source", "&f=source~isnot~Google"],
    ["a page only others viewed", "&f=page~is~/blog/one"],
  ])("%s: nothing outside the link shows (zero, not the site's rows)", async (_name, query) => {
    const { page, errors, context } = await openShared(query);
    await page.getByTestId("filter-bar").locator(".chip").first().waitFor();
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining({ visitors: 0, pageviews: 0 }));
    await expect.poll(() => page.locator('[data-testid="breakdown-page"] tbody tr').count(), { timeout: 15_000 }).toBe(0);
    expect(await page.locator('[data-testid="breakdown-source"] tr[data-value="Bing"]').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("the shared view's keyboard", () => {
  it("? shows the owner's keys less the comparison; a key changes the period or actor; Esc clears the viewer's filters, not the link's", async () => {
    const { page, errors, context } = await openShared("&f=page~is~/pricing");
    await page.getByTestId("filter-bar").locator(".chip").first().waitFor();
    await page.keyboard.press("?");
    await page.getByTestId("keyboard-map").waitFor();
    const map = (await page.getByTestId("keyboard-map").textContent()) ?? "";
    expect(map).toContain("Clear the filters");
    expect(map).toContain("Last 7 days");
    expect(map).toContain("AI crawlers");
    expect(map).not.toContain("Comparison");
    await page.keyboard.press("Escape");
    await expect.poll(() => page.getByTestId("keyboard-map").isVisible()).toBe(false);
    expect(new URL(page.url()).search).toContain("f=page~is~/pricing");
    await page.keyboard.press("w");
    await page.waitForURL((url) => url.search.includes("period=7d"));
    await page.keyboard.press("2");
    await page.waitForURL((url) => url.search.includes("actor=human_via_ai"));
    // The comparison has no control here: its key does nothing.
    await page.keyboard.press("c");
    await page.keyboard.press("Escape");
    await page.waitForURL((url) => !url.search.includes("f="));
    expect(new URL(page.url()).search).toBe("?period=7d&actor=human_via_ai");
    // The link's own filter stays, with its notice.
    expect(await page.getByTestId("share-filters").textContent()).toContain("Source is Google");
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("the shared view's Properties and Funnels cards", () => {
  it("offers the link's property names only, and a value's row filters the view", async () => {
    const { page, errors, context } = await openShared("");
    const picker = page.getByTestId("prop-key");
    await expect.poll(() => picker.locator("option").allTextContents(), { timeout: 15_000 }).toEqual(["Pick a property…", "plan"]);
    await picker.selectOption("plan");
    // Rows without the property are "(none)", as the owner's card shows them.
    await expect.poll(() => rows(page, "prop.plan"), { timeout: 15_000 }).toEqual(["(none)", "pro"]);
    await page.locator('[data-testid="breakdown-prop.plan"] tr[data-value="pro"] a[data-filter-link]').click();
    await page.waitForURL((url) => url.search.includes("f=prop%2Eplan~is~pro"));
    const want = await expectedTiles([...LINK, ["is", "event:props:plan", ["pro"]]]);
    expect(want.visitors).toBe(1);
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining(want));
    expect(errors).toEqual([]);
    await context.close();
  });

  it("shows the funnel over the link's rows, narrowed by the viewer's filters, equal to the funnel route's", async () => {
    const funnelRows = (page: Page) => page.locator('[data-testid="funnel-table"] tbody tr [data-col="visitors"]').allTextContents();
    const owner = (filters: unknown[]) => apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/funnels/${funnelId}/result?days=1&filters=${encodeURIComponent(JSON.stringify(filters))}`);
    const { page, errors, context } = await openShared("");
    const linkFunnel = await owner(LINK);
    expect(linkFunnel.steps.map((s: { visitors: number }) => s.visitors)).toEqual([1, 1]);
    await expect.poll(() => funnelRows(page), { timeout: 15_000 }).toEqual(linkFunnel.steps.map((s: { visitors: number }) => String(s.visitors)));
    // No settings link for a viewer.
    expect(await page.getByTestId("funnel-card").locator('a[href*="/settings"]').count()).toBe(0);
    await page.goto(`/share/${token}?period=today&f=page~isnot~/`);
    const narrowed = await owner([...LINK, ["is_not", "event:page", ["/"]]]);
    expect(narrowed.steps[0].visitors).toBe(0);
    await expect.poll(() => funnelRows(page), { timeout: 15_000 }).toEqual(narrowed.steps.map((s: { visitors: number }) => String(s.visitors)));
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("visitors now of a filtered view", () => {
  const recent = (filters: unknown[]) =>
    apiQuery(stack.gateway.base, { site_id: DOMAIN, date_range: [new Date(Date.now() - 300_000).toISOString(), new Date().toISOString()], metrics: ["visitors"], filters }).then((a) => a.results[0]?.metrics[0] ?? 0);

  it("the owner's: the visitors with a matching row in the last 5 minutes, not the whole site's", async () => {
    const { page, errors, context } = await stack.open({ storageState: signedIn });
    await page.goto(`/app/sites/${DOMAIN}?period=today`);
    await page.locator("html[data-hydrated]").waitFor();
    const site = await recent([]);
    expect(site).toBe(5);
    await expect.poll(() => page.locator('[data-metric="live-visitors"]').textContent(), { timeout: 15_000 }).toBe(String(site));
    expect(await page.getByTestId("live-scope").getAttribute("data-scope")).toBe("site");
    await page.locator('[data-testid="breakdown-source"] tr[data-value="Bing"] a[data-filter-link]').click();
    await page.waitForURL((url) => url.search.includes("f=source~is~Bing"));
    await expect.poll(() => page.locator('[data-metric="live-visitors"]').textContent(), { timeout: 15_000 }).toBe(String(await recent([["is", "visit:source", ["Bing"]]])));
    expect(await page.locator('[data-metric="live-visitors"]').textContent()).toBe("1");
    expect(await page.getByTestId("live-scope").getAttribute("data-scope")).toBe("filtered");
    expect(await page.getByTestId("live-scope").textContent()).toContain("(filtered)");
    // A new visitor from Bing counts within a live tick (≤ 5 s); one from elsewhere does not.
    await pageview(stack.gateway.base, DOMAIN, "/", visitorUa(visitor++));
    await pageview(stack.gateway.base, DOMAIN, "/", visitorUa(visitor++), BING);
    await expect.poll(() => page.locator('[data-metric="live-visitors"]').textContent(), { timeout: 15_000 }).toBe("2");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("the shared view's with a viewer filter: within the link's and the viewer's filters", async () => {
    const { page, errors, context } = await openShared("&f=page~is~/pricing");
    const want = await recent([...LINK, ["is", "event:page", ["/pricing"]]]);
    expect(want).toBe(2);
    await expect.poll(() => page.locator('[data-metric="live-visitors"]').textContent(), { timeout: 15_000 }).toBe(String(want));
    expect(await page.getByTestId("live-scope").getAttribute("data-scope")).toBe("filtered");
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("screenshots to look at", () => {
  it("the filtered shared view with its Properties and Funnels cards, light and dark, at 1280 and 375 px, nothing wider than the window", async () => {
    for (const dark of [false, true]) {
      for (const mobile of [false, true]) {
        const name = `${dark ? "dark" : "light"}-${mobile ? 375 : 1280}`;
        const { page, context, errors } = await openShared("&f=page~is~/pricing", { dark, mobile });
        const width = page.viewportSize()!.width;
        await page.getByTestId("prop-key").selectOption("plan");
        await page.locator('[data-testid="breakdown-prop.plan"] tbody tr').first().waitFor();
        await page.locator('[data-testid="funnel-table"] tbody tr').first().waitFor();
        await page.locator('[data-testid="breakdown-page"] tbody tr').first().waitFor();
        await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining({ visitors: 2 }));
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        await page.screenshot({ path: join(SHOTS, `share-explorer-${name}.png`), fullPage: true });
        expect(errors).toEqual([]);
        await context.close();
      }
    }
  });
});
