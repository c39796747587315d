// Issue 21, what a newcomer hit, in real Chromium in front of a real gateway (ports chosen free, never the
// defaults): live tiles on every period, an ended session going to sign-in, an unknown site as a 404 page,
// labels and tables that stay in their cards at 1280 and 375 px, "All humans", page visitors counting viewers,
// "All traffic" not inflated by crawler hits, distinct "visitors now", plain words, and the papercuts (goal
// suggestions, the custom-days box, tile clicks, month buckets, channel words, deleting a site, the
// retention warning, a bad domain explained). The install panel and `npm start`'s URL: launcher.test.ts;
// anomalies grouped in sentences: optional-cards.test.ts.
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, call, loginAsAdmin } from "../../gateway/test/support/auth.ts";
import { DASHBOARD_DIR } from "../scripts/launch.ts";
import { type Stack, UA, startStack } from "./support/stack.ts";
import { apiJson, crawlerHit, pageview, visitorUa } from "./support/traffic.ts";

const DOMAIN = "busy.example";
const LONG_PAGE = "/docs/getting-started-with-the-middleware-on-an-edge-worker-and-a-long-path";
const LONG_GOALS = ["newsletter_signup_from_the_footer_form", "ai_assistant_referral_conversion", "Signup", "checkout-completed-with-a-coupon-code", "Download the whitepaper PDF"];
let stack: Stack;
let signedIn: Awaited<ReturnType<import("playwright-core").BrowserContext["storageState"]>>;
let token: string;

beforeAll(async () => {
  stack = await startStack({ sites: [DOMAIN, "doomed.example"] });
  const base = stack.gateway.base;
  // Six people (one from ChatGPT), long paths, a newsletter campaign; one more person sends only a custom event.
  for (let n = 0; n < 6; n++) {
    await pageview(base, DOMAIN, n % 2 ? LONG_PAGE : "/pricing", visitorUa(n), n === 0 ? { r: "https://chatgpt.com/" } : { r: "https://newsletter.example.com/?utm_source=newsletter", u: `https://${DOMAIN}${n % 2 ? LONG_PAGE : "/pricing"}?utm_source=newsletter&utm_medium=email&utm_campaign=launch` });
  }
  await pageview(base, DOMAIN, "/pricing", visitorUa(50), { n: "Signup" });
  // Eight AI-crawler fetches from eight different crawler clients: hits, never visitors.
  for (let n = 0; n < 8; n++) await crawlerHit(base, DOMAIN, `/blog/post-${n}`, UA.gptbot.replace("GPTBot/1.2", `GPTBot/1.${n}`));
  token = (await loginAsAdmin(base)).token;
  for (const name of LONG_GOALS) expect((await call(base, "POST", `/api/sites/${DOMAIN}/goals`, { body: { name }, headers: bearer(token) })).status).toBe(201);
  for (const name of ["CI export of the monthly report", "MCP server on the laptop", "wall screen"]) {
    expect((await call(base, "POST", "/api/keys", { body: { name }, headers: bearer(token) })).status).toBe(201);
  }
  const { page, context } = await stack.open();
  await stack.signIn(page);
  signedIn = await context.storageState();
  await context.close();
});
afterAll(() => stack?.close());

const open = (o: { mobile?: boolean; dark?: boolean } = {}) => stack.open({ ...o, storageState: signedIn });
const number = (text: string | null) => Number((text ?? "").replaceAll(",", ""));
const metric = (page: Page, name: string) => page.locator(`[data-metric="${name}"]`).textContent().then(number);
const live = (page: Page) => expect.poll(() => page.getByTestId("live-indicator").getAttribute("data-status"), { timeout: 15_000 }).toBe("live");

