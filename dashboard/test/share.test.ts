// Shared links in real Chromium, in front of a real gateway on real PostgreSQL: a password-protected link
// shows live numbers to a signed-out browser (and refuses a wrong password); the embed renders inside a page
// of another local origin only where the link allows that origin; the counter widget (≤ 5 KB) ticks within
// 1 s of an event. Screenshots of the shared view, the embed and the counter go to dashboard/screenshots/.
import { mkdirSync } from "node:fs";
import { type Server, createServer } from "node:http";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, call, createApiKey, loginAsAdmin } from "../../gateway/test/support/auth.ts";
import { DASHBOARD_DIR } from "../scripts/launch.ts";
import { shownAt, watchNumbers } from "./support/shown-at.ts";
import { type Stack, startStack } from "./support/stack.ts";
import { apiJson, crawlerHit, pageview, visitorUa } from "./support/traffic.ts";

const DOMAIN = "shared.example";
const SHOTS = join(DASHBOARD_DIR, "screenshots");
let stack: Stack;
let admin: Record<string, string>;
let visitor = 100;

/** A page on its own local origin (another port) that frames `src`: the site embedding the view or counter. */
interface Host {
  readonly origin: string;
  /** A page framing `src`; `dark` gives the page a dark scheme, as a dark site embedding a dark theme would. */
  frame(src: string, height?: number, dark?: boolean): string;
  close(): Promise<void>;
}
async function startHost(): Promise<Host> {
  const pages = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const body = pages.get(req.url ?? "");
    res.writeHead(body ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    res.end(body ?? "not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    origin,
    frame(src, height = 900, dark = false) {
      const path = `/page-${pages.size}`;
      pages.set(path, `<!doctype html><html style="color-scheme:${dark ? "dark" : "light"}"><body style="margin:0;font-family:sans-serif;background:${dark ? "#1b1d2a;color:#e8eaef" : "#eef"}"><h1 style="font-size:16px;margin:8px">A blog post on ${origin}</h1><iframe id="embed" src="${src}" style="width:100%;height:${height}px;border:0"></iframe></body></html>`);
      return `${origin}${path}`;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function share(body: Record<string, unknown>): Promise<{ id: number; token: string }> {
  const reply = await call(stack.gateway.base, "POST", `/api/sites/${DOMAIN}/shares`, { body, headers: admin });
  expect(reply.status, JSON.stringify(reply.json)).toBe(201);
  return reply.json;
}
const newVisitor = (path = "/") => pageview(stack.gateway.base, DOMAIN, path, visitorUa(visitor++));
const number = (text: string | null) => Number((text ?? "").replaceAll(",", ""));

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  stack = await startStack({ sites: [DOMAIN] });
  const { token } = await loginAsAdmin(stack.gateway.base);
  admin = bearer(await createApiKey(stack.gateway.base, token, "share admin", "admin"));
  for (const path of ["/", "/pricing", "/blog/live-numbers"]) await newVisitor(path);
});
afterAll(async () => {
  await stack?.close();
});

describe("a shared link with a password", () => {
  let page: Page;
  let token: string;

  it("refuses a wrong password to a signed-out browser, then shows the numbers for the right one", async () => {
    ({ token } = await share({ password: "correct horse battery" }));
    let errors: Error[];
    ({ page, errors } = await stack.open());
    expect(await page.context().cookies()).toEqual([]);
    await page.goto(`/share/${token}?period=today`);
    await page.getByTestId("share-password").waitFor();
    expect(await page.locator("[data-metric]").count()).toBe(0);
    await page.getByLabel("Password").fill("wrong horse battery");
    await page.getByRole("button", { name: "View" }).click();
    await expect.poll(() => page.getByTestId("share-password-error").textContent()).toBe("wrong password");
    expect(await page.locator('[data-metric="visitors"]').count()).toBe(0);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "View" }).click();
    await page.locator('[data-metric="visitors"]').waitFor();
    const api = await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/stats?days=1&actor=human`);
    await expect.poll(() => page.locator('[data-metric="visitors"]').textContent()).toBe(String(api.current.visitors));
    // Read-only: no goal form, no delete, no insights, no settings.
    await page.getByTestId("goals").waitFor();
    expect(await page.getByRole("button", { name: "Add goal" }).count()).toBe(0);
    expect(await page.getByText("Settings").count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it("ticks live: a new visitor shows within 1 s of its 202", async () => {
    await expect.poll(() => page.getByTestId("live-indicator").getAttribute("data-status")).toBe("live");
    const before = number(await page.locator('[data-metric="visitors"]').textContent());
    const liveBefore = number(await page.locator('[data-metric="live-visitors"]').textContent());
    await watchNumbers(page, [['[data-metric="visitors"]', before + 1], ['[data-metric="live-visitors"]', liveBefore + 1]]);
    await newVisitor("/live");
    const acked = Date.now();
    expect((await shownAt(page)) - acked).toBeLessThan(1000);
    await page.screenshot({ path: join(SHOTS, "share-view.png"), fullPage: true });
  });
});

describe("a shared link with fixed filters", () => {
  it("shows the segment's numbers, AI panel and visitors now (those of /api/v2/query with the filters), refreshed on a live tick", async () => {
    const filters = [["is", "event:page", ["/pricing"]]];
    // AI traffic in and out of the segment: crawler hits on both pages, an assistant's visitor on /pricing.
    for (const path of ["/pricing", "/pricing", "/"]) await crawlerHit(stack.gateway.base, DOMAIN, path);
    await pageview(stack.gateway.base, DOMAIN, "/pricing", visitorUa(visitor++), { r: "https://chatgpt.com/" });
    const { token } = await share({ filters });
    const ask = async (body: Record<string, unknown>) => {
      const reply = await call(stack.gateway.base, "POST", "/api/v2/query", { body: { site_id: DOMAIN, metrics: ["visitors"], ...body, filters: [...filters, ...((body.filters as unknown[]) ?? [])] }, headers: admin });
      expect(reply.status, JSON.stringify(reply.json)).toBe(200);
      return (reply.json.results[0]?.metrics[0] ?? 0) as number;
    };
    const segment = () => ask({ date_range: "day" });
    // People with a /pricing row in the last 5 minutes (the gateway's clock is the machine's here).
    const segmentNow = () => ask({ date_range: [new Date(Date.now() - 300_000).toISOString(), new Date().toISOString()], filters: [["is", "visit:actor", ["human", "human_via_ai"]]] });
    const { page, errors } = await stack.open();
    await page.goto(`/share/${token}?period=today`);
    await page.getByTestId("share-filters").waitFor();
    const visitors = page.locator('[data-metric="visitors"]');
    await expect.poll(() => visitors.textContent()).toBe(String(await segment()));
    // Every page's visitors are more than the segment's: the view is not the whole site.
    const all = await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/stats?days=1&actor=human`);
    expect(all.current.visitors).toBeGreaterThan(await segment());
    // The explorer's layout, read-only: the link's filter in words — no chip to remove it —, the viewer's own
    // filter bar without saved segments, no owner controls; the per-visit tiles and the query-only tabs are the
    // query API's for the link's filters.
    expect(await page.getByTestId("share-filters").textContent()).toContain("Page is /pricing");
    expect(await page.getByTestId("filter-bar").locator(".chip").count()).toBe(0);
    expect(await page.getByTestId("segment-pick").count()).toBe(0);
    expect(await page.getByTestId("site-settings").count()).toBe(0);
    const perVisit = await call(stack.gateway.base, "POST", "/api/v2/query", { body: { site_id: DOMAIN, date_range: "day", metrics: ["visits", "bounce_rate"], filters }, headers: admin });
    await expect.poll(() => page.locator('[data-metric="visits"]').getAttribute("data-value")).toBe(String(perVisit.json.results[0].metrics[0]));
    expect(await page.locator('[data-metric="bounce_rate"]').getAttribute("data-value")).toBe(String(perVisit.json.results[0].metrics[1]));
    await expect.poll(async () => {
      if (!(await page.getByTestId("breakdown-entry").count())) await page.locator('[data-tab="entry"]').click();
      return page.getByTestId("breakdown-entry").count();
    }).toBe(1);
    const entries = await call(stack.gateway.base, "POST", "/api/v2/query", { body: { site_id: DOMAIN, date_range: "day", metrics: ["visitors"], dimensions: ["visit:entry_page"], filters }, headers: admin });
    await expect.poll(() => page.getByTestId("breakdown-entry").locator("[data-value]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-value")).sort()))
      .toEqual(entries.json.results.map((r: { dimensions: string[] }) => r.dimensions[0]).sort());
    await page.locator('[data-tab="page"]').click();
    // The page card lists the filtered page only.
    await expect.poll(() => page.getByTestId("breakdown-page").locator("[data-value]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-value")))).toEqual(["/pricing"]);
    // The AI panel counts the segment: two of the three crawler hits, the assistant's one visitor; no status classes.
    const ai = page.getByTestId("ai-panel");
    await expect.poll(() => ai.getByTestId("ai-crawler-hits").textContent()).toBe(String(await ask({ date_range: "day", metrics: ["hits"], filters: [["is", "visit:actor", ["ai_crawler"]]] })));
    expect(await ai.getByTestId("ai-crawler-hits").textContent()).toBe("2");
    expect(await ai.getByTestId("ai-assistant-visitors").textContent()).toBe(String(await ask({ date_range: "day", filters: [["is", "visit:actor", ["human_via_ai"]]] })));
    await ai.getByTestId("ai-status-unknown").waitFor();
    expect(await ai.locator('[data-testid="crawl-to-referral"] tbody tr').count()).toBe(1);
    // Visitors now: the segment's people of the last 5 minutes, in the view and in the link's counter widget.
    const liveNow = page.locator('[data-metric="live-visitors"]');
    await expect.poll(() => liveNow.textContent()).toBe(String(await segmentNow()));
    const widget = await page.context().newPage();
    await widget.goto(`/share/${token}/counter`);
    const counter = widget.getByTestId("counter");
    await expect.poll(() => counter.textContent()).toBe(String(await segmentNow()));
    // A visitor outside the segment, then one inside: the tick refetches (at most every 5 s) and only the second counts.
    const before = number(await visitors.textContent());
    const nowBefore = number(await liveNow.textContent());
    await newVisitor("/elsewhere");
    await newVisitor("/pricing");
    await expect.poll(() => visitors.textContent(), { timeout: 8000 }).toBe(String(before + 1));
    await expect.poll(() => liveNow.textContent(), { timeout: 5000 }).toBe(String(nowBefore + 1));
    await expect.poll(() => counter.textContent(), { timeout: 5000 }).toBe(String(nowBefore + 1));
    expect(await segment()).toBe(before + 1);
    expect(await segmentNow()).toBe(nowBefore + 1);
    expect(await page.getByTestId("breakdown-page").locator("[data-value]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-value")))).toEqual(["/pricing"]);
    await page.screenshot({ path: join(SHOTS, "share-view-filtered.png"), fullPage: true });
    expect(errors).toEqual([]);
  });
});

