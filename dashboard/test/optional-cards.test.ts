// Insights and anomalies: against a gateway without those routes (404, as before they existed) their cards are
// hidden; when the routes answer, the cards show what they say, as text, and survive missing or odd fields.
// The "gateway" here is the real one behind a small pass-through that answers those two routes itself.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DASHBOARD_DIR, type DashboardServer, startDashboard } from "../scripts/launch.ts";
import { type Stack, startStack } from "./support/stack.ts";
import { pageview } from "./support/traffic.ts";

const DOMAIN = "cards.example";
let stack: Stack;
let front: Server;
let dashboard: DashboardServer;
let serveOptional = false;
const posted: string[] = [];

const INSIGHTS = {
  status: "ok",
  reason: null,
  provider: "local",
  model: "llama3.2",
  generated_at: "2026-11-23T10:00:00.000Z",
  findings: ["Visits from ChatGPT doubled <img src=x onerror=window.__pwned=1>", 42, null],
  input: {},
  error: null,
};
const ANOMALIES = {
  flags: [
    { kind: "spike", subject: "/pricing\u202E", window: { start: "2026-11-23T09:00:00Z", end: "2026-11-23T10:00:00Z" }, observed: { value: 120, basis: "observed" }, expected: { value: 30.456, basis: "inferred" }, score: { value: 4.2, basis: "inferred" }, severity: "high" },
    { kind: "drop" },
    null,
  ],
};

// A busy week: seven pages crawled but never referred, two crawler spikes, a drop in human visitors.
const flag = (kind: string, subject: string, observed: number, expected: number, severity: string, start = "2026-11-23T09:00:00Z", end = "2026-11-23T10:00:00Z") => ({
  kind, subject, window: { start, end }, observed: { value: observed, basis: "observed" }, expected: { value: expected, basis: "inferred" }, score: { value: 7.5, basis: "inferred" }, severity,
});
const MANY_FLAGS = {
  flags: [
    ...["/docs/a", "/docs/b", "/blog/c", "/blog/d", "/pricing/e", "/f", "/g"].map((page, i) => flag("crawled_never_referred", page, 40 - i, 0, i < 2 ? "medium" : "low", "2026-11-20T00:00:00Z", "2026-11-24T00:00:00Z")),
    flag("crawler_spike", "GPTBot", 420, 35, "high"),
    flag("crawler_spike", "ClaudeBot", 90, 12, "medium", "2026-11-23T11:00:00Z", "2026-11-23T13:00:00Z"),
    flag("human_drop", "human", 12, 61.5, "high", "2026-11-23T06:00:00Z", "2026-11-23T12:00:00Z"),
  ],
};
let anomalies: object = ANOMALIES;

beforeAll(async () => {
  stack = await startStack({ sites: [DOMAIN] });
  await pageview(stack.gateway.base, DOMAIN, "/");
  front = createServer(async (req, res) => {
    const path = req.url ?? "/";
    if (serveOptional && path.startsWith(`/api/sites/${DOMAIN}/insights`)) {
      if (req.method === "POST") posted.push(req.headers["content-type"] ?? "");
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(INSIGHTS));
    }
    if (serveOptional && path.startsWith(`/api/sites/${DOMAIN}/anomalies`)) return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(anomalies));
    if (!serveOptional && /^\/api\/sites\/[^/]+\/(insights|anomalies)/.test(path)) return void res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not found" }));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string" && !["host", "content-length", "transfer-encoding", "connection", "keep-alive"].includes(name)) headers.set(name, value);
    const upstream = await fetch(stack.gateway.base + path, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : null });
    const out: Record<string, string | string[]> = {};
    upstream.headers.forEach((value, name) => {
      if (!["content-encoding", "content-length", "transfer-encoding", "set-cookie"].includes(name)) out[name] = value;
    });
    out["set-cookie"] = upstream.headers.getSetCookie();
    res.writeHead(upstream.status, out);
    if (upstream.body) Readable.fromWeb(upstream.body as never).pipe(res);
    else res.end();
  });
  await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
  dashboard = await startDashboard(`http://127.0.0.1:${(front.address() as AddressInfo).port}`);
});
afterAll(async () => {
  await dashboard?.close();
  front?.closeAllConnections();
  await new Promise((resolve) => front?.close(resolve));
  await stack?.close();
});