/** Elements of `page` whose box leaves the card they are in (1 px of rounding allowed). */
function escapingCards(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    for (const card of Array.from(document.querySelectorAll(".card")) as HTMLElement[]) {
      const box = card.getBoundingClientRect();
      for (const el of Array.from(card.querySelectorAll("*")) as HTMLElement[]) {
        if (el.closest(".scroll") && el.closest(".scroll") !== el) continue; // scrolls inside its own box
        if (el.closest(".visually-hidden, svg")) continue; // 1 px screen-reader text; the chart draws in its own box
        const r = el.getBoundingClientRect();
        if (r.width === 0 || getComputedStyle(el).visibility === "hidden") continue;
        if (r.right > box.right + 1 || r.left < box.left - 1) out.push(`${card.dataset.testid ?? card.className}: ${el.tagName.toLowerCase()}.${el.className} "${(el.textContent ?? "").slice(0, 40)}"`);
      }
    }
    return out;
  });
}

describe("live", () => {
  it.each(["30d", "7d", "12mo"])("the %s view's tiles and chart tick from the stream, without a reload", async (period) => {
    const { page, context } = await open();
    await page.goto(`/app/sites/${DOMAIN}${period === "30d" ? "" : `?period=${period}`}`);
    await live(page);
    const before = await metric(page, "pageviews");
    await page.locator('[data-tile="pageviews"]').click();
    const lastBucket = () => page.getByTestId("chart-table").locator("tbody tr").last().locator("td.num").first().textContent({ timeout: 1000 }).then(number);
    const chartBefore = await lastBucket();
    const requests: string[] = [];
    page.on("request", (r) => void (r.url().includes("/stats?") && requests.push(r.url())));
    await pageview(stack.gateway.base, DOMAIN, "/ticks", visitorUa(100 + period.length));
    await expect.poll(() => metric(page, "pageviews"), { timeout: 3_000 }).toBe(before + 1);
    await expect.poll(lastBucket, { timeout: 3_000 }).toBe(chartBefore + 1);
    expect(requests).toEqual([]);
    await context.close();
  });

  it("'visitors now' in All traffic counts distinct people and agents: crawler fetches add hits, not visitors now", async () => {
    const { page, context } = await open();
    await page.goto(`/app/sites/${DOMAIN}?period=today&actor=all`);
    await live(page);
    const now = await metric(page, "live-visitors");
    const today = await metric(page, "visitors");
    expect(now).toBeLessThanOrEqual(today);
    const hits = await metric(page, "hits");
    for (let n = 20; n < 24; n++) await crawlerHit(stack.gateway.base, DOMAIN, "/blog/again", UA.gptbot.replace("GPTBot/1.2", `GPTBot/1.${n}`));
    await expect.poll(() => metric(page, "hits")).toBe(hits + 4);
    expect(await metric(page, "live-visitors")).toBe(now);
    expect(await metric(page, "visitors")).toBe(today);
    const stats = await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/stats?days=1&actor=all`);
    expect(today).toBe(stats.current.visitors);
    await context.close();
  });
});

describe("sessions", () => {
  it("signing out in another tab sends the open site view to sign-in, with the way back", async () => {
    const { page, context } = await stack.open();
    await stack.signIn(page);
    await page.goto(`/app/sites/${DOMAIN}?period=7d`);
    await live(page);
    const other = await context.newPage();
    await other.goto("/app/settings");
    await other.getByTestId("sign-out").click();
    await page.waitForURL((url) => url.pathname === "/app/login", { timeout: 5_000 });
    expect(new URL(page.url()).searchParams.get("next")).toBe(`/app/sites/${DOMAIN}?period=7d`);
    await page.getByTestId("session-ended").waitFor();
    await context.close();
  });

  it("a session ended elsewhere (not this browser's tabs): the stream ends with a reason and the page goes to sign-in", async () => {
    const { page, context } = await stack.open();
    await stack.signIn(page);
    await page.goto(`/app/sites/${DOMAIN}`);
    await live(page);
    // The same session ended through the API (as an expiry or a sign-out on another device would end it).
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    const logout = await fetch(`${stack.dashboard.base}/api/auth/logout`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json", origin: stack.dashboard.base, "sec-fetch-site": "same-origin" },
      body: "{}",
    });
    expect(logout.status).toBe(204);
    // The gateway re-checks every stream's credential every 15 s.
    await page.waitForURL((url) => url.pathname === "/app/login", { timeout: 25_000 });
    expect(new URL(page.url()).searchParams.get("next")).toBe(`/app/sites/${DOMAIN}`);
    await context.close();
  }, 45_000);
});

it("an unknown site is a 404 page with the way back, not a dashboard of errors", async () => {
  const { page, context } = await open();
  const streams: string[] = [];
  page.on("request", (r) => void (r.url().includes("/live") && streams.push(r.url())));
  const response = await page.goto("/app/sites/nonexistent.example");
  expect(response?.status()).toBe(404);
  await page.getByTestId("error-page").waitFor();
  expect(await page.textContent("main")).toContain("There is no site nonexistent.example");
  expect(await page.locator('[data-testid="breakdown-page"]').count()).toBe(0);
  await page.getByRole("link", { name: "Back to your sites" }).click();
  await page.waitForURL((url) => url.pathname === "/app");
  expect(streams).toEqual([]);
  await context.close();
});

describe("layout", () => {
  it("1280 px, All traffic · Today: labels on one line with an ellipsis and whole on hover and focus, nothing leaves its card", async () => {
    const { page, context } = await open();
    await page.goto(`/app/sites/${DOMAIN}?period=today&actor=all`);
    await page.locator('[data-testid="breakdown-page"] table').waitFor();
    await page.locator('[data-testid="goals"] table').waitFor();
    await page.locator('[data-testid="breakdown-rule"] table').waitFor();
    // Every label is one line (no word split over two), cut with an ellipsis where it does not fit.
    const lines = await page.locator(".breakdown .text").evaluateAll((els) => els.map((el) => [el.textContent, el.getClientRects().length, Math.round(el.getBoundingClientRect().height)]));
    const lineHeight = Math.min(...lines.map(([, , h]) => h as number));
    expect(lines.filter(([, , h]) => (h as number) > lineHeight * 1.5)).toEqual([]);
    const long = page.getByTestId("breakdown-page").locator(".text", { hasText: LONG_PAGE });
    expect(await long.evaluate((el) => [el.scrollWidth, el.clientWidth, getComputedStyle(el).textOverflow])).toEqual([expect.any(Number), expect.any(Number), "ellipsis"]);
    expect(await long.evaluate((el) => el.scrollWidth > el.clientWidth), "cut by the ellipsis").toBe(true);
    expect(await long.getAttribute("title")).toBe(LONG_PAGE);
    expect(await long.getAttribute("tabindex")).toBe("0");
    await long.focus();
    expect(await long.evaluate((el) => [el.scrollWidth, el.clientWidth, getComputedStyle(el).whiteSpace]), "whole while focused").toEqual([expect.any(Number), expect.any(Number), "normal"]);
    expect(await long.evaluate((el) => el.scrollWidth <= el.clientWidth + 1), "whole while focused").toBe(true);
    // The label column keeps room to read: at least a third of its card.
    const widths = await long.evaluate((el) => [el.closest("td")!.clientWidth, el.closest(".card")!.clientWidth]);
    expect(widths[0]! * 3).toBeGreaterThan(widths[1]!);
    expect(await escapingCards(page)).toEqual([]);
    // Goals: five long names, every Delete button inside the card.
    expect(await page.getByTestId("goals").getByRole("button", { name: /Delete/ }).count(), "goals").toBe(5);
    await context.close();
  });

  it("a column that is zero on every row is not shown: no Hits on the humans' view, no Pageviews on the crawlers'", async () => {
    const { page, context } = await open();
    await page.goto(`/app/sites/${DOMAIN}?period=today`);
    const pages = page.getByTestId("breakdown-page");
    await pages.locator("table").waitFor();
    expect(await pages.locator("th").allTextContents()).toEqual(["Page", "Visitors", "Pageviews"]);
    await page.goto(`/app/sites/${DOMAIN}?period=today&actor=ai_crawler`);
    await expect.poll(() => pages.locator("th").allTextContents()).toEqual(["Page", "Visitors", "Hits"]);
    await context.close();
  });

  it("375 px: settings with API keys and the AI panel fit the phone; tables stack or scroll inside their card", async () => {
    const { page, context } = await open({ mobile: true });
    await page.goto("/app/settings");
    await page.getByTestId("api-keys").locator("table").waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    for (const name of ["Created", "Last used"]) {
      const cell = page.locator(`[data-label="${name}"]`).first();
      const box = (await cell.boundingBox())!;
      expect(box.x + box.width, name).toBeLessThanOrEqual(375);
    }
    const revoke = (await page.getByRole("button", { name: /Revoke/ }).first().boundingBox())!;
    expect(revoke.x + revoke.width).toBeLessThanOrEqual(375);
    await page.goto(`/app/sites/${DOMAIN}?period=today`);
    await page.getByTestId("crawl-to-referral").waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await escapingCards(page)).toEqual([]);
    await context.close();
  });
});

describe("numbers", () => {
  it("All humans (human + human_via_ai) beside the actors and in the sites list; Humans stays the default", async () => {
    const { page, context } = await open();
    await page.goto(`/app/sites/${DOMAIN}?period=today`);
    expect(await page.locator('[data-actor="human"]').getAttribute("aria-current")).toBe("true");
    await page.locator('[data-actor="humans"]').click();
    await page.waitForURL(/actor=humans/);
    const api = await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/stats?days=1&actor=humans`);
    const human = await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/stats?days=1&actor=human`);
    expect(api.current.visitors).toBeGreaterThan(human.current.visitors);
    await expect.poll(() => metric(page, "visitors")).toBe(api.current.visitors);
    await page.goto("/app");
    await expect.poll(() => page.getByTestId(`humans-${DOMAIN}`).locator("strong").textContent().then(number)).toBe(api.current.visitors);
    await context.close();
  });

  it("a page's visitors are those who viewed it: a custom event sent on a page adds no visitor to it", async () => {
    const { page, context } = await open();
    await page.goto(`/app/sites/${DOMAIN}?period=today`);
    const row = page.getByTestId("breakdown-page").locator('tr[data-value="/pricing"]');
    await row.waitFor();
    const views = await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/breakdown?field=page&days=1&actor=human`);
    const pricing = views.rows.find((r: { value: string }) => r.value === "/pricing");
    // Two people (humans) viewed /pricing; a third only sent "Signup" from it.
    expect(pricing).toMatchObject({ visitors: 2 });
    expect(number(await row.locator('[data-col="visitors"]').textContent())).toBe(2);
    await context.close();
  });

  it("All traffic: crawler hits are hits, not visitors, Direct / None or browsers; non-browser clients say so", async () => {
    const { page, context } = await open();
    await page.goto(`/app/sites/${DOMAIN}?period=today&actor=all`);
    const visitors = await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/stats?days=1&actor=humans`);
    await expect.poll(() => metric(page, "visitors")).toBe(visitors.current.visitors);
    const sources = page.getByTestId("breakdown-source");
    await sources.locator("table").waitFor();
    // Direct / None: the people who came without a referrer, not the crawlers' fetches (they send none).
    const directOf = async (actor: string) => (await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/breakdown?field=source&days=1&actor=${actor}`)).rows.find((r: { value: string }) => r.value === "");
    const [all, people] = [await directOf("all"), await directOf("humans")];
    expect(all.visitors).toBe(people.visitors);
    expect(all.hits).toBeGreaterThanOrEqual(8);
    expect(number(await sources.locator('tr[data-value=""] [data-col="visitors"]').textContent())).toBe(people.visitors);
    const devices = page.getByTestId("breakdown-device");
    expect(await devices.locator('tr[data-value="other"] .text').textContent()).toBe("Other or not a browser");
    await page.locator('[data-tab="browser"]').click();
    const browsers = page.getByTestId("breakdown-browser");
    await browsers.locator("table").waitFor();
    // The tab's rows arrive after its table: wait for them rather than count the first paint.
    await expect.poll(() => browsers.locator(".not-browser").count()).toBeGreaterThan(0);
    await context.close();
  });

  it("no statistics jargon on screen; the exact basis is in the tooltips", async () => {
    const { page, context } = await open();
    for (const view of ["?period=24h", "?period=today&actor=ai_agent", ""]) {
      await page.goto(`/app/sites/${DOMAIN}${view}`);
      await page.locator('[data-testid="ai-panel"] table').first().waitFor();
      const text = await page.locator("main").innerText();
      expect(text, view).not.toMatch(/\b(observed|inferred|score)\b/i);
    }
    const title = await page.locator(".tile", { has: page.locator('[data-metric="visitors"]') }).locator("[title]").first().getAttribute("title");
    expect(title).toMatch(/basis: (observed|inferred)/);
    await context.close();
  });
});