describe("the embed", () => {
  let allowed: Host;
  let other: Host;
  let token: string;
  beforeAll(async () => {
    allowed = await startHost();
    other = await startHost();
    ({ token } = await share({ frame_origins: [allowed.origin], actor: "human" }));
  });
  afterAll(async () => {
    await allowed?.close();
    await other?.close();
  });

  it("renders in a page of an allowed origin, in the theme asked, without the page's chrome", async () => {
    const { page } = await stack.open();
    await page.goto(allowed.frame(`${stack.dashboard.base}/share/${token}?embed=true&theme=dark&period=today`));
    const frame = page.frameLocator("#embed");
    await frame.locator('[data-metric="visitors"]').waitFor({ timeout: 10_000 });
    expect(await frame.locator("h1").count()).toBe(0);
    expect(await frame.locator('[aria-label="Actor"]').count()).toBe(0);
    expect(await frame.locator("html").getAttribute("data-theme")).toBe("dark");
    await page.screenshot({ path: join(SHOTS, "share-embed-dark.png"), fullPage: true });
  });

  it("is refused in a page of any other origin (frame-ancestors), and without embed=true", async () => {
    const { page } = await stack.open();
    const refusals: string[] = [];
    page.on("console", (m) => refusals.push(m.text()));
    await page.goto(other.frame(`${stack.dashboard.base}/share/${token}?embed=true`));
    await expect.poll(() => refusals.some((m) => m.includes("frame-ancestors")), { timeout: 5000 }).toBe(true);
    expect(await page.frameLocator("#embed").locator('[data-testid="shared-view"]').count()).toBe(0);
    // The allowed origin, but the page without embed=true: 'none' as everywhere else.
    const { page: second } = await stack.open();
    const refused: string[] = [];
    second.on("console", (m) => refused.push(m.text()));
    await second.goto(allowed.frame(`${stack.dashboard.base}/share/${token}`));
    await expect.poll(() => refused.some((m) => m.includes("frame-ancestors")), { timeout: 5000 }).toBe(true);
    for (const path of [`/share/${token}`, "/app/login", `/share/${token}?embed=true&x=1`.replace(token, "A".repeat(43))]) {
      const res = await fetch(stack.dashboard.base + path);
      expect(res.headers.get("content-security-policy"), path).toContain("frame-ancestors 'none'");
    }
    const embedded = await fetch(`${stack.dashboard.base}/share/${token}?embed=true`);
    expect(embedded.headers.get("content-security-policy")).toContain(`frame-ancestors ${allowed.origin}`);
  });
});

