// Clicks in real Chromium: Outbound Link, File Download, data-svc-event tags, every way to activate a link,
// and delivery when the click navigates the page away.
import type { Browser, Page } from "playwright-core";
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
/** A second origin (localhost, another port): the other host of outbound links. */
let other: TestSite;

beforeAll(async () => {
  [browser, site, other] = await Promise.all([launchBrowser(), startTestSite(), startTestSite({ hostname: "localhost" })]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), site?.close(), other?.close()]);
});

// The page's own handlers (bubble phase, after the tracker's capture-phase one) keep it on the page, so one
// page serves a whole table and the recorded sends prove what was NOT sent. (Chromium follows SVG links on
// DOMActivate, which a cancelled click does not stop.)
const STAY_ON_PAGE =
  "<script>for (const type of ['click', 'auxclick', 'DOMActivate']) document.addEventListener(type, (e) => e.preventDefault());</script>";

async function trackedPage(path: string, domain: string, body: string) {
  const url = site.page(path, fixturePage({ scriptSrc: `${site.origin}/js/svc.js`, attributes: { "data-domain": domain }, body }));
  const opened = await openPage(browser, [RECORD_SENDS]);
  await opened.page.goto(url);
  await opened.page.waitForFunction("window.svc");
  return opened;
}

/** The events (not pageviews) sent while `action` ran. */
async function eventsDuring(page: Page, action: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const before = (await recordedBodies(page)).length;
  await action();
  return (await recordedBodies(page)).slice(before).filter((body) => body.n !== "pageview");
}

describe("link detectors", () => {
  const longQuery = `?q=${"x".repeat(300)}`;
  const cases: { href: () => string; expected: { n: string; url: () => string } | null; note: string; attributes?: string }[] = [
    { note: "another host", href: () => `${other.origin}/elsewhere?x=1`, expected: { n: "Outbound Link", url: () => `${other.origin}/elsewhere?x=1` } },
    { note: "a public host", href: () => "https://example.org/", expected: { n: "Outbound Link", url: () => "https://example.org/" } },
    { note: "same host, relative", href: () => "/about", expected: null },
    { note: "same host, absolute", href: () => `${site.origin}/about`, expected: null },
    { note: "mailto", href: () => "mailto:hello@example.org", expected: null },
    { note: "tel", href: () => "tel:+15550100", expected: null },
    { note: "pdf", href: () => "/files/report.pdf", expected: { n: "File Download", url: () => `${site.origin}/files/report.pdf` } },
    { note: "PDF upper case", href: () => "/files/REPORT.PDF", expected: { n: "File Download", url: () => `${site.origin}/files/REPORT.PDF` } },
    { note: "zip with query and fragment", href: () => "/files/data.ZiP?v=2#top", expected: { n: "File Download", url: () => `${site.origin}/files/data.ZiP?v=2#top` } },
    { note: "csv", href: () => "/files/export.csv", expected: { n: "File Download", url: () => `${site.origin}/files/export.csv` } },
    { note: "xlsx", href: () => "/files/sheet.xlsx", expected: { n: "File Download", url: () => `${site.origin}/files/sheet.xlsx` } },
    { note: "docx", href: () => "/files/letter.docx", expected: { n: "File Download", url: () => `${site.origin}/files/letter.docx` } },
    { note: "png", href: () => "/files/logo.png", expected: { n: "File Download", url: () => `${site.origin}/files/logo.png` } },
    { note: "mp4", href: () => "/files/demo.mp4", expected: { n: "File Download", url: () => `${site.origin}/files/demo.mp4` } },
    { note: "download on another host is a download", href: () => `${other.origin}/files/brochure.pdf`, expected: { n: "File Download", url: () => `${other.origin}/files/brochure.pdf` } },
    { note: "extension not at the end of the path", href: () => "/files/report.pdf.html", expected: null },
    { note: "extension only in the query", href: () => "/files/view?file=a.pdf", expected: null },
    { note: "extension only in the fragment", href: () => "/files/page#a.pdf", expected: null },
    { note: "a directory named like a file", href: () => "/files/archive.zip/", expected: null },
    { note: "an untracked type", href: () => "/files/notes.txt", expected: null },
    { note: "the page stops propagation on the link", href: () => `${other.origin}/stopped`, attributes: 'onclick="event.stopPropagation(); event.preventDefault()"', expected: { n: "Outbound Link", url: () => `${other.origin}/stopped` } },
    { note: "a long outbound URL is cut to 256 characters", href: () => `${other.origin}/long${longQuery}`, expected: { n: "Outbound Link", url: () => `${other.origin}/long${longQuery}`.slice(0, 256) } },
  ];

  it("classifies every link on one page, with props {url}", async () => {
    const links = cases.map((c, i) => `<a id="link-${i}" href="${c.href()}" ${c.attributes ?? ""}><span>${c.note}</span></a>`).join("\n");
    const { page, pageErrors, close } = await trackedPage("/clicks/detectors", "detectors.test", STAY_ON_PAGE + links);
    for (const [i, c] of cases.entries()) {
      // Click the inner span: the link is found as the closest ancestor.
      const sent = await eventsDuring(page, () => page.click(`#link-${i} span`));
      const want = c.expected ? [expect.objectContaining({ n: c.expected.n, p: { url: c.expected.url() } })] : [];
      expect(sent, c.note).toEqual(want);
    }
    const expectedCount = cases.filter((c) => c.expected).length;
    await site.waitForEvents((event) => event.body?.d === "detectors.test" && event.body.n !== "pageview", expectedCount);
    expect(pageErrors).toEqual([]);
    await close();
  });
});

