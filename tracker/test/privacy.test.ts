// The privacy invariants over a whole session in real Chromium: no cookie, storage unchanged and read once,
// nothing but the spec's keys in any body. And the same facts about the shipped bytes.
import { readFile } from "node:fs/promises";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRACKER_BUNDLE } from "../scripts/build.ts";
import {
  RECORD_SENDS,
  WATCH_STORAGE,
  fixturePage,
  launchBrowser,
  openPage,
  recordedBodies,
  startTestSite,
  storageNow,
  storageProbe,
  type TestSite,
} from "./support/index.ts";

let browser: Browser;
let site: TestSite;
let other: TestSite;

beforeAll(async () => {
  [browser, site, other] = await Promise.all([launchBrowser(), startTestSite(), startTestSite({ hostname: "localhost" })]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), site?.close(), other?.close()]);
});

const SPEC_KEYS = new Set(["d", "n", "u", "r", "h", "w", "p"]);

describe("a full session", () => {
  it("sets no cookie, leaves both storages as they were, reads localStorage once, sends only spec keys", async () => {
    const domain = "session.test";
    const body = `<script>document.addEventListener('click', (e) => e.preventDefault());</script>
      <a id="out" href="${other.origin}/partner">partner</a>
      <a id="download" href="/files/price-list.pdf">prices</a>
      <button id="tagged" data-svc-event="Signup" data-svc-prop-plan="pro">sign up</button>`;
    const url = site.page(
      "/session/start?utm_source=newsletter&utm_campaign=spring",
      fixturePage({ scriptSrc: `${site.origin}/js/svc.js`, attributes: { "data-domain": domain, "data-hash": "true" }, body }),
    );
    const { context, page, pageErrors, close } = await openPage(browser, [RECORD_SENDS, WATCH_STORAGE]);
    // The site's own storage, set before the tracker ever runs; it must come out of the session untouched.
    await page.goto(`${site.origin}/session/seed`);
    await page.evaluate("localStorage.setItem('theme', 'dark'); sessionStorage.setItem('cart', '3')");

    await page.goto(url);
    await page.waitForFunction("window.svc");
    await page.evaluate("history.pushState({}, '', '/session/pricing')");
    await page.evaluate("history.replaceState({}, '', '/session/pricing?tab=yearly')");
    await page.evaluate("new Promise((resolve) => { addEventListener('hashchange', resolve, { once: true }); location.hash = '#faq'; })");
    await page.click("#out");
    await page.click("#out", { button: "middle" });
    await page.click("#download");
    await page.click("#tagged");
    await page.evaluate("window.svc('Checkout', { step: 2 })");
    await page.evaluate("new Promise((resolve) => { addEventListener('popstate', resolve, { once: true }); history.back(); })");

    const sent = await recordedBodies(page);
    expect(sent.map((b) => b.n)).toStrictEqual([
      "pageview", "pageview", "pageview", "pageview", "Outbound Link", "Outbound Link", "File Download", "Signup", "Checkout", "pageview",
    ]);
    for (const b of sent) {
      expect(Object.keys(b).filter((key) => !SPEC_KEYS.has(key) && !key.startsWith("utm_")), JSON.stringify(b)).toStrictEqual([]);
    }
    const arrived = await site.waitForEvents((event) => event.body?.d === domain, sent.length);
    expect(arrived.every((event) => event.cookie === undefined)).toBe(true);

    expect(await page.evaluate("document.cookie")).toBe("");
    expect(await context.cookies()).toStrictEqual([]);
    const probe = await storageProbe(page);
    expect(probe.writes).toStrictEqual([]);
    expect(probe.reads).toStrictEqual({ localStorage: 1, sessionStorage: 0 });
    const expectedStorage = { localStorage: { theme: "dark" }, sessionStorage: { cart: "3" } };
    expect(probe.initial).toStrictEqual(expectedStorage);
    expect(await storageNow(page)).toStrictEqual(expectedStorage);
    expect(pageErrors).toEqual([]);
    await close();
  });
});

describe("the shipped bytes", () => {
  it("touch no cookie, sessionStorage, IndexedDB or storage write, and name localStorage once", async () => {
    const code = await readFile(TRACKER_BUNDLE, "utf8");
    for (const api of ["cookie", "sessionStorage", "indexedDB", "setItem", "removeItem", "caches", "openDatabase"]) {
      expect(code, api).not.toContain(api);
    }
    expect(code.split("localStorage").length - 1).toBe(1);
  });
});
