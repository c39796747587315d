// window.svc, the early-call guard, the ignore flag, data-api and the script's own origin, the fetch
// fallback, and failures that must stay silent: all in real Chromium.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  RECORD_SENDS,
  REMOVE_SEND_BEACON,
  WATCH_STORAGE,
  fixturePage,
  launchBrowser,
  openPage,
  recordedBodies,
  recordedSends,
  startTestSite,
  storageProbe,
  unhandledRejections,
  type FixturePageOptions,
  type TestSite,
} from "./support/index.ts";

let browser: Browser;
let site: TestSite;
/** A second origin (localhost, another port): a proxy/ingest host, or where a vendored script lives. */
let other: TestSite;
/** An origin nobody listens on any more. */
let closedOrigin: string;

beforeAll(async () => {
  let closed: TestSite;
  [browser, site, other, closed] = await Promise.all([
    launchBrowser(),
    startTestSite(),
    startTestSite({ hostname: "localhost" }),
    startTestSite(),
  ]);
  closedOrigin = closed.origin;
  await closed.close();
});
afterAll(async () => {
  await Promise.all([browser?.close(), site?.close(), other?.close()]);
});

const scriptOn = (host: TestSite) => `${host.origin}/js/svc.js`;

async function visit(path: string, page: Omit<FixturePageOptions, "scriptSrc"> & { scriptSrc?: string }, initScripts = [RECORD_SENDS]) {
  const url = site.page(path, fixturePage({ scriptSrc: scriptOn(site), ...page }));
  const opened = await openPage(browser, initScripts);
  await opened.page.goto(url);
  // The deferred script has run once the document is loaded.
  await opened.page.waitForLoadState("domcontentloaded");
  return { ...opened, url };
}

describe("window.svc(name, props)", () => {
  const cases: { call: string; expected: Record<string, unknown> }[] = [
    { call: "window.svc('Signup', { plan: 'pro', seats: 3, trial: true })", expected: { n: "Signup", p: { plan: "pro", seats: 3, trial: true } } },
    { call: "window.svc('Signup')", expected: { n: "Signup" } },
    { call: "window.svc('Signup', {})", expected: { n: "Signup" } },
    { call: "window.svc('Signup', null)", expected: { n: "Signup" } },
  ];

  it.each(cases)("$call", async ({ call, expected }) => {
    const domain = `api-${cases.findIndex((c) => c.call === call)}.test`;
    const { page, url, pageErrors, close } = await visit(`/api/${domain}`, { attributes: { "data-domain": domain } });
    expect(await page.evaluate(`typeof (${call})`)).toBe("undefined");
    const [arrived] = await site.waitForEvents((event) => event.body?.d === domain && event.body.n === "Signup");
    const width = await page.evaluate<number>("screen.width");
    expect(arrived!.body).toStrictEqual({ d: domain, u: url, r: "", h: "127.0.0.1", w: width, ...expected });
    expect(pageErrors).toEqual([]);
    await close();
  });
});

describe("before boot", () => {
  it("is undefined, so a guarded early call is a no-op; a call from DOMContentLoaded works", async () => {
    const head = `<script>
      window.__typeBeforeBoot = typeof window.svc;
      try { window.svc?.('Too early'); window.__earlyCall = 'no error'; } catch (e) { window.__earlyCall = String(e); }
      document.addEventListener('DOMContentLoaded', () => window.svc('After DOMContentLoaded'));
    </script>`;
    const { page, pageErrors, close } = await visit("/early/guard", { attributes: { "data-domain": "early.test" }, head });
    await site.waitForEvents((event) => event.body?.d === "early.test" && event.body.n === "After DOMContentLoaded");
    expect(await page.evaluate("[window.__typeBeforeBoot, window.__earlyCall, typeof window.svc]")).toStrictEqual([
      "undefined",
      "no error",
      "function",
    ]);
    expect((await recordedBodies(page)).map((body) => body.n)).toStrictEqual(["pageview", "After DOMContentLoaded"]);
    expect(pageErrors).toEqual([]);
    await close();
  });
});