describe("the live counter", () => {
  it("is under 5 KB, framed only where allowed, and ticks within 1 s of an event", async () => {
    const host = await startHost();
    const { token } = await share({ frame_origins: [host.origin] });
    const res = await fetch(`${stack.dashboard.base}/share/${token}/counter`);
    const html = await res.text();
    expect(Buffer.byteLength(html)).toBeLessThanOrEqual(5 * 1024);
    expect(res.headers.get("content-security-policy")).toContain(`frame-ancestors ${host.origin}`);
    expect((await fetch(`${stack.dashboard.base}/share/${"A".repeat(43)}/counter`)).status).toBe(404);

    const { page, errors } = await stack.open();
    await page.goto(host.frame(`${stack.dashboard.base}/share/${token}/counter?theme=light`, 60));
    const counter = page.frameLocator("#embed").getByTestId("counter");
    await expect.poll(async () => /^\d+$/.test((await counter.textContent()) ?? ""), { timeout: 5000 }).toBe(true);
    const before = number(await counter.textContent());
    const frame = page.frames().find((f) => f.url().endsWith("/counter?theme=light"))!;
    await watchNumbers(frame, [["#n", before + 1]]);
    await newVisitor("/counted");
    const acked = Date.now();
    expect((await shownAt(frame)) - acked).toBeLessThan(1000);
    expect(errors).toEqual([]);
    await page.screenshot({ path: join(SHOTS, "share-counter.png"), clip: { x: 0, y: 0, width: 420, height: 110 } });
    await host.close();
  });
});

