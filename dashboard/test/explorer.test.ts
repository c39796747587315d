// The site view as an explorer (issue 23), in real Chromium before a real gateway on real PostgreSQL: a click
// on a card's row filters the whole view through POST /api/v2/query — the numbers on screen read from the DOM
// equal the API's for the same filters, every card narrows —; the filters live in a chat-safe URL that back,
// forward and reload keep; the filter dialog's `is not` with two values; a year-over-year comparison; a live
// delta that matches the filters counts and one that does not is ignored (no query asked). Screenshots of the
// filtered view (light, dark, 375 px) go to dashboard/screenshots/.
import { mkdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, call, loginAsAdmin } from "../../gateway/test/support/auth.ts";
import { DASHBOARD_DIR } from "../scripts/launch.ts";
import { MOBILE, type Stack, UA, startStack } from "./support/stack.ts";
import { apiJson, apiQuery, crawlerHit, pageview, visitorUa } from "./support/traffic.ts";

const DOMAIN = "explorer.example";
const SHOTS = join(DASHBOARD_DIR, "screenshots");
const GOOGLE = { r: "https://www.google.com/search?q=svc" };
const BING = { r: "https://www.bing.com/" };
let stack: Stack;
let signedIn: Awaited<ReturnType<BrowserContext["storageState"]>>;
let visitor = 500;
let axeSource: string;

const apiJsonOf = (path: string) => apiJson(stack.gateway.base, path);
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
/** The site view's default period (the last 30 days of a UTC site) as a query's date_range. */
const LAST_30 = () => [daysAgo(29), today()];

/** The tiles' numbers as the DOM shows them (`data-value`: the number before formatting). */
async function tiles(page: Page): Promise<Record<string, number>> {
  return page.evaluate(() => Object.fromEntries(Array.from(document.querySelectorAll<HTMLElement>("[data-metric][data-value]")).map((e) => [e.dataset.metric!, Number(e.dataset.value)])));
}
const rows = (page: Page, field: string) => page.locator(`[data-testid="breakdown-${field}"] tbody tr`).evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.value!));

/** The filter dialog, opened with a click (again if the first landed before the page's script took over). */
async function openFilterDialog(page: Page): Promise<void> {
  await expect.poll(async () => {
    if (!(await page.locator("dialog[open]").count())) await page.getByTestId("add-filter").click();
    return page.locator("dialog[open]").count();
  }).toBe(1);
}

async function view(path: string, options: { dark?: boolean; mobile?: boolean } = {}) {
  const opened = await stack.open({ storageState: signedIn, bypassCSP: true, ...options });
  await opened.page.goto(path);
  // The page's script has taken over (routes/+layout.svelte): a click or a selection before it does nothing.
  await opened.page.locator("html[data-hydrated]").waitFor();
  return opened;
}

/** What the filtered tiles must read: the query API's totals for the same filters, events as custom events. */
async function expectedTiles(filters: unknown[], dateRange: unknown = LAST_30()): Promise<Record<string, number>> {
  const metrics = ["visitors", "visits", "pageviews", "views_per_visit", "bounce_rate", "visit_duration", "events"];
  const answer = await apiQuery(stack.gateway.base, { site_id: DOMAIN, date_range: dateRange, metrics, filters });
  const m = answer.results[0].metrics as number[];
  const out = Object.fromEntries(metrics.map((name, i) => [name, m[i]!]));
  return { ...out, events: out.events! - out.pageviews! };
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  axeSource = await readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  stack = await startStack({ sites: [DOMAIN] });
  const base = stack.gateway.base;
  // Google: three visitors (one of two pages, one signing up); Bing: one; direct: two reading the blog.
  for (const [path, extra] of [["/", GOOGLE], ["/pricing", GOOGLE], ["/pricing", GOOGLE], ["/", BING], ["/blog/one", {}], ["/blog/two", {}]] as const) {
    const ua = visitorUa(visitor++);
    await pageview(base, DOMAIN, path, ua, extra);
    if (path === "/pricing" && extra === GOOGLE) await pageview(base, DOMAIN, "/docs", ua, extra);
  }
  await pageview(base, DOMAIN, "/pricing", UA.iphone, { ...GOOGLE, n: "Signup", p: { plan: "pro" } });
  const { page, context } = await stack.open();
  await stack.signIn(page);
  signedIn = await context.storageState();
  await context.close();
  // The query engine reads today's rows from PostgreSQL: wait until all of them are there.
  for (let tries = 0; (await apiQuery(base, { site_id: DOMAIN, date_range: LAST_30(), metrics: ["pageviews"] })).results[0]?.metrics[0] !== 8; tries++) {
    if (tries === 50) throw new Error("the test's pageviews never reached the query engine");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
});
afterAll(() => stack?.close());