describe("localStorage.svc_ignore", () => {
  const STAY_ON_PAGE = "<script>document.addEventListener('click', (e) => e.preventDefault());</script>";

  /** Sets the flag (unless null) the way a visitor does, loads a tracked page, and exercises every trigger. */
  async function visitWithFlag(domain: string, flag: string | null) {
    const body = `${STAY_ON_PAGE}<a id="out" href="${other.origin}/x">x</a><button id="tagged" data-svc-event="Tagged">t</button>`;
    const url = site.page(`/ignore/${domain}`, fixturePage({ scriptSrc: scriptOn(site), attributes: { "data-domain": domain }, body }));
    const opened = await openPage(browser, [RECORD_SENDS, WATCH_STORAGE]);
    if (flag !== null) {
      // In the site's console; the tracker only ever reads it.
      await opened.page.goto(`${site.origin}/ignore/console`);
      await opened.page.evaluate(`localStorage.setItem('svc_ignore', ${JSON.stringify(flag)})`);
    }
    await opened.page.goto(url);
    await opened.page.waitForLoadState("domcontentloaded");
    await opened.page.evaluate("history.pushState({}, '', location.pathname + '/next')");
    await opened.page.evaluate("window.svc('Signup')");
    await opened.page.click("#out");
    await opened.page.click("#tagged");
    return opened;
  }

  it.each(["1", "true", "yes"])("set to %j: nothing is sent, window.svc is a no-op, the flag is read once", async (flag) => {
    const { page, pageErrors, close } = await visitWithFlag(`ignored-${flag}.test`, flag);
    expect(await recordedSends(page)).toStrictEqual([]);
    expect(await page.evaluate("typeof window.svc")).toBe("function");
    const probe = await storageProbe(page);
    expect(probe.reads).toStrictEqual({ localStorage: 1, sessionStorage: 0 });
    expect(probe.writes).toStrictEqual([]);
    expect(probe.initial.localStorage).toStrictEqual({ svc_ignore: flag });
    expect(pageErrors).toEqual([]);
    await close();
  });

  it("the same flow without the flag sends every event (the control for the cases above)", async () => {
    const { page, pageErrors, close } = await visitWithFlag("not-ignored.test", null);
    const expected = ["pageview", "pageview", "Signup", "Outbound Link", "Tagged"];
    expect((await recordedBodies(page)).map((body) => body.n)).toStrictEqual(expected);
    const arrived = await site.waitForEvents((event) => event.body?.d === "not-ignored.test", expected.length);
    expect(arrived.map((event) => event.body?.n).sort()).toStrictEqual([...expected].sort());
    expect((await storageProbe(page)).reads).toStrictEqual({ localStorage: 1, sessionStorage: 0 });
    expect(pageErrors).toEqual([]);
    await close();
  });

  it("blocked storage (a sandboxed frame, where reading localStorage throws) still tracks, silently", async () => {
    const frameUrl = site.page(
      "/ignore/sandboxed-frame",
      fixturePage({ scriptSrc: scriptOn(site), attributes: { "data-domain": "sandboxed.test" } }),
    );
    // The host page has no tracker itself: only the frame's runs.
    const hostUrl = site.page("/ignore/sandbox-host", `<!doctype html><iframe sandbox="allow-scripts" src="${frameUrl}"></iframe>`);
    const { page, pageErrors, close } = await openPage(browser, [RECORD_SENDS]);
    await page.goto(hostUrl);
    const frame = page.frames().find((f) => f.url() === frameUrl);
    await frame!.waitForFunction("window.svc");
    expect(await frame!.evaluate("(() => { try { localStorage; return 'readable'; } catch (e) { return e.name; } })()")).toBe(
      "SecurityError",
    );
    const [arrived] = await site.waitForEvents((event) => event.body?.d === "sandboxed.test");
    expect(arrived!.body).toMatchObject({ n: "pageview", u: frameUrl });
    expect(pageErrors).toEqual([]);
    await close();
  });
});

describe("where events go", () => {
  const cases = [
    {
      note: "default: the script's own origin (script on the other origin, page on this one)",
      script: () => scriptOn(other),
      attributes: {} as Record<string, string>,
      ingest: () => other,
      path: "/api/event",
    },
    {
      note: "data-api: another origin",
      script: () => scriptOn(site),
      attributes: { "data-api": "OTHER" } as Record<string, string>,
      ingest: () => other,
      path: "/api/event",
    },
    {
      note: "data-api: a proxy path on another origin",
      script: () => scriptOn(site),
      attributes: { "data-api": "OTHER/stats" } as Record<string, string>,
      ingest: () => other,
      path: "/stats/api/event",
    },
    {
      note: "data-api: the page's own origin, for a script served from elsewhere",
      script: () => scriptOn(other),
      attributes: { "data-api": "SITE" } as Record<string, string>,
      ingest: () => site,
      path: "/api/event",
    },
  ];

  it.each(cases)("$note", async ({ script, attributes, ingest, path }) => {
    const domain = `route-${cases.findIndex((c) => c.attributes === attributes)}.test`;
    const resolved = Object.fromEntries(
      Object.entries(attributes).map(([name, value]) => [name, value.replace("OTHER", other.origin).replace("SITE", site.origin)]),
    );
    const { page, url, pageErrors, close } = await visit(`/route/${domain}`, {
      scriptSrc: script(),
      attributes: { "data-domain": domain, ...resolved },
    });
    const [arrived] = await ingest().waitForEvents((event) => event.body?.d === domain);
    expect(arrived!.path).toBe(path);
    expect(arrived!.body).toMatchObject({ n: "pageview", u: url });
    // One send, to that endpoint only: the other server cannot have received it.
    expect((await recordedSends(page)).map((send) => send.url)).toStrictEqual([`${ingest().origin}${path}?d=${domain}`]);
    expect(pageErrors).toEqual([]);
    await close();
  });
});

