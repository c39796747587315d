// Every page in light, dark and at 375 px: no serious or critical axe-core violations, nothing wider than
// the phone, and a screenshot of each under dashboard/screenshots/ (git-ignored) to look at by eye.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SITE_VIEW_JS_BUDGET_BYTES, pageJsWeight } from "../scripts/js-weight.ts";
import { DASHBOARD_DIR } from "../scripts/launch.ts";
import { bearer, call, createApiKey, loginAsAdmin } from "../../gateway/test/support/auth.ts";
import { seriousViolations } from "./support/axe.ts";
import { MOBILE, type Stack, UA, startStack } from "./support/stack.ts";
import { crawlerHit, pageview, visitorUa } from "./support/traffic.ts";

const DOMAIN = "quality.example";
const SHOTS = join(DASHBOARD_DIR, "screenshots");
const PAGES = [
  { name: "login", path: "/app/login", signedIn: false, ready: "form" },
  { name: "sites", path: "/app", signedIn: true, ready: `[data-testid="today-${DOMAIN}"]` },
  { name: "site", path: `/app/sites/${DOMAIN}?period=7d`, signedIn: true, ready: '[data-testid="ai-panel"] table' },
  { name: "site-24h", path: `/app/sites/${DOMAIN}?period=24h`, signedIn: true, ready: '[data-testid="ai-panel"] table' },
  { name: "site-crawlers", path: `/app/sites/${DOMAIN}?actor=ai_crawler`, signedIn: true, ready: '[data-testid="breakdown-page"] table' },
  { name: "breakdown-dialog", path: `/app/sites/${DOMAIN}?open=page`, signedIn: true, ready: '[data-testid="breakdown-dialog"] table' },
  // A filtered view, and its full list of a query-only tab (entry pages, paged through POST /api/v2/query).
  { name: "site-filtered", path: `/app/sites/${DOMAIN}?f=source~is~Hacker%20News`, signedIn: true, ready: '[data-testid="breakdown-page"] table' },
  { name: "filtered-dialog", path: `/app/sites/${DOMAIN}?f=source~is~Hacker%20News&open=entry`, signedIn: true, ready: '[data-testid="breakdown-dialog"] table' },
  // A shared link with a fixed filter (made in beforeAll): the explorer's layout, read-only.
  { name: "shared-filtered", path: "/share/{token}", signedIn: false, ready: '[data-testid="breakdown-page"] table' },
  { name: "settings", path: "/app/settings", signedIn: true, ready: '[data-testid="llm"] select' },
] as const;
const VARIANTS = [
  { name: "light", dark: false, mobile: false },
  { name: "dark", dark: true, mobile: false },
  { name: "375", dark: false, mobile: true },
] as const;

let stack: Stack;
let sharedToken = "";
let signedIn: Awaited<ReturnType<import("playwright-core").BrowserContext["storageState"]>>;
beforeAll(async () => {
  stack = await startStack({ sites: [DOMAIN] });
  const paths = ["/", "/pricing", "/blog/a-rather-long-article-title-that-wraps-on-small-screens", "/docs"];
  for (let n = 0; n < 12; n++) await pageview(stack.gateway.base, DOMAIN, paths[n % paths.length]!, visitorUa(n), n % 3 === 0 ? { r: "https://chatgpt.com/" } : { r: "https://news.ycombinator.com/" });
  await pageview(stack.gateway.base, DOMAIN, "/pricing", UA.iphone, { n: "Signup" });
  for (const path of ["/docs", "/blog/b", "/blog/b"]) await crawlerHit(stack.gateway.base, DOMAIN, path);
  await crawlerHit(stack.gateway.base, DOMAIN, "/docs", UA.claudebot);
  const { page, context } = await stack.open();
  await stack.signIn(page);
  signedIn = await context.storageState();
  await context.close();
  const admin = bearer(await createApiKey(stack.gateway.base, (await loginAsAdmin(stack.gateway.base)).token, "quality share", "admin"));
  const link = await call(stack.gateway.base, "POST", `/api/sites/${DOMAIN}/shares`, { body: { filters: [["is", "visit:source", ["Hacker News"]]] }, headers: admin });
  expect(link.status, JSON.stringify(link.json)).toBe(201);
  sharedToken = link.json.token;
});
afterAll(() => stack?.close());

describe.each(VARIANTS)("$name", (variant) => {
  it.each(PAGES)("$name: no serious or critical axe violation, fits the viewport, screenshot saved", async (p) => {
    const { page, context, errors } = await stack.open({ dark: variant.dark, mobile: variant.mobile, bypassCSP: true, ...(p.signedIn ? { storageState: signedIn } : {}) });
    await page.goto(p.path.replace("{token}", sharedToken));
    await page.locator(p.ready).first().waitFor();
    await page.waitForLoadState("networkidle").catch(() => {});
    expect(await seriousViolations(page)).toEqual([]);
    if (variant.mobile) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
    await page.screenshot({ path: join(SHOTS, `${p.name}-${variant.name}.png`), fullPage: true });
    // On a phone, also what fits the first screen, at full resolution.
    if (variant.mobile) await page.screenshot({ path: join(SHOTS, `${p.name}-${variant.name}-top.png`) });
    expect(errors).toEqual([]);
    await context.close();
  });
});

it("the site view loads at most 100 KB of JavaScript, gzipped", async () => {
  const { page, context } = await stack.open({ storageState: signedIn });
  await page.goto(`/app/sites/${DOMAIN}`);
  await page.locator('[data-testid="ai-panel"] table').first().waitFor();
  const weight = await pageJsWeight(page);
  expect(weight.files).toBeGreaterThan(3);
  expect(weight.gzipBytes).toBeLessThanOrEqual(SITE_VIEW_JS_BUDGET_BYTES);
  await context.close();
});

it("the toggle switches themes and the choice survives a reload", async () => {
  const { page, context } = await stack.open();
  await page.goto("/app/login");
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const light = await background();
  await page.getByTestId("theme-toggle").click();
  expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
  expect(await background()).not.toBe(light);
  await page.reload();
  await page.getByTestId("theme-toggle").waitFor();
  await expect.poll(background).not.toBe(light);
  await context.close();
});
