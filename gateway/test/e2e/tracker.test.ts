// End to end: real Chromium loads a page whose svc.js comes from the real gateway, and the events land
// in PostgreSQL with the actor the browser earns: headless Chromium is an ai_agent, the same browser
// with an ordinary UA arriving from ChatGPT is human_via_ai. No cookie, no storage.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTracker } from "../../../tracker/scripts/build.ts";
import { fixturePage, launchBrowser, openPage, startTestSite, type TestSite } from "../../../tracker/test/support/index.ts";
import { type Harness, UA, startHarness } from "../support/harness.ts";

describe("tracker → gateway → database", () => {
  let h: Harness;
  let browser: Browser;
  let site: TestSite;
  beforeAll(async () => {
    const build = await buildTracker();
    h = await startHarness({ sites: ["shop.example"], env: { SVC_TRACKER_PATH: build.path } });
    browser = await launchBrowser();
    site = await startTestSite();
  });
  afterAll(async () => {
    await site?.close();
    await browser?.close();
    await h?.close();
  });

  const page = (path: string) =>
    site.page(
      path,
      fixturePage({
        scriptSrc: `${h.base}/js/svc.js`,
        attributes: { "data-domain": "shop.example" },
        body: `<a id="out" href="https://elsewhere.example/x">out</a><button data-svc-event="Signup" data-svc-prop-plan="pro">go</button>`,
      }),
    );

  const rows = async (pagePath: string) =>
    (await h.pool.query("select name, page, actor, ai_name, rule, device, props, referrer_host from events where page = $1 order by ts, name", [pagePath])).rows;

  it("serves svc.js from the gateway with a 5-minute cache", async () => {
    const res = await fetch(`${h.base}/js/svc.js`, { headers: { "accept-encoding": "gzip" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect(res.headers.get("etag")).toBeTruthy();
    const again = await fetch(`${h.base}/js/svc.js`, { headers: { "if-none-match": res.headers.get("etag")! } });
    expect(again.status).toBe(304);
  });

  it("headless Chromium: pageview and a custom event stored as ai_agent / HeadlessChrome", async () => {
    const { page: tab, context, pageErrors, close } = await openPage(browser);
    await tab.goto(page("/headless"));
    await expect.poll(() => rows("/headless"), { timeout: 10_000 }).toHaveLength(1);
    await tab.click("button");
    await expect.poll(() => rows("/headless"), { timeout: 10_000 }).toHaveLength(2);
    const stored = await rows("/headless");
    expect(stored).toEqual([
      expect.objectContaining({ name: "Signup", actor: "ai_agent", ai_name: "HeadlessChrome", rule: "headless_marker", props: { plan: "pro" } }),
      expect.objectContaining({ name: "pageview", actor: "ai_agent", ai_name: "HeadlessChrome" }),
    ]);
    expect(await context.cookies()).toEqual([]);
    expect(pageErrors).toEqual([]);
    await close();
  });

  it("a browser UA arriving from ChatGPT: human_via_ai / ChatGPT, and an outbound click survives the navigation", async () => {
    const context = await browser.newContext({ userAgent: UA.chrome });
    const tab = await context.newPage();
    await tab.goto(page("/from-chatgpt"), { referer: "https://chatgpt.com/" });
    await expect.poll(() => rows("/from-chatgpt"), { timeout: 10_000 }).toHaveLength(1);
    await Promise.all([tab.waitForURL(/elsewhere\.example/).catch(() => undefined), tab.click("#out")]);
    await expect.poll(() => rows("/from-chatgpt"), { timeout: 10_000 }).toHaveLength(2);
    const stored = await rows("/from-chatgpt");
    expect(stored).toContainEqual(expect.objectContaining({ name: "pageview", actor: "human_via_ai", ai_name: "ChatGPT", rule: "assistant_referrer", referrer_host: "chatgpt.com", device: "desktop" }));
    expect(stored).toContainEqual(expect.objectContaining({ name: "Outbound Link", props: { url: "https://elsewhere.example/x" } }));
    expect(await context.cookies()).toEqual([]);
    await context.close();
  });

  it("a page URL longer than the gateway's 2,048-character limit is still counted, cut to the limit", async () => {
    // Another browser than the tests above: a new visitor, so this long URL is its visit's entry and its
    // utm_source is the visit's (the same browser would still be in the earlier visit).
    const context = await browser.newContext({ userAgent: UA.iphone });
    const tab = await context.newPage();
    const longQuery = `?utm_source=${"s".repeat(400)}&q=${"x".repeat(3000)}`;
    await tab.goto(page("/long") + longQuery);
    await expect.poll(() => rows("/long"), { timeout: 10_000 }).toHaveLength(1);
    const { rows: stored } = await h.pool.query("select utm_source from events where page = '/long'");
    expect(stored[0].utm_source).toHaveLength(256);
    await context.close();
  });
});