describe("click to filter", () => {
  it("a source's row filters the whole view: tiles and every card equal POST /api/v2/query's for that filter", async () => {
    const { page, errors, context } = await view(`/app/sites/${DOMAIN}`);
    await page.locator('[data-testid="breakdown-source"] tr[data-value="Google"] a[data-filter-link]').click();
    await page.waitForURL((url) => url.search.includes("f=source~is~Google"));
    await expect.poll(() => page.getByTestId("filter-bar").textContent()).toContain("Source is Google");
    const filters = [["is", "visit:source", ["Google"]]];
    const want = await expectedTiles(filters);
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining(want));
    expect(want.visitors).toBe(4);
    // Every card narrows: the Sources card drills down to Google's referrers, pages are those Google visitors viewed.
    await expect.poll(() => rows(page, "referrer"), { timeout: 15_000 }).toEqual(["google.com"]);
    const pages = await apiQuery(stack.gateway.base, { site_id: DOMAIN, date_range: LAST_30(), metrics: ["visitors"], dimensions: ["event:page"], filters, order_by: [["visitors", "desc"], ["event:page", "asc"]] });
    await expect.poll(async () => (await rows(page, "page")).sort()).toEqual(pages.results.map((r: { dimensions: string[] }) => r.dimensions[0]).sort());
    expect(await rows(page, "page")).not.toContain("/blog/one");
    // Page rows' visitors equal the API's.
    const shown = await page.locator('[data-testid="breakdown-page"] tbody tr').evaluateAll((trs) => trs.map((tr) => [(tr as HTMLElement).dataset.value, Number(tr.querySelector('[data-col="visitors"]')!.textContent!.replace(/^.*?(\d+)$/, "$1"))]));
    expect(Object.fromEntries(shown)).toEqual(Object.fromEntries(pages.results.map((r: { dimensions: string[]; metrics: number[] }) => [r.dimensions[0], r.metrics[0]])));
    // A second click (a page) adds a filter: both combine with "and".
    await page.locator('[data-testid="breakdown-page"] tr[data-value="/pricing"] a[data-filter-link]').click();
    await page.waitForURL((url) => url.search.includes("f=page~is~/pricing"));
    const both = await expectedTiles([...filters, ["is", "event:page", ["/pricing"]]]);
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining(both));
    expect(both.visitors).toBe(3);
    // Back: the source filter alone; forward; reload keeps the view.
    await page.goBack();
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining(want));
    await page.goForward();
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining(both));
    await page.reload();
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining(both));
    await expect.poll(() => page.getByTestId("filter-bar").locator(".chip").count()).toBe(2);
    // Esc-free removal: the chip's × drops one filter.
    await page.getByRole("link", { name: /Remove filter Page is/ }).click();
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining(want));
    expect(errors).toEqual([]);
    await context.close();
  });

  it("the URL is readable and survives chat apps: no character they mangle, the same view after a round trip", async () => {
    const { page, context } = await view(`/app/sites/${DOMAIN}`);
    await openFilterDialog(page);
    await page.getByTestId("filter-dimension").selectOption("page");
    await page.getByTestId("filter-operator").selectOption("is_not");
    await page.getByTestId("filter-values").fill("/blog/one\n/blog/two");
    await page.getByTestId("filter-apply").click();
    await page.waitForURL((url) => url.search.includes("f=page~isnot~"));
    const search = new URL(page.url()).search;
    expect(search).toBe("?f=page~isnot~/blog/one~/blog/two");
    // Only letters, digits, - / ~ = & ? % in the link: nothing Markdown, Slack or an unfurler reads as syntax.
    expect(search).toMatch(/^[A-Za-z0-9\-/~=&?%]*$/);
    const want = await expectedTiles([["is_not", "event:page", ["/blog/one", "/blog/two"]]]);
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining(want));
    expect(want.visitors).toBe(5);
    // A value with the characters chat apps mangle is encoded, and opens the same filter.
    await page.goto(`/app/sites/${DOMAIN}?f=page~contains~pri`);
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining(await expectedTiles([["contains", "event:page", ["pri"]]])));
    await openFilterDialog(page);
    await page.getByTestId("filter-dimension").selectOption("utm-campaign");
    await page.getByTestId("filter-operator").selectOption("contains");
    await page.getByTestId("filter-values").fill("a_b*c (d).");
    await page.getByTestId("filter-apply").click();
    await page.waitForURL((url) => url.search.includes("utm-campaign"));
    expect(new URL(page.url()).search).toBe("?f=page~contains~pri&f=utm-campaign~contains~a%5Fb%2Ac%20%28d%29%2E");
    await expect.poll(() => page.getByTestId("filter-bar").textContent()).toContain("UTM campaign contains a_b*c (d).");
    await context.close();
  });
});

