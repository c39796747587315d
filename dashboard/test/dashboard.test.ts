// The dashboard end to end in real Chromium, in front of a real gateway on real PostgreSQL: sign in, add a
// site, a real tracker page and a crawler's middleware hit, the numbers against the API's JSON, actor and
// period in the URL, a live tick within 1 s of the 202, keys, the language model, sign out.
import { displayLabel } from "@svc/core/display";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixturePage, startTestSite, type TestSite } from "../../tracker/test/support/index.ts";
import { shownAt, watchNumbers } from "./support/shown-at.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, type Stack, UA, startStack } from "./support/stack.ts";
import { apiJson, crawlerHit, pageview, visitorUa } from "./support/traffic.ts";

const DOMAIN = "shop.example";
let stack: Stack;
let site: TestSite;
let page: Page;
let errors: Error[];

beforeAll(async () => {
  stack = await startStack();
  site = await startTestSite();
  ({ page, errors } = await stack.open());
});
afterAll(async () => {
  await site?.close();
  await stack?.close();
});

const metric = (name: string) => page.locator(`[data-metric="${name}"]`).textContent();
const number = (text: string | null) => Number((text ?? "").replaceAll(",", ""));

describe("sign-in", () => {
  it("a wrong password shows the gateway's message; the right one opens /app", async () => {
    await page.goto("/app");
    await page.waitForURL(/\/app\/login\?next=%2Fapp/);
    await page.getByLabel("Email").fill(ADMIN_EMAIL);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByTestId("login-error").textContent()).toContain("wrong e-mail or password");
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname === "/app");
    await expect.poll(() => page.textContent("main")).toContain("No sites yet");
  });

  it("works without JavaScript: the form posts, a failure renders the message, success sets the gateway's cookie", async () => {
    const { page: plain, context } = await stack.open({ javaScript: false });
    await plain.goto("/app/login");
    await plain.getByLabel("Email").fill(ADMIN_EMAIL);
    await plain.getByLabel("Password").fill("nope-nope");
    await plain.getByRole("button", { name: "Sign in" }).click();
    expect(await plain.textContent("[role=alert]")).toContain("wrong e-mail or password");
    await plain.getByLabel("Password").fill(ADMIN_PASSWORD);
    await plain.getByRole("button", { name: "Sign in" }).click();
    await plain.waitForURL((url) => url.pathname === "/app");
    const cookies = await context.cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
  });
});

describe("sites", () => {
  it("Add site opens the install panel with the domain and this gateway's URL filled in", async () => {
    await page.getByRole("button", { name: "Add site" }).click();
    await page.getByLabel("Domain").fill(DOMAIN);
    await page.getByLabel("Name").fill("The Shop");
    await page.getByLabel("Retention (days)").fill("90");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    const panel = page.getByTestId("install-panel");
    await panel.waitFor();
    expect(await page.getByTestId("snippet-script").textContent()).toBe(`<script defer data-domain="${DOMAIN}" src="${stack.gateway.base}/js/svc.js"></script>`);
    for (const id of ["express", "hono", "next", "worker", "node"]) {
      await page.getByRole("tab", { name: new RegExp(id === "node" ? "Plain Node" : id === "next" ? "Next" : id === "worker" ? "Edge" : id, "i") }).click();
      const code = await page.getByTestId(`snippet-${id}`).textContent();
      expect(code).toContain(`"${stack.gateway.base}/api/hit"`);
      expect(code).toContain(`"${DOMAIN}"`);
    }
    const sites = await apiJson(stack.gateway.base, "/api/sites");
    expect(sites.sites).toEqual([expect.objectContaining({ domain: DOMAIN, name: "The Shop", retention_days: 90 })]);
  });

  it("a new site's view teaches the install until the first event, and says so live", async () => {
    await page.goto(`/app/sites/${DOMAIN}?period=today`);
    await page.getByTestId("waiting-first-event").waitFor();
    await expect.poll(() => page.getByTestId("live-indicator").getAttribute("data-status")).toBe("live");
    // A real page running the real tracker, in an ordinary (human) browser.
    const visitor = await stack.browser.newContext({ userAgent: UA.chrome });
    const tab = await visitor.newPage();
    await tab.goto(site.page("/hello", fixturePage({ scriptSrc: `${stack.gateway.base}/js/svc.js`, attributes: { "data-domain": DOMAIN } })));
    await page.getByTestId("first-event").waitFor({ timeout: 10_000 });
    await expect.poll(() => metric("pageviews")).toBe("1");
    await visitor.close();
  });
});