describe("without navigator.sendBeacon", () => {
  it("falls back to a keepalive fetch, text/plain, that survives navigating away", async () => {
    const { page, url, pageErrors, close } = await visit(
      "/fallback/page",
      { attributes: { "data-domain": "fallback.test" }, body: `<a id="out" href="${other.origin}/fallback-away">x</a>` },
      [REMOVE_SEND_BEACON, RECORD_SENDS],
    );
    expect(await page.evaluate("typeof navigator.sendBeacon")).toBe("undefined");
    const [pageview] = await site.waitForEvents((event) => event.body?.d === "fallback.test");
    expect(pageview!.body).toMatchObject({ n: "pageview", u: url });
    expect(pageview!.contentType).toMatch(/^text\/plain/);
    expect((await recordedSends(page)).map((send) => send.via)).toStrictEqual(["fetch"]);
    expect(pageErrors).toEqual([]);

    await Promise.all([page.waitForURL(`${other.origin}/fallback-away`), page.click("#out")]);
    const [outbound] = await site.waitForEvents((event) => event.body?.d === "fallback.test" && event.body.n === "Outbound Link");
    expect(outbound!.body).toMatchObject({ p: { url: `${other.origin}/fallback-away` } });
    await close();
  });
});

describe("a 503 (nothing stored: a site moving between gateways)", () => {
  it("is sent again after its Retry-After, the same event, and arrives once; at most 3 retries", async () => {
    site.refuse("retry.test", 2);
    const { page, url, pageErrors, close } = await visit("/retry/page", { attributes: { "data-domain": "retry.test" } });
    const [pageview] = await site.waitForEvents((event) => event.d === "retry.test");
    expect(pageview!.body).toMatchObject({ d: "retry.test", n: "pageview", u: url });
    await page.waitForFunction("window.__svcSends.length === 3");
    expect((await recordedSends(page)).map((send) => send.body)).toStrictEqual(Array(3).fill(pageview!.raw));

    site.refuse("retry.test", 10);
    await page.evaluate("window.svc('Gone')");
    await page.waitForFunction("window.__svcSends.length === 7 && window.__svcSends.every((send) => send.settled !== 'pending')");
    await page.evaluate("new Promise((resolve) => setTimeout(resolve, 200))");
    expect((await recordedSends(page)).length).toBe(7);
    expect(site.events.filter((event) => event.d === "retry.test")).toHaveLength(1);
    expect(pageErrors).toEqual([]);
    await close();
  });
});

describe("failures stay silent", () => {
  const cases: { note: string; attributes: Record<string, string>; initScripts: string[]; call: string; via: string[] }[] = [
    {
      note: "ingest host down (the keepalive fetch rejects)",
      attributes: { "data-api": "CLOSED" },
      initScripts: [RECORD_SENDS],
      call: "window.svc('Down')",
      via: ["fetch", "fetch"],
    },
    {
      note: "an unparsable data-api (the fetch rejects)",
      attributes: { "data-api": "http://[not-a-host" },
      initScripts: [RECORD_SENDS],
      call: "window.svc('Bad api')",
      via: ["fetch", "fetch"],
    },
    {
      note: "circular props (JSON.stringify throws)",
      attributes: {},
      initScripts: [RECORD_SENDS],
      call: "(() => { const props = {}; props.self = props; return window.svc('Circular', props); })()",
      via: ["fetch"],
    },
    {
      note: "props over the 64 KB keepalive quota (the fetch rejects)",
      attributes: {},
      initScripts: [RECORD_SENDS],
      call: "window.svc('Huge', { blob: 'x'.repeat(70000) })",
      via: ["fetch", "fetch"],
    },
  ];

  it.each(cases)("$note", async ({ attributes, initScripts, call, via }) => {
    const resolved = Object.fromEntries(Object.entries(attributes).map(([name, value]) => [name, value.replace("CLOSED", closedOrigin)]));
    const { page, pageErrors, close } = await visit("/silent/page", { attributes: { "data-domain": "silent.test", ...resolved } }, initScripts);
    expect(await page.evaluate(`(() => { try { return typeof (${call}); } catch (e) { return 'threw ' + e; } })()`)).toBe("undefined");
    expect((await recordedSends(page)).map((send) => send.via)).toStrictEqual(via);
    // Wait until every fetch has ended, then give the page one more task for an unhandled rejection to surface.
    await page.waitForFunction("window.__svcSends.every((send) => send.settled !== 'pending')");
    await page.evaluate("new Promise((resolve) => setTimeout(resolve, 0))");
    expect(await unhandledRejections(page)).toStrictEqual([]);
    expect(pageErrors).toEqual([]);
    await close();
  });

  it("loaded as a module (no document.currentScript): the page is left untracked, without an error", async () => {
    const { page, pageErrors, close } = await visit("/silent/module", { attributes: { type: "module", "data-domain": "module.test" } });
    await page.waitForLoadState("load");
    expect(await page.evaluate("typeof window.svc")).toBe("undefined");
    expect(await recordedSends(page)).toStrictEqual([]);
    expect(pageErrors).toEqual([]);
    await close();
  });
});