async function openSite() {
  const context = await stack.browser.newContext({ baseURL: dashboard.base });
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on("pageerror", (e) => errors.push(e));
  await page.goto("/app/login");
  await page.getByLabel("Email").fill("admin@localhost");
  await page.getByLabel("Password").fill("change-me-admin-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => url.pathname === "/app");
  await page.goto(`/app/sites/${DOMAIN}`);
  await page.locator('[data-testid="ai-panel"]').waitFor();
  await page.waitForLoadState("networkidle").catch(() => {});
  return { page, context, errors };
}

it("hidden, not broken, while the gateway answers 404", async () => {
  serveOptional = false;
  const { page, context, errors } = await openSite();
  expect(await page.getByTestId("insights").count()).toBe(0);
  expect(await page.getByTestId("anomalies").count()).toBe(0);
  expect(errors).toEqual([]);
  await context.close();
});

it("shown when the routes answer: findings and flags as text, odd fields tolerated, generate posts JSON", async () => {
  serveOptional = true;
  const { page, context, errors } = await openSite();
  const insights = page.getByTestId("insights");
  await insights.waitFor();
  expect(await insights.locator("li").allTextContents()).toEqual(["Visits from ChatGPT doubled <img src=x onerror=window.__pwned=1>"]);
  expect(await page.locator('img[src="x"]').count()).toBe(0);
  const card = page.getByTestId("anomalies");
  await card.waitFor();
  // Kinds this dashboard does not know are shown under their own name; a null flag is skipped.
  const flags = await card.locator("li").allTextContents();
  expect(flags).toHaveLength(2);
  expect(flags[0]).toContain("spike: /pricing");
  expect(flags[0]).not.toContain("\u202E");
  expect(await card.locator("li").first().getAttribute("title")).toContain("expected 30.5 (inferred)");
  // The window reads as a span of hours, not as two ISO instants.
  expect(flags[0]).toContain("Nov 23, 09:00–10:00 UTC");
  expect(flags[0]).not.toContain("T09:00");
  await insights.getByRole("button", { name: "Generate" }).click();
  await expect.poll(() => posted.length).toBe(1);
  expect(posted[0]).toBe("application/json");
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  expect(errors).toEqual([]);
  await context.close();
});

it("anomalies: grouped by kind with a count, three each and the rest behind Show all, in sentences, only the actor's", async () => {
  serveOptional = true;
  anomalies = MANY_FLAGS;
  try {
    const { page, context, errors } = await openSite();
    const card = page.getByTestId("anomalies");
    await card.waitFor();
    // Humans (the default view): only the drop in human visitors.
    await expect.poll(() => card.locator("[data-kind]").evaluateAll((g) => g.map((e) => (e as HTMLElement).dataset.kind))).toEqual(["human_drop"]);
    expect(await card.locator("li").allTextContents()).toEqual([expect.stringMatching(/^high\s*12 visitors, where about 61\.5 is usual for these hours\.\s*Nov 23, 06:00–12:00 UTC$/)]);
    // AI crawlers: spikes (2, one high: first) and never-referred pages (7, three shown).
    await page.goto(`/app/sites/${DOMAIN}?actor=ai_crawler`);
    await expect.poll(() => card.locator("[data-kind]").evaluateAll((g) => g.map((e) => (e as HTMLElement).dataset.kind))).toEqual(["crawler_spike", "crawled_never_referred"]);
    const pages = card.locator('[data-kind="crawled_never_referred"]');
    expect(await pages.getByTestId("anomaly-count").textContent()).toBe("7");
    expect(await pages.locator("li").count()).toBe(3);
    expect(await pages.locator("li").first().textContent()).toContain("/docs/a was crawled 40 times, with no visitor from an AI assistant yet.");
    const text = await card.innerText();
    expect(text).not.toMatch(/\b(observed|inferred|score)\b/i);
    expect(await pages.locator("li").first().getAttribute("title")).toBe("observed 40 (observed), expected 0 (inferred), score 7.5 (inferred)");
    await card.screenshot({ path: join(DASHBOARD_DIR, "screenshots", "anomalies-light.png") });
    await pages.getByRole("button", { name: /Show all 7/ }).click();
    expect(await pages.locator("li").count()).toBe(7);
    expect(await card.locator('[data-kind="crawler_spike"] li').first().textContent()).toContain("GPTBot fetched 420 pages, where about 35 is usual at this time.");
    await page.emulateMedia({ colorScheme: "dark" });
    await card.screenshot({ path: join(DASHBOARD_DIR, "screenshots", "anomalies-dark.png") });
    expect(errors).toEqual([]);
    await context.close();
  } finally {
    anomalies = ANOMALIES;
  }
});