describe("papercuts", () => {
  it("the goal field suggests the event names already seen (case kept)", async () => {
    const { page, context } = await open();
    await page.goto(`/app/sites/${DOMAIN}?period=today`);
    await call(stack.gateway.base, "DELETE", `/api/sites/${DOMAIN}/goals/${(await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/goals`)).goals.find((g: { name: string }) => g.name === "Signup").id}`, { headers: bearer(token) });
    await page.reload();
    await expect.poll(() => page.getByTestId("goal-suggestions").locator("option").evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value))).toContain("Signup");
    expect(await page.getByTestId("goals").getByLabel("Event name").getAttribute("list")).toBe(`goal-events-${DOMAIN}`);
    await context.close();
  });

  it("the custom-days box shows the custom window only, never a stale number on other periods", async () => {
    const { page, context } = await open();
    await page.goto(`/app/sites/${DOMAIN}?period=custom&days=45`);
    const box = page.getByTestId("custom-days");
    await expect.poll(() => box.inputValue()).toBe("45");
    await page.locator('[data-period="7d"]').click();
    await page.waitForURL(/period=7d/);
    await expect.poll(() => box.inputValue()).toBe("");
    expect(await box.getAttribute("placeholder")).toBe("7");
    await expect.poll(() => page.getByTestId("custom-days-unit").textContent()).toBe("days");
    await page.locator('[data-period="24h"]').click();
    await page.waitForURL(/period=24h/);
    await expect.poll(() => box.inputValue()).toBe("");
    // The box shows "1" there (its placeholder): "last 1 day", not "last 1 days".
    await expect.poll(() => page.getByTestId("custom-days-unit").textContent()).toBe("day");
    await box.fill("3");
    await expect.poll(() => page.getByTestId("custom-days-unit").textContent()).toBe("days");
    await context.close();
  });

  it("clicking anywhere on a tile switches the chart's metric", async () => {
    const { page, context } = await open();
    await page.goto(`/app/sites/${DOMAIN}?period=today`);
    const tile = page.locator('[data-tile="events"]');
    // A corner, away from the title; clicked again until it takes (a click before the page's script took over does nothing).
    await expect.poll(async () => {
      const box = (await tile.boundingBox())!;
      await page.mouse.click(box.x + box.width - 8, box.y + box.height - 8);
      return page.getByTestId("time-chart").getAttribute("aria-label");
    }, { timeout: 15_000 }).toMatch(/^Events per hour/);
    expect(await tile.getAttribute("aria-pressed")).toBe("true");
    await context.close();
  });

  it("the 12-month chart is in calendar months, each labelled with its month and year", async () => {
    const { page, context } = await open();
    await page.goto(`/app/sites/${DOMAIN}?period=12mo`);
    const table = page.getByTestId("chart-table");
    await table.locator("tbody tr").first().waitFor({ state: "attached" });
    const rows = await table.locator("tbody tr td:first-child").allTextContents();
    expect(rows.length).toBeGreaterThanOrEqual(12);
    expect(rows.length).toBeLessThanOrEqual(13);
    expect(await table.locator("th").first().textContent()).toBe("Month");
    const thisMonth = new Intl.DateTimeFormat("en", { timeZone: "UTC", month: "long", year: "numeric" }).format(Date.now());
    // The current month is partial (it runs through today): its days are named.
    expect(rows.at(-1)).toMatch(/^[A-Z][a-z]{2} \d{1,2}( – [A-Z][a-z]{2} \d{1,2})?$|^[A-Z][a-z]+ \d{4}$/);
    expect(rows.slice(1, -1).every((r) => /^[A-Z][a-z]+ \d{4}$/.test(r))).toBe(true);
    expect(rows.slice(1, -1)).not.toContain(thisMonth); // the current month is the last row, by its days
    await context.close();
  });

  it("channels read as words", async () => {
    const { page, context } = await open();
    await page.goto(`/app/sites/${DOMAIN}?period=today&actor=humans`);
    const channels = page.getByTestId("breakdown-channel");
    // Clicked again until the tab shows: a click that lands before the page's script took over does nothing.
    await expect.poll(async () => {
      if (!(await channels.count())) await page.locator('[data-tab="channel"]').click();
      return channels.count();
    }, { timeout: 15_000 }).toBe(1);
    await channels.locator("table").waitFor();
    const labels = await channels.locator(".text").allTextContents();
    expect(labels).toContain("AI Assistant");
    expect(labels.some((l) => l.includes("_"))).toBe(false);
    await context.close();
  });

  it("the add-site form says what is wrong with a bad domain", async () => {
    const { page, context } = await open();
    await page.goto("/app");
    await page.getByRole("button", { name: "Add site" }).click();
    await page.getByLabel("Domain").fill("my shop.example");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await expect.poll(() => page.getByTestId("add-error").textContent()).toMatch(/domain: .*a domain has no spaces/);
    await page.getByLabel("Domain").fill("shop_eu.example");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await expect.poll(() => page.getByTestId("add-error").textContent()).toMatch(/underscores are not allowed/);
    await context.close();
  });

  it("shrinking retention says how many days of data will be deleted", async () => {
    await stack.gateway.pool.query("update sites set created_at = now() - interval '40 days' where domain = $1", [DOMAIN]);
    const { page, context } = await open();
    await page.goto("/app/settings");
    const form = page.locator(`form[data-site="${DOMAIN}"]`);
    await form.getByLabel("Retention (days)").fill("30");
    // 41 days exist (40 days ago through today); keeping 30 deletes the oldest 11.
    await expect.poll(() => page.getByTestId(`retention-warning-${DOMAIN}`).textContent()).toContain("the oldest 11 days of busy.example's data will be deleted");
    await form.getByLabel("Retention (days)").fill("400");
    await expect.poll(() => page.getByTestId(`retention-warning-${DOMAIN}`).count()).toBe(0);
    await context.close();
  });

  it("a site can be deleted by an admin who types its domain; its data goes", async () => {
    await pageview(stack.gateway.base, "doomed.example", "/", visitorUa(7));
    const { page, context } = await open();
    await page.goto("/app/settings");
    await page.getByRole("button", { name: "Delete doomed.example…" }).click();
    const confirmForm = page.getByTestId("delete-doomed.example");
    const button = confirmForm.getByRole("button", { name: "Delete doomed.example for good" });
    expect(await button.isDisabled()).toBe(true);
    await confirmForm.getByLabel(/Type/).fill("doomed.exampl");
    expect(await button.isDisabled()).toBe(true);
    await confirmForm.getByLabel(/Type/).fill("doomed.example");
    await button.click();
    await expect.poll(() => page.locator('form[data-site="doomed.example"]').count()).toBe(0);
    // What goes with it (rows, rollups, salts, snapshots) is checked table by table in gateway sites-goals.test.ts.
    expect((await stack.gateway.pool.query("select count(*)::int as n from sites where domain = 'doomed.example'")).rows[0].n).toBe(0);
    expect((await call(stack.gateway.base, "GET", "/api/sites/doomed.example/stats", { headers: bearer(token) })).status).toBe(404);
    await context.close();
  });
});

it.each([
  { name: "busiest-1280", path: `/app/sites/${DOMAIN}?period=today&actor=all`, ready: '[data-testid="ai-panel"] table', mobile: false },
  { name: "settings-375", path: "/app/settings", ready: '[data-testid="api-keys"] table', mobile: true },
])("screenshots to look at: $name, light and dark, nothing wider than the window", async ({ name, path, ready, mobile }) => {
  for (const dark of [false, true]) {
    const { page, context, errors } = await open({ mobile, dark });
    await page.goto(path);
    await page.locator(ready).first().waitFor();
    await page.waitForLoadState("networkidle").catch(() => {});
    const width = page.viewportSize()!.width;
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await page.screenshot({ path: join(DASHBOARD_DIR, "screenshots", `${name}-${dark ? "dark" : "light"}.png`), fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  }
});