describe("ways to activate a link", () => {
  const cases: { how: string; act: (page: Page) => Promise<unknown>; counts: boolean }[] = [
    { how: "left click", act: (page) => page.click("#out"), counts: true },
    { how: "ctrl-click", act: (page) => page.click("#out", { modifiers: ["Control"] }), counts: true },
    { how: "cmd-click", act: (page) => page.click("#out", { modifiers: ["Meta"] }), counts: true },
    { how: "shift-click", act: (page) => page.click("#out", { modifiers: ["Shift"] }), counts: true },
    { how: "middle click (auxclick)", act: (page) => page.click("#out", { button: "middle" }), counts: true },
    { how: "Enter on the focused link", act: (page) => page.focus("#out").then(() => page.keyboard.press("Enter")), counts: true },
    { how: "right click (context menu)", act: (page) => page.click("#out", { button: "right" }), counts: false },
    { how: "Tab onto it, no activation", act: (page) => page.focus("#out"), counts: false },
  ];

  it.each(cases)("$how", async ({ act, counts }) => {
    const body = `${STAY_ON_PAGE}<a id="out" href="${other.origin}/partner">partner</a>`;
    const { page, pageErrors, close } = await trackedPage("/clicks/activation", "activation.test", body);
    const sent = await eventsDuring(page, () => act(page));
    expect(sent).toEqual(counts ? [expect.objectContaining({ n: "Outbound Link", p: { url: `${other.origin}/partner` } })] : []);
    expect(pageErrors).toEqual([]);
    await close();
  });
});