describe("query scheduling", () => {
  it("a filter click sends the tiles' query first, then the chart's, then the visible cards': at most 7 queries, none twice", async () => {
    const { page, context, errors } = await view(`/app/sites/${DOMAIN}`);
    await page.locator('[data-testid="breakdown-source"] tr[data-value="Google"] a[data-filter-link]').waitFor();
    await page.waitForLoadState("networkidle").catch(() => {});
    const sent: Record<string, unknown>[] = [];
    // The order of answers and of the filtered AI panel's request (four engine queries of its own).
    const order: string[] = [];
    page.on("request", (r) => {
      if (r.url().endsWith("/api/v2/query")) sent.push(JSON.parse(r.postData() ?? "{}"));
      if (r.url().includes("/ai?") && r.url().includes("filters=")) order.push("ai asked");
    });
    // The view's queries; visitors now (a date-time range, counted after the view's) is not one of them.
    page.on("requestfinished", (r) => r.url().endsWith("/api/v2/query") && !/"date_range":\["[^"]*T/.test(r.postData() ?? "") && order.push("query answered"));
    await page.locator('[data-testid="breakdown-source"] tr[data-value="Google"] a[data-filter-link]').click();
    await page.waitForURL((url) => url.search.includes("f=source~is~Google"));
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining(await expectedTiles([["is", "visit:source", ["Google"]]])));
    await expect.poll(async () => (await rows(page, "referrer")).length, { timeout: 15_000 }).toBe(1);
    await page.waitForLoadState("networkidle").catch(() => {});
    await page.waitForTimeout(500);
    console.info(`queries sent on a filter click: ${sent.length}: ${sent.map((b) => JSON.stringify(b["dimensions"] ?? b["metrics"])).join(" ")}`);
    // The tiles (every tile metric in one query, no dimension) first, the chart (time buckets) second.
    expect(sent[0]).toEqual(expect.objectContaining({ metrics: expect.arrayContaining(["visitors", "visits", "bounce_rate", "visit_duration"]) }));
    expect(sent[0]!["dimensions"]).toBeUndefined();
    expect(sent[1]!["dimensions"]).toEqual(["time:day"]);
    // One query per visible tab (pages, referrers, countries, devices, events): no hidden tab, no copy, no goals'
    // conversions for a site without goals (8 before, the tiles' sent 7th). The filtered visitors now (the
    // visitors of the last 5 minutes with a matching row: lib/explorer-query.ts recentVisitorsQuery) waits for
    // all of them: after the last, if it was sent yet.
    const recentAt = sent.findIndex((b) => String((b["date_range"] as string[] | undefined)?.[0]).includes("T"));
    expect(recentAt === -1 || recentAt === sent.length - 1).toBe(true);
    expect(sent.length - (recentAt === -1 ? 0 : 1)).toBeLessThanOrEqual(7);
    expect(new Set(sent.map((b) => JSON.stringify(b))).size).toBe(sent.length);
    // The AI panel's engine queries wait until the view's are answered: they never run beside the tiles.
    await expect.poll(() => order.includes("ai asked"), { timeout: 15_000 }).toBe(true);
    expect(order.lastIndexOf("query answered")).toBeLessThan(order.indexOf("ai asked"));
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("cards with tabs", () => {
  it("entry pages from the query API; a filtered browser drills down to its versions; a property's values filter the view", async () => {
    const { page, context, errors } = await view(`/app/sites/${DOMAIN}`);
    // Clicked again until the tab shows: a click that lands before the page's script took over does nothing.
    await expect.poll(async () => {
      if (!(await page.getByTestId("breakdown-entry").count())) await page.locator('[data-tab="entry"]').click();
      return page.getByTestId("breakdown-entry").count();
    }, { timeout: 15_000 }).toBeGreaterThan(0);
    const entries = await apiQuery(stack.gateway.base, { site_id: DOMAIN, date_range: LAST_30(), metrics: ["visitors"], dimensions: ["visit:entry_page"] });
    await expect.poll(async () => (await rows(page, "entry")).sort(), { timeout: 15_000 }).toEqual(entries.results.map((r: { dimensions: string[] }) => r.dimensions[0]).sort());
    // The Devices card's browser tab shows a filtered browser's versions.
    await page.goto(`/app/sites/${DOMAIN}?f=browser~is~Chrome`);
    await page.locator('[data-tab="browser"]').click();
    await expect.poll(async () => (await rows(page, "browser-version")).length, { timeout: 15_000 }).toBeGreaterThan(0);
    // Properties: pick one of the site's property names (the gateway's list of the period), see its values, click one.
    await page.goto(`/app/sites/${DOMAIN}`);
    await expect.poll(() => page.getByTestId("prop-key").locator("option").allTextContents(), { timeout: 15_000 }).toEqual(["Pick a property…", "plan"]);
    await expect.poll(async () => {
      if (!(await page.getByTestId("breakdown-prop.plan").count())) await page.getByTestId("prop-key").selectOption("plan");
      return page.getByTestId("breakdown-prop.plan").count();
    }, { timeout: 15_000 }).toBe(1);
    await expect.poll(() => rows(page, "prop.plan"), { timeout: 15_000 }).toContain("pro");
    await page.locator('[data-testid="breakdown-prop.plan"] tr[data-value="pro"] a[data-filter-link]').click();
    await page.waitForURL((url) => url.search.includes("f=prop%2Eplan~is~pro"));
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining(await expectedTiles([["is", "event:props:plan", ["pro"]]])));
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("segments", () => {
  it("a filtered view saved as a segment is listed for the team and reapplied from the filter bar", async () => {
    const { page, context, errors } = await view(`/app/sites/${DOMAIN}?f=source~is~Google&f=page~isnot~/docs`);
    await expect.poll(() => page.getByTestId("filter-bar").locator(".chip").count()).toBe(2);
    await expect.poll(async () => {
      if (!(await page.getByTestId("segment-name").count())) await page.getByTestId("segment-save").click();
      return page.getByTestId("segment-name").count();
    }).toBe(1);
    await page.getByTestId("segment-name").fill("Google, not docs");
    await page.getByTestId("segment-submit").click();
    await page.getByTestId("segment-pick").waitFor();
    const listed = await apiJsonOf(`/api/sites/${DOMAIN}/segments`);
    expect(listed.segments).toEqual([expect.objectContaining({ name: "Google, not docs", filters: [["is", "visit:source", ["Google"]], ["is_not", "event:page", ["/docs"]]] })]);
    // From the unfiltered view, the segment brings both filters back.
    await page.getByTestId("clear-filters").click();
    await expect.poll(() => page.getByTestId("filter-bar").locator(".chip").count()).toBe(0);
    await page.getByTestId("segment-pick").selectOption({ label: "Google, not docs" });
    await page.waitForURL((url) => url.search === "?f=source~is~Google&f=page~isnot~/docs");
    const want = await expectedTiles([["is", "visit:source", ["Google"]], ["is_not", "event:page", ["/docs"]]]);
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining(want));
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("comparisons", () => {
  it("year over year: the tiles' changes are the query API's against the same days a year before", async () => {
    const { page, context } = await view(`/app/sites/${DOMAIN}?f=source~is~Google`);
    await page.getByTestId("compare-mode").selectOption("yoy");
    await page.waitForURL((url) => url.search.includes("compare=yoy"));
    const answer = await apiQuery(stack.gateway.base, {
      site_id: DOMAIN, date_range: LAST_30(), metrics: ["visitors", "pageviews"], filters: [["is", "visit:source", ["Google"]]],
      include: { comparisons: { mode: "year_over_year" } },
    });
    expect(answer.query.comparison_date_range[0].slice(0, 10)).toBe(`${Number(daysAgo(29).slice(0, 4)) - 1}${daysAgo(29).slice(4)}`);
    // Nothing a year ago: every count is new.
    expect(answer.results[0].comparison.metrics).toEqual([0, 0]);
    await expect.poll(() => page.locator('[data-change="visitors"]').textContent(), { timeout: 15_000 }).toBe("new");
    await expect.poll(() => tiles(page)).toEqual(expect.objectContaining({ visitors: answer.results[0].metrics[0] }));
    // Match day of week, and a custom range, stay in the URL.
    await page.getByTestId("compare-weekday").check();
    await page.waitForURL((url) => url.search.includes("match=weekday"));
    await page.getByTestId("compare-mode").selectOption("custom");
    await page.waitForURL((url) => url.search.includes("compare=custom") && url.search.includes("cfrom="));
    await page.reload();
    expect(await page.getByTestId("compare-mode").inputValue()).toBe("custom");
    expect(await page.getByTestId("compare-weekday").isChecked()).toBe(true);
    await context.close();
  });
});

describe("live", () => {
  it("a filtered view counts a matching visitor from the live stream and ignores one that does not match", async () => {
    const { page, context } = await view(`/app/sites/${DOMAIN}?f=source~is~Bing`);
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining({ visitors: 1 }));
    await page.locator('[data-status="live"]').waitFor();
    // Every card has its answer: the queue sends the cards' queries after the tiles' (src/lib/query-queue.ts).
    await expect.poll(() => page.getByText("Loading…").count(), { timeout: 15_000 }).toBe(0);
    // Visitors now among Bing's is counted last, after every card's query (lib/explorer-query.ts).
    await page.locator('[data-testid="live-scope"][data-scope="filtered"]').waitFor();
    await expect.poll(() => page.locator('[data-metric="live-visitors"]').textContent(), { timeout: 15_000 }).toMatch(/^\d+$/);
    await page.waitForLoadState("networkidle").catch(() => {});
    await page.waitForTimeout(300);
    const queries: string[] = [];
    // The visitors-now recount every 30 s is no answer to a delta: left out.
    page.on("request", (r) => r.url().endsWith("/api/v2/query") && !/"date_range":\["[^"]*T/.test(r.postData() ?? "") && queries.push(r.postData() ?? ""));
    // A Google visitor: its delta names source Google only, so the Bing view asks nothing.
    await pageview(stack.gateway.base, DOMAIN, "/", visitorUa(visitor++), GOOGLE);
    await page.waitForTimeout(6_000);
    expect(queries).toEqual([]);
    // A Bing visitor: the view asks again and counts it.
    await pageview(stack.gateway.base, DOMAIN, "/", visitorUa(visitor++), BING);
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining({ visitors: 2 }));
    expect(queries.length).toBeGreaterThan(0);
    await context.close();
  });
});

describe("full lists and labels", () => {
  it("a filtered tab's More opens its full list from POST /api/v2/query: 100 rows a page, Show more, a search the engine answers", async () => {
    // One visitor reads 105 pages of /more/: the Pages card shows 10, its full list pages through the rest.
    const ua = visitorUa(visitor++);
    for (let i = 1; i <= 105; i++) await pageview(stack.gateway.base, DOMAIN, `/more/${i}`, ua);
    const filters = [["contains", "event:page", ["/more/"]]];
    await expect.poll(async () => (await apiQuery(stack.gateway.base, { site_id: DOMAIN, date_range: LAST_30(), metrics: ["pageviews"], filters })).results[0]?.metrics[0], { timeout: 15_000 }).toBe(105);
    const { page, context, errors } = await view(`/app/sites/${DOMAIN}?f=page~contains~/more/`);
    await expect.poll(async () => (await rows(page, "page")).length, { timeout: 15_000 }).toBe(10);
    await page.locator('[data-testid="breakdown-page"] a.btn', { hasText: "More" }).click();
    await page.waitForURL((url) => url.search.includes("open=page"));
    const dialog = page.getByTestId("breakdown-dialog");
    await expect.poll(() => dialog.locator("tbody tr").count(), { timeout: 15_000 }).toBe(100);
    await dialog.getByTestId("breakdown-more").click();
    await expect.poll(() => dialog.locator("tbody tr").count(), { timeout: 15_000 }).toBe(105);
    await expect.poll(() => dialog.getByTestId("breakdown-more").count()).toBe(0);
    // The search is asked of the engine (contains, any case): /more/10 … /more/19, /more/100 … /more/105, /more/1.
    await dialog.getByRole("searchbox").fill("MORE/10");
    await expect.poll(async () => (await dialog.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.value!))).sort(), { timeout: 15_000 })
      .toEqual(["/more/10", "/more/100", "/more/101", "/more/102", "/more/103", "/more/104", "/more/105"]);
    await page.waitForURL((url) => url.search.includes("q=MORE/10"));
    // A row of the list filters the view by it.
    await dialog.locator('tr[data-value="/more/104"] a[data-filter-link]').click();
    await page.waitForURL((url) => url.search.includes("f=page~is~/more/104") && !url.search.includes("open="));
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining({ visitors: 1, pageviews: 1 }));
    expect(errors).toEqual([]);
    await context.close();
  });

  it("the AI panel follows the view's filters: the gateway's filtered panel, the one a shared link with those filters shows", async () => {
    await crawlerHit(stack.gateway.base, DOMAIN, "/pricing");
    await crawlerHit(stack.gateway.base, DOMAIN, "/blog/one");
    const asked: string[] = [];
    const { page, context, errors } = await stack.open({ storageState: signedIn });
    page.on("request", (r) => r.url().includes("/ai?") && asked.push(new URL(r.url()).searchParams.get("filters") ?? ""));
    await page.goto(`/app/sites/${DOMAIN}?f=page~is~/pricing`);
    const want = await apiJsonOf(`/api/sites/${DOMAIN}/ai?days=30&limit=10&filters=${encodeURIComponent('[["is","event:page",["/pricing"]]]')}`);
    expect(want.crawlers.hits).toBe(1);
    await expect.poll(() => page.getByTestId("ai-crawler-hits").textContent(), { timeout: 15_000 }).toBe(String(want.crawlers.hits));
    await page.getByTestId("ai-status-unknown").waitFor();
    // Unfiltered, both crawler hits count.
    await page.getByTestId("clear-filters").click();
    await expect.poll(() => page.getByTestId("ai-crawler-hits").textContent(), { timeout: 15_000 }).toBe("2");
    expect(asked).toContain('[["is","event:page",["/pricing"]]]');
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a filtered view's goals are the query API's conversions for the filters, with their conversion rate", async () => {
    const { token } = await loginAsAdmin(stack.gateway.base);
    const made = await call(stack.gateway.base, "POST", `/api/sites/${DOMAIN}/goals`, { body: { name: "Signup" }, headers: bearer(token) });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    const { page, context, errors } = await view(`/app/sites/${DOMAIN}?f=source~is~Google`);
    const filters = [["is", "visit:source", ["Google"]]];
    const goal = await apiQuery(stack.gateway.base, { site_id: DOMAIN, date_range: LAST_30(), metrics: ["visitors", "events"], dimensions: ["event:goal"], filters });
    const [visitors, conversions] = goal.results.find((r: { dimensions: string[] }) => r.dimensions[0] === "Signup").metrics as [number, number];
    const total = (await expectedTiles(filters)).visitors!;
    const row = page.locator('[data-testid="goals"] tr[data-goal="Signup"]');
    await expect.poll(() => row.locator('[data-col="visitors"]').textContent(), { timeout: 15_000 }).toBe(String(visitors));
    expect(await row.locator('[data-col="conversions"]').textContent()).toBe(String(conversions));
    await expect.poll(() => row.locator('[data-col="conversion-rate"]').textContent()).toBe(`${(Math.round((10_000 * visitors) / total) / 100).toFixed(2)} %`);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("channels read as Plausible names them, in the card (rollups and query API) and on the filter's chip", async () => {
    const { page, context } = await view(`/app/sites/${DOMAIN}`);
    await expect.poll(async () => {
      if (!(await page.getByTestId("breakdown-channel").count())) await page.locator('[data-tab="channel"]').click();
      return page.getByTestId("breakdown-channel").count();
    }, { timeout: 15_000 }).toBeGreaterThan(0);
    const label = (value: string) => page.locator(`[data-testid="breakdown-channel"] tr[data-value="${value}"] .text`).textContent();
    await expect.poll(() => label("search"), { timeout: 15_000 }).toBe("Organic Search");
    expect(await label("direct")).toBe("Direct");
    await page.locator('[data-testid="breakdown-channel"] tr[data-value="search"] a[data-filter-link]').click();
    await page.waitForURL((url) => url.search.includes("f=channel~is~search"));
    await expect.poll(() => page.getByTestId("filter-bar").textContent()).toContain("Channel is Organic Search");
    // The filtered card is the query API's: the same words.
    await page.locator('[data-tab="channel"]').click();
    await expect.poll(() => label("search"), { timeout: 15_000 }).toBe("Organic Search");
    await context.close();
  });
});

describe("keyboard", () => {
  it("? shows the map; keys change the period, actor and comparison; Esc clears the filters; controls are reachable by Tab and visibly focused", async () => {
    const { page, context, errors } = await view(`/app/sites/${DOMAIN}?f=source~is~Google`);
    await expect.poll(() => page.getByTestId("filter-bar").locator(".chip").count()).toBe(1);
    await page.locator('[data-status="live"]').waitFor();
    await page.keyboard.press("?");
    await page.getByTestId("keyboard-map").waitFor();
    expect(await page.getByTestId("keyboard-map").textContent()).toContain("Clear the filters");
    await page.keyboard.press("Escape");
    await expect.poll(() => page.getByTestId("keyboard-map").isVisible()).toBe(false);
    // The dialog's Esc closed it and left the filters alone.
    expect(new URL(page.url()).search).toBe("?f=source~is~Google");
    await page.keyboard.press("w");
    await page.waitForURL((url) => url.search.includes("period=7d"));
    await page.keyboard.press("4");
    await page.waitForURL((url) => url.search.includes("actor=ai_crawler"));
    await page.keyboard.press("c");
    await page.waitForURL((url) => url.search.includes("compare=yoy"));
    await page.keyboard.press("Escape");
    await page.waitForURL((url) => !url.search.includes("f="));
    expect(new URL(page.url()).search).toBe("?period=7d&actor=ai_crawler&compare=yoy");
    // Tab reaches the controls with a visible focus ring.
    let outlined = 0;
    for (let i = 0; i < 25; i++) {
      await page.keyboard.press("Tab");
      const style = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        return el && el !== document.body ? getComputedStyle(el).outlineStyle : "none";
      });
      if (style !== "none") outlined++;
    }
    expect(outlined).toBe(25);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("what a person sees", () => {
  async function seriousViolations(page: Page): Promise<string[]> {
    await page.addScriptTag({ content: axeSource });
    const result = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
      return axe.run(document, { resultTypes: ["violations"] });
    });
    return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  }
  it.each([
    { name: "light", dark: false, mobile: false },
    { name: "dark", dark: true, mobile: false },
    { name: "375", dark: false, mobile: true },
  ])("the filtered view, $name: no serious axe violation, fits, screenshot", async (variant) => {
    const { page, context, errors } = await view(`/app/sites/${DOMAIN}?f=source~is~Google&f=page~isnot~/docs`, variant);
    // The live test above added a Google visitor: the API's number, whatever ran before.
    const want = await expectedTiles([["is", "visit:source", ["Google"]], ["is_not", "event:page", ["/docs"]]]);
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(expect.objectContaining(want));
    await page.locator('[data-testid="breakdown-page"] table').waitFor();
    await page.waitForLoadState("networkidle").catch(() => {});
    expect(await seriousViolations(page)).toEqual([]);
    if (variant.mobile) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
    await page.screenshot({ path: join(SHOTS, `explorer-filtered-${variant.name}.png`), fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  });
});
