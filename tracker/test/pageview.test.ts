// Pageviews in real Chromium: the payload on load, UTM keys, history routing, hash routing, dedupe.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  RECORD_SENDS,
  fixturePage,
  launchBrowser,
  openPage,
  recordedBodies,
  startTestSite,
  type TestSite,
} from "./support/index.ts";

let browser: Browser;
let site: TestSite;

beforeAll(async () => {
  [browser, site] = await Promise.all([launchBrowser(), startTestSite()]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), site?.close()]);
});

/** Serves a tracked page at `path` with the given script attributes; returns its URL. */
const trackedPage = (path: string, attributes: Record<string, string>, body = ""): string =>
  site.page(path, fixturePage({ scriptSrc: `${site.origin}/js/svc.js`, attributes, body }));

/** Opens `url` (after `via`, a page whose link #go leads there, when given) and waits for the boot pageview. */
async function visit(url: string, via?: string) {
  const opened = await openPage(browser, [RECORD_SENDS]);
  if (via) {
    await opened.page.goto(via);
    await Promise.all([opened.page.waitForURL(url), opened.page.click("#go")]);
  } else {
    await opened.page.goto(url);
  }
  await opened.page.waitForFunction("window.svc");
  return opened;
}

const urls = async (page: Parameters<typeof recordedBodies>[0]): Promise<unknown[]> =>
  (await recordedBodies(page)).map((body) => body.u);

describe("pageview on load", () => {
  const cases = [
    {
      name: "data-domain set, arrived through a link",
      path: "/load/with-domain?q=1",
      attributes: { "data-domain": "load-a.test" } as Record<string, string>,
      viaPath: "/load/from-a",
      expected: (url: string, from: string) => ({ d: "load-a.test", u: url, r: from }),
    },
    {
      name: "no data-domain: the page hostname, direct visit: empty referrer",
      path: "/load/no-domain",
      attributes: {},
      viaPath: undefined,
      expected: (url: string) => ({ d: "127.0.0.1", u: url, r: "" }),
    },
  ];

  it.each(cases)("$name", async ({ path, attributes, viaPath, expected }) => {
    const url = trackedPage(path, attributes);
    const from = viaPath && site.page(viaPath, `<!doctype html><a id="go" href="${path}">go</a>`);
    const { page, pageErrors, close } = await visit(url, from);
    const width = await page.evaluate<number>("screen.width");
    const want = { ...expected(url, from ?? ""), n: "pageview", h: "127.0.0.1", w: width };

    const [arrived] = await site.waitForEvents((event) => event.body?.u === url);
    // Exact keys and values: no visitor id, no `p` without props, no utm_* without UTM parameters.
    expect(arrived!.body).toStrictEqual(want);
    expect(arrived!.path).toBe("/api/event");
    expect(arrived!.contentType).toMatch(/^text\/plain/);
    expect(arrived!.cookie).toBeUndefined();
    expect(await recordedBodies(page)).toStrictEqual([want]);
    expect(pageErrors).toEqual([]);
    await close();
  });
});

describe("utm_* keys", () => {
  const cases = [
    {
      query: "?utm_source=news&utm_medium=email&utm_campaign=spring&utm_term=shoes&utm_content=hero&ref=x",
      utm: { utm_source: "news", utm_medium: "email", utm_campaign: "spring", utm_term: "shoes", utm_content: "hero" },
    },
    { query: "?utm_source=chatgpt.com", utm: { utm_source: "chatgpt.com" } },
    { query: "?utm_medium=cpc&utm_campaign=a%20b+c", utm: { utm_medium: "cpc", utm_campaign: "a b c" } },
    { query: "?ref=x&source=y", utm: {} },
    { query: "", utm: {} },
  ];

  it.each(cases)("$query", async ({ query, utm }) => {
    const url = trackedPage(`/utm/page${query}`, { "data-domain": "utm.test" });
    const { close } = await visit(url);
    const [arrived] = await site.waitForEvents((event) => event.body?.u === url);
    const keys = Object.keys(arrived!.body!).sort();
    expect(keys).toStrictEqual(["d", "h", "n", "r", "u", "w", ...Object.keys(utm)].sort());
    expect(arrived!.body).toMatchObject(utm);
    await close();
  });
});