describe("site view", () => {
  it("a live tick shows on screen within 1 s of the event's 202", async () => {
    await page.goto(`/app/sites/${DOMAIN}?period=today`);
    await expect.poll(() => page.getByTestId("live-indicator").getAttribute("data-status")).toBe("live");
    const before = number(await metric("pageviews"));
    const liveBefore = number(await metric("live-visitors"));
    await watchNumbers(page, [['[data-metric="pageviews"]', before + 1]]);
    await pageview(stack.gateway.base, DOMAIN, "/live", visitorUa(1));
    const acknowledged = Date.now();
    expect((await shownAt(page, 5_000)) - acknowledged).toBeLessThanOrEqual(1_000);
    expect(number(await metric("live-visitors"))).toBe(liveBefore + 1);
  });

  it("a breakdown row appears, and another changes, within 1 s of the event's 202, from the deltas without a request", async () => {
    await page.goto(`/app/sites/${DOMAIN}?period=today`);
    await expect.poll(() => page.getByTestId("live-indicator").getAttribute("data-status")).toBe("live");
    const card = page.getByTestId("breakdown-page");
    await expect.poll(() => card.locator("tbody tr").count()).toBeGreaterThan(0);
    const requests: string[] = [];
    const onRequest = (r: { url(): string }) => void (r.url().includes("/breakdown?") && requests.push(r.url()));
    page.on("request", onRequest);
    try {
      // Rows as [label, visitors, pageviews] in the card, in the order shown.
      const rowsOf = () =>
        card.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [tr.querySelector(".text")!.textContent, tr.querySelector('[data-col="visitors"]')!.textContent]));
      const expectWithinASecond = async (send: () => Promise<void>, seen: (rows: string[][]) => boolean) => {
        await send();
        const acknowledged = Date.now();
        await expect.poll(async () => seen(await rowsOf()), { interval: 20, timeout: 5_000 }).toBe(true);
        expect(Date.now() - acknowledged).toBeLessThanOrEqual(1_000);
      };
      await expectWithinASecond(
        () => pageview(stack.gateway.base, DOMAIN, "/fresh-from-the-stream", visitorUa(40)),
        (rows) => rows.some(([label, visitors]) => label === "/fresh-from-the-stream" && visitors === "1"),
      );
      await expectWithinASecond(
        () => pageview(stack.gateway.base, DOMAIN, "/fresh-from-the-stream", visitorUa(41)),
        (rows) => rows.some(([label, visitors]) => label === "/fresh-from-the-stream" && visitors === "2"),
      );
      // The card now equals the API's answer, and it got there without asking for it again.
      const api = await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/breakdown?field=page&days=1&actor=human&limit=10`);
      expect(await rowsOf()).toEqual(api.rows.map((r: { label: string; visitors: number }) => [displayLabel(r.label), String(r.visitors)]));
      expect(requests).toEqual([]);
    } finally {
      page.off("request", onRequest);
    }
  });

  it("the live stream reconnects after a drop and shows the state meanwhile", async () => {
    await page.goto(`/app/sites/${DOMAIN}?period=today`);
    const indicator = page.getByTestId("live-indicator");
    await expect.poll(() => indicator.getAttribute("data-status")).toBe("live");
    // The dashboard server goes away for 3 s: the stream drops, the indicator says so, retries back off.
    const restarted = stack.restartDashboard(3_000);
    try {
      await expect.poll(() => indicator.getAttribute("data-status"), { timeout: 5_000 }).toBe("reconnecting");
    } finally {
      await restarted;
    }
    // Backoff 1 s, 2 s, 4 s … from the drop: back within a few seconds, with a fresh snapshot.
    await expect.poll(() => indicator.getAttribute("data-status"), { timeout: 15_000 }).toBe("live");
    const before = number(await metric("pageviews"));
    await pageview(stack.gateway.base, DOMAIN, "/after-drop", visitorUa(5));
    await expect.poll(() => metric("pageviews").then(number)).toBe(before + 1);
  });

  it("shows the API's numbers: tiles and breakdown rows read from the DOM equal the JSON", async () => {
    await pageview(stack.gateway.base, DOMAIN, "/pricing", visitorUa(2), { r: "https://news.ycombinator.com/item?id=1" });
    await pageview(stack.gateway.base, DOMAIN, "/pricing", visitorUa(3), { r: "https://chatgpt.com/" });
    await crawlerHit(stack.gateway.base, DOMAIN, "/pricing");
    await crawlerHit(stack.gateway.base, DOMAIN, "/docs");
    for (const actor of ["human", "ai_crawler", "all"]) {
      await page.goto(`/app/sites/${DOMAIN}?actor=${actor}`);
      const stats = await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/stats?days=30&actor=${actor}`);
      for (const m of ["visitors", "pageviews", "events", "hits"]) await expect.poll(() => metric(m).then(number), { message: `${actor} ${m}` }).toBe(stats.current[m]);
      const pages = await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/breakdown?field=page&days=30&actor=${actor}&limit=10`);
      const rows = page.locator('[data-testid="breakdown-page"] tbody tr');
      await expect.poll(() => rows.count()).toBe(pages.rows.length);
      const shown = await rows.evaluateAll((trs) =>
        trs.map((tr) => ({ label: tr.querySelector(".text")!.textContent, visitors: tr.querySelector('[data-col="visitors"]')!.textContent })),
      );
      expect(shown).toEqual(pages.rows.map((r: { label: string; visitors: number }) => ({ label: displayLabel(r.label), visitors: String(r.visitors) })));
    }
    expect(Number(await page.getByTestId("ai-crawler-hits").textContent())).toBe(2);
  });

  it("actor and period live in the URL: the numbers change as the API says, back and reload keep the view", async () => {
    await page.goto(`/app/sites/${DOMAIN}`);
    await page.locator('[data-actor="ai_crawler"]').click();
    await page.waitForURL(/actor=ai_crawler/);
    const crawler = await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/stats?days=30&actor=ai_crawler`);
    await expect.poll(() => metric("hits").then(number)).toBe(crawler.current.hits);
    await page.locator('[data-period="7d"]').click();
    await page.waitForURL(/period=7d/);
    await expect.poll(() => page.getByTestId("window").textContent()).toContain("AI crawlers · Last 7 days");
    await page.goBack();
    await page.waitForURL((url) => !url.search.includes("period="));
    await expect.poll(() => page.getByTestId("window").textContent()).toContain("Last 30 days");
    await page.reload();
    await expect.poll(() => page.getByTestId("window").textContent()).toContain("AI crawlers · Last 30 days");
    await page.locator('[data-actor="human"]').click();
    const human = await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/stats?days=30&actor=human`);
    await expect.poll(() => metric("visitors").then(number)).toBe(human.current.visitors);
  });

  it("the chart reads out one bucket's exact numbers on focus and arrow keys, and as a table", async () => {
    await page.goto(`/app/sites/${DOMAIN}?period=today`);
    const stats = await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/stats?days=1&actor=human`);
    const chart = page.getByTestId("time-chart");
    await chart.focus();
    await page.keyboard.press("End");
    const last = stats.series.at(-1);
    await expect.poll(() => page.getByTestId("chart-tooltip").textContent()).toContain(`Visitors: ${last.visitors}`);
    await page.keyboard.press("Home");
    await expect.poll(() => page.getByTestId("chart-tooltip").textContent()).toContain(`Visitors: ${stats.series[0].visitors}`);
    await page.getByText("Show as table").click();
    expect(await page.getByTestId("chart-table").locator("tbody tr").count()).toBe(stats.series.length);
  });

  it("Last 24 hours shows the API's rolling hours=24 numbers, hourly, its visitors marked inferred; period=2d links land there", async () => {
    await page.goto(`/app/sites/${DOMAIN}`);
    await page.locator('[data-period="24h"]').click();
    await page.waitForURL(/period=24h/);
    const stats = await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/stats?hours=24&actor=human`);
    for (const m of ["visitors", "pageviews", "events", "hits"]) await expect.poll(() => metric(m).then(number), { message: m }).toBe(stats.current[m]);
    await expect.poll(() => page.getByTestId("window").textContent()).toMatch(/Humans · Last 24 hours · \w{3} \d{1,2}, \d\d:00 – now UTC/);
    const basis = page.locator(".tile", { has: page.locator('[data-metric="visitors"]') }).locator("[data-basis]");
    expect(await basis.getAttribute("data-basis")).toBe("inferred");
    await page.getByText("Show as table").click();
    expect(await page.getByTestId("chart-table").locator("tbody tr").count()).toBe(24);
    const pages = await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/breakdown?field=page&hours=24&actor=human&limit=10`);
    await expect.poll(() => page.locator('[data-testid="breakdown-page"] tbody tr').count()).toBe(pages.rows.length);
    await page.goto(`/app/sites/${DOMAIN}?period=2d`);
    await expect.poll(() => page.getByTestId("window").textContent()).toContain("Last 24 hours");
  });

  it("the full list opens from More in the URL and is searchable", async () => {
    for (let n = 10; n < 22; n++) await pageview(stack.gateway.base, DOMAIN, `/p/${n}`, visitorUa(n));
    await page.goto(`/app/sites/${DOMAIN}`);
    await page.getByTestId("breakdown-page").getByRole("link", { name: /More/ }).click();
    await page.waitForURL(/open=page/);
    const dialog = page.getByTestId("breakdown-dialog");
    const all = await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/breakdown?field=page&days=30&actor=human&limit=1000`);
    await expect.poll(() => dialog.locator("tbody tr").count()).toBe(all.rows.length);
    await dialog.getByLabel("Search").fill("/p/1");
    await expect.poll(() => dialog.locator("tbody tr").count()).toBe(all.rows.filter((r: { label: string }) => r.label.includes("/p/1")).length);
    await dialog.getByRole("button", { name: "Close" }).click();
    await page.waitForURL((url) => !url.search.includes("open="));
  });

  it("goals: add, count, delete", async () => {
    await pageview(stack.gateway.base, DOMAIN, "/signup", visitorUa(40), { n: "Signup" });
    await page.goto(`/app/sites/${DOMAIN}`);
    const goals = page.getByTestId("goals");
    await goals.getByLabel("Event name").fill("Signup");
    await goals.getByRole("button", { name: "Add goal" }).click();
    const row = goals.locator('tr[data-goal="Signup"]');
    await expect.poll(() => row.locator("td.num").first().textContent()).toBe("1");
    page.once("dialog", (d) => void d.accept());
    await row.getByRole("button", { name: /Delete/ }).click();
    await expect.poll(() => row.count()).toBe(0);
    expect((await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/goals`)).goals).toEqual([]);
  });
});