describe("data-svc-event", () => {
  const body = `${STAY_ON_PAGE}
    <button id="signup" data-svc-event="Signup" data-svc-prop-plan="pro" data-svc-prop-Source="hero"><span id="signup-label">Sign up</span></button>
    <a id="partner" href="OTHER/partner" data-svc-event="Partner click" data-svc-prop-name="acme">Acme</a>
    <div data-svc-event="Pricing section"><a id="in-tagged" href="/files/prices.pdf">prices</a></div>
    <div data-svc-event="Outer" data-svc-prop-level="1"><div data-svc-event="Inner" data-svc-prop-level="2"><button id="nested">x</button></div></div>
    <button id="plain">untagged</button>`;

  const cases: { note: string; act: (page: Page) => Promise<unknown>; expected: Record<string, unknown>[] }[] = [
    { note: "props from data-svc-prop-* (names lower-cased by HTML), click on a child", act: (page) => page.click("#signup-label"), expected: [{ n: "Signup", p: { plan: "pro", source: "hero" } }] },
    { note: "Enter on a tagged button", act: (page) => page.focus("#signup").then(() => page.keyboard.press("Enter")), expected: [{ n: "Signup", p: { plan: "pro", source: "hero" } }] },
    { note: "Space on a tagged button", act: (page) => page.focus("#signup").then(() => page.keyboard.press(" ")), expected: [{ n: "Signup", p: { plan: "pro", source: "hero" } }] },
    { note: "a tag on an outbound link wins over Outbound Link", act: (page) => page.click("#partner"), expected: [{ n: "Partner click", p: { name: "acme" } }] },
    { note: "a tagged ancestor wins over File Download; no props, no p", act: (page) => page.click("#in-tagged"), expected: [{ n: "Pricing section" }] },
    { note: "the closest tagged ancestor counts", act: (page) => page.click("#nested"), expected: [{ n: "Inner", p: { level: "2" } }] },
    { note: "middle click on a tagged link", act: (page) => page.click("#partner", { button: "middle" }), expected: [{ n: "Partner click", p: { name: "acme" } }] },
    { note: "an untagged button sends nothing", act: (page) => page.click("#plain"), expected: [] },
  ];

  it.each(cases)("$note", async ({ act, expected }) => {
    const { page, pageErrors, close } = await trackedPage("/clicks/tags", "tags.test", body.replace("OTHER", other.origin));
    const sent = await eventsDuring(page, () => act(page));
    expect(sent.map(({ n, p }) => (p === undefined ? { n } : { n, p }))).toStrictEqual(expected);
    expect(sent.every((event) => "p" in event === "p" in (expected[0] ?? {}))).toBe(true);
    expect(pageErrors).toEqual([]);
    await close();
  });
});

describe("navigating away right after the click", () => {
  const cases = [
    { n: "Outbound Link", href: () => `${other.origin}/gone-out`, domain: "away-out.test" },
    { n: "File Download", href: () => `/files/annual-report.pdf`, domain: "away-download.test" },
  ];

  it.each(cases)("$n still arrives", async ({ n, href, domain }) => {
    const target = new URL(href(), site.origin).href;
    const { page, close } = await trackedPage(`/clicks/away-${domain}`, domain, `<a id="go" href="${href()}">go</a>`);
    // No handler keeps the page: the click unloads it.
    await Promise.all([page.waitForURL(target), page.click("#go")]);
    const [arrived] = await site.waitForEvents((event) => event.body?.d === domain && event.body.n === n);
    expect(arrived!.body).toMatchObject({ n, p: { url: target } });
    expect(arrived!.contentType).toMatch(/^text\/plain/);
    await close();
  });
});

describe("clicks the detectors cannot read", () => {
  const cases: { note: string; act: string }[] = [
    // SVG links carry an SVGAnimatedString href, not a URL string: skipped rather than guessed.
    { note: "an SVG link", act: "document.querySelector('#svg-link text').dispatchEvent(new MouseEvent('click', { bubbles: true }))" },
    { note: "a synthetic click on the document itself (no closest())", act: "document.dispatchEvent(new MouseEvent('click', { bubbles: true }))" },
    { note: "a synthetic click on window", act: "window.dispatchEvent(new MouseEvent('click'))" },
  ];

  it.each(cases)("$note: nothing sent, nothing thrown", async ({ act }) => {
    const body = `${STAY_ON_PAGE}<svg width="100" height="20"><a id="svg-link" href="${other.origin}/svg"><text x="0" y="15">svg</text></a></svg>`;
    const { page, pageErrors, close } = await trackedPage("/clicks/unreadable", "unreadable.test", body);
    const sent = await eventsDuring(page, () => page.evaluate(act));
    expect(sent).toStrictEqual([]);
    expect(pageErrors).toEqual([]);
    await close();
  });
});