describe("history routing", () => {
  it("sends a pageview on pushState, replaceState and popstate, never twice for the same URL in a row", async () => {
    const url = trackedPage("/spa/home", { "data-domain": "spa.test" });
    const { page, pageErrors, close } = await visit(url);
    const at = (path: string) => `${site.origin}${path}`;
    const steps: { action: string; sent: string[] }[] = [
      { action: "history.pushState({}, '', '/spa/a')", sent: [at("/spa/a")] },
      { action: "history.pushState({}, '', '/spa/a')", sent: [] },
      { action: "history.replaceState({}, '', '/spa/a')", sent: [] },
      { action: "history.replaceState({ scroll: 10 }, '', location.href)", sent: [] },
      { action: "history.replaceState({}, '', '/spa/b?tab=2')", sent: [at("/spa/b?tab=2")] },
      // Without data-hash a fragment is not a page.
      { action: "history.pushState({}, '', '#section')", sent: [] },
      { action: "history.pushState({}, '', '/spa/c')", sent: [at("/spa/c")] },
    ];
    let expected: unknown[] = [url];
    for (const step of steps) {
      await page.evaluate(step.action);
      expected = [...expected, ...step.sent];
      expect(await urls(page), step.action).toStrictEqual(expected);
    }
    // popstate: back from /spa/c lands on /spa/b?tab=2#section, whose page is /spa/b?tab=2.
    await page.evaluate("new Promise((resolve) => { addEventListener('popstate', resolve, { once: true }); history.back(); })");
    expected = [...expected, at("/spa/b?tab=2")];
    expect(await urls(page)).toStrictEqual(expected);

    await site.waitForEvents((event) => event.body?.d === "spa.test", expected.length);
    expect(site.events.filter((event) => event.body?.d === "spa.test").map((event) => event.body?.u).sort()).toStrictEqual(
      [...expected].sort(),
    );
    expect(pageErrors).toEqual([]);
    await close();
  });

  it("keeps pushState and replaceState working for the page: state, return value, and its own errors", async () => {
    const url = trackedPage("/spa/contract", { "data-domain": "spa-contract.test" });
    const { page, pageErrors, close } = await visit(url);
    const result = await page.evaluate<unknown[]>(
      "[typeof history.pushState({ n: 1 }, '', '/spa/contract/x'), history.state, location.pathname]",
    );
    expect(result).toStrictEqual(["undefined", { n: 1 }, "/spa/contract/x"]);
    // A cross-origin URL is the page's own mistake: the browser's SecurityError still reaches it, nothing is sent.
    const thrown = await page.evaluate<string>(
      "(() => { try { history.replaceState({}, '', 'http://other.invalid/'); return 'no error'; } catch (e) { return e.name; } })()",
    );
    expect(thrown).toBe("SecurityError");
    expect(await urls(page)).toStrictEqual([url, `${site.origin}/spa/contract/x`]);
    expect(pageErrors).toEqual([]);
    await close();
  });
});

describe("hash routing", () => {
  const changeHash = (hash: string) =>
    `new Promise((resolve) => { addEventListener('hashchange', resolve, { once: true }); location.hash = '${hash}'; })`;

  const cases = [
    {
      name: 'off (no data-hash): the fragment is neither a page nor sent',
      attributes: { "data-domain": "hash-off.test" } as Record<string, string>,
      expected: (base: string) => [base],
    },
    {
      name: 'off (data-hash="false")',
      attributes: { "data-domain": "hash-false.test", "data-hash": "false" },
      expected: (base: string) => [base],
    },
    {
      name: 'on (data-hash="true"): every fragment is a page',
      attributes: { "data-domain": "hash-on.test", "data-hash": "true" },
      expected: (base: string) => [`${base}#/home`, `${base}#/about`, `${base}#/pricing`, `${base}#/home`],
    },
  ];

  it.each(cases)("$name", async ({ attributes, expected }) => {
    const base = trackedPage(`/hash/${attributes["data-domain"]}`, attributes);
    const { page, pageErrors, close } = await visit(`${base}#/home`);
    await page.evaluate(changeHash("#/about"));
    await page.evaluate(changeHash("#/pricing"));
    // Back fires popstate and hashchange for the same URL: still one pageview.
    await page.evaluate("new Promise((resolve) => { addEventListener('hashchange', resolve, { once: true }); history.go(-2); })");
    expect(await urls(page)).toStrictEqual(expected(base));
    await site.waitForEvents((event) => event.body?.d === attributes["data-domain"], expected(base).length);
    expect(pageErrors).toEqual([]);
    await close();
  });
});

describe("window.svc('pageview')", () => {
  it("sends a pageview on request, then automatic ones for that URL are skipped", async () => {
    const url = trackedPage("/manual/page", { "data-domain": "manual.test" });
    const { page, close } = await visit(url);
    await page.evaluate("window.svc('pageview', { section: 'pricing' })");
    await page.evaluate("history.replaceState({}, '', location.href)");
    expect(await recordedBodies(page)).toMatchObject([
      { n: "pageview", u: url },
      { n: "pageview", u: url, p: { section: "pricing" } },
    ]);
    expect((await recordedBodies(page)).length).toBe(2);
    await site.waitForEvents((event) => event.body?.d === "manual.test", 2);
    await close();
  });
});