describe("settings", () => {
  it("creates a key shown once, lists it by prefix and last 4, revokes it after confirmation", async () => {
    await page.goto("/app/settings");
    await page.getByLabel("Key name").fill("CI export");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.getByTestId("new-key-value").textContent())!;
    expect(key).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
    const row = page.locator("[data-key]").filter({ hasText: "CI export" });
    expect(await row.textContent()).toContain(`${key.slice(0, 13)}…${key.slice(-4)}`);
    expect((await fetch(`${stack.gateway.base}/api/sites`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    page.once("dialog", (d) => void d.accept());
    await row.getByRole("button", { name: /Revoke/ }).click();
    await expect.poll(() => row.count()).toBe(0);
    expect((await fetch(`${stack.gateway.base}/api/sites`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
    await page.reload();
    expect(await page.getByTestId("new-key").count()).toBe(0);
  });

  it("creates a read key by default and an admin key when chosen; a read key cannot write", async () => {
    await page.goto("/app/settings");
    const create = async (name: string, scope?: "admin") => {
      await page.getByLabel("Key name").fill(name);
      if (scope) await page.getByLabel("Scope").selectOption(scope);
      await page.getByRole("button", { name: "Create key" }).click();
      await expect.poll(() => page.getByTestId("new-key").textContent()).toContain(name);
      return (await page.getByTestId("new-key-value").textContent())!;
    };
    const reader = await create("dashboard reader");
    const admin = await create("dashboard admin", "admin");
    const scopeOf = (name: string) => page.locator("[data-key]").filter({ hasText: name }).getByTestId("key-scope").textContent();
    expect(await scopeOf("dashboard reader")).toBe("read");
    expect(await scopeOf("dashboard admin")).toBe("admin");
    const addGoal = (key: string) =>
      fetch(`${stack.gateway.base}/api/sites/${DOMAIN}/goals`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ name: `scope ${key.slice(-4)}` }) });
    expect((await addGoal(reader)).status).toBe(403);
    expect((await addGoal(admin)).status).toBe(201);
  });

  it("changes the team's language-model provider", async () => {
    await page.goto("/app/settings");
    await page.getByLabel("Provider").selectOption("none");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await expect.poll(() => page.getByTestId("llm-current").textContent()).toContain("none");
    expect(await apiJson(stack.gateway.base, "/api/team/llm")).toMatchObject({ provider: "none", source: "team" });
  });

  it("renames a site after the data-domain warning", async () => {
    await page.goto("/app/settings");
    const form = page.locator(`form[data-site="${DOMAIN}"]`);
    await form.getByLabel("Name").fill("Shop renamed");
    await form.getByRole("button", { name: /Save/ }).click();
    await expect.poll(async () => (await apiJson(stack.gateway.base, "/api/sites")).sites[0].name).toBe("Shop renamed");
  });

  it("sets a site's time zone from the list of IANA zones; its reads then answer in local days", async () => {
    await page.goto("/app/settings");
    const form = page.locator(`form[data-site="${DOMAIN}"]`);
    const select = form.getByLabel("Time zone");
    expect(await select.locator("option").first().getAttribute("value")).toBe("UTC");
    expect(await select.locator("option").count()).toBeGreaterThan(300);
    await select.selectOption("America/St_Johns");
    await form.getByRole("button", { name: /Save/ }).click();
    await expect.poll(async () => (await apiJson(stack.gateway.base, "/api/sites")).sites[0].time_zone).toBe("America/St_Johns");
    expect(await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/stats?days=1`)).toMatchObject({ time_zone: "America/St_Johns" });
    await page.reload();
    expect(await page.locator(`form[data-site="${DOMAIN}"]`).getByLabel("Time zone").inputValue()).toBe("America/St_Johns");
  });
});

describe("sign-out", () => {
  it("ends the session: /app then asks to sign in again", async () => {
    await page.goto("/app");
    await page.getByTestId("sign-out").click();
    await page.waitForURL(/\/app\/login/);
    expect(await page.context().cookies()).toEqual([]);
    await page.goto("/app/settings");
    await page.waitForURL(/\/app\/login\?next=%2Fapp%2Fsettings/);
    expect(errors).toEqual([]);
  });
});