describe("screenshots to look at", () => {
  it("the shared view, the embed and the counter, light and dark, at 1280 and 375 px, nothing wider than the window", async () => {
    const host = await startHost();
    const { token } = await share({ frame_origins: [host.origin] });
    try {
      for (const dark of [false, true]) {
        for (const mobile of [false, true]) {
          const name = `${dark ? "dark" : "light"}-${mobile ? 375 : 1280}`;
          const { page, context, errors } = await stack.open({ dark, mobile });
          const width = page.viewportSize()!.width;
          await page.goto(`/share/${token}?period=today&actor=all`);
          await page.getByTestId("ai-panel").waitFor();
          await page.locator('[data-testid="breakdown-page"] tbody tr').first().waitFor();
          await page.locator('[data-metric="visitors"]').waitFor();
          await expect.poll(() => page.getByTestId("live-indicator").getAttribute("data-status")).toBe("live");
          expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
          await page.screenshot({ path: join(SHOTS, `share-view-${name}.png`), fullPage: true });

          const theme = dark ? "dark" : "light";
          await page.goto(host.frame(`${stack.dashboard.base}/share/${token}?embed=true&theme=${theme}&period=today`, 1400, dark));
          await page.frameLocator("#embed").locator('[data-testid="breakdown-page"] tbody tr').first().waitFor({ timeout: 10_000 });
          await page.frameLocator("#embed").locator('[data-metric="visitors"]').waitFor();
          expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
          await page.screenshot({ path: join(SHOTS, `share-embed-${name}.png`), fullPage: true });

          await page.goto(host.frame(`${stack.dashboard.base}/share/${token}/counter?theme=${theme}`, 60, dark));
          await expect.poll(async () => /^\d+$/.test((await page.frameLocator("#embed").getByTestId("counter").textContent()) ?? ""), { timeout: 5000 }).toBe(true);
          await page.screenshot({ path: join(SHOTS, `share-counter-${name}.png`), clip: { x: 0, y: 0, width: Math.min(width, 420), height: 110 } });
          expect(errors).toEqual([]);
          await context.close();
        }
      }
    } finally {
      await host.close();
    }
  });
});
