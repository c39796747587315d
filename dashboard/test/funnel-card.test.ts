// Funnels in real Chromium: a funnel defined in the site's settings (two pages and a goal), visits sent through
// the real ingest route with the clock moved between each visitor's steps, and the funnel card on the site
// view showing the numbers of the gateway's funnel route — which equal the visits sent. Then an edit in the
// settings reaches the card. Screenshots light, dark and 375 px under dashboard/screenshots/.
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { bearer, call, loginAsAdmin } from "../../gateway/test/support/auth.ts";
import { DASHBOARD_DIR } from "../scripts/launch.ts";
import { seriousViolations } from "./support/axe.ts";
import { type Stack, startStack } from "./support/stack.ts";
import { apiJson, pageview, visitorUa } from "./support/traffic.ts";

const DOMAIN = "funnel.example";
const SHOTS = join(DASHBOARD_DIR, "screenshots");
let stack: Stack;

// Each visitor's steps, one minute apart: name "Signup" is the goal's event, anything else a pageview.
const VISITS: readonly (readonly string[])[] = [
  ["/", "/pricing", "Signup"], // reaches all three steps
  ["/", "/pricing"], // two
  ["/"], // one
  ["/pricing", "/"], // one: /pricing came before /
  ["/", "Signup"], // one: the goal without /pricing before it
];
const EXPECTED = [5, 2, 1];

beforeAll(async () => {
  stack = await startStack({ sites: [DOMAIN] });
  const { token } = await loginAsAdmin(stack.gateway.base);
  expect((await call(stack.gateway.base, "POST", `/api/sites/${DOMAIN}/goals`, { body: { name: "Signup" }, headers: bearer(token) })).status).toBe(201);
  for (const [n, steps] of VISITS.entries()) {
    let page = "/";
    for (const step of steps) {
      if (step === "Signup") await pageview(stack.gateway.base, DOMAIN, page, visitorUa(n + 1), { n: "Signup" });
      else await pageview(stack.gateway.base, DOMAIN, (page = step), visitorUa(n + 1));
      stack.gateway.clock.advance(60_000);
    }
  }
});
afterAll(async () => {
  await stack?.close();
});

const cardVisitors = (page: Page) => page.getByTestId("funnel-card").locator('tbody [data-col="visitors"]').allTextContents();

it("a funnel defined in the settings shows the funnel route's numbers on the site view, and follows an edit", async () => {
  const { page, errors } = await stack.open({ bypassCSP: true });
  await stack.signIn(page);
  await page.goto(`/app/sites/${DOMAIN}`);
  // No funnel yet: the card says where to define one.
  await expect.poll(() => page.getByTestId("funnel-card").textContent(), { timeout: 20_000 }).toContain("No funnels yet");

  await page.getByTestId("site-settings").click();
  await page.waitForURL(`**/app/sites/${DOMAIN}/settings`);
  const editor = page.getByTestId("funnels");
  await editor.getByLabel("Name").fill("Pricing to signup");
  await editor.getByLabel("Step 1 page").fill("/");
  await editor.getByLabel("Step 2 page").fill("/pricing");
  await editor.getByRole("button", { name: "Add step" }).click();
  await editor.getByLabel("Step 3 kind").selectOption("goal");
  await editor.getByLabel("Step 3 goal").selectOption("Signup");
  await editor.getByRole("button", { name: "Save funnel" }).click();
  await expect.poll(() => editor.locator("tbody tr").first().textContent()).toContain("/ → /pricing → Goal: Signup");
  const [funnel] = (await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/funnels`)).funnels;
  expect(funnel).toMatchObject({ name: "Pricing to signup", steps: [{ page_path: "/" }, { page_path: "/pricing" }, { goal: "Signup" }] });
  await page.screenshot({ path: join(SHOTS, "funnel-settings.png"), fullPage: true });
  expect(await seriousViolations(page)).toEqual([]);

  await page.goto(`/app/sites/${DOMAIN}`);
  await expect.poll(() => cardVisitors(page), { timeout: 20_000 }).toEqual(EXPECTED.map(String));
  const route = await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/funnels/${funnel.id}/result?days=30&actor=human`);
  expect(route.steps.map((s: { visitors: number }) => s.visitors)).toEqual(EXPECTED);
  const card = page.getByTestId("funnel-card");
  const rows = card.locator("tbody tr");
  for (const [i, s] of (route.steps as Array<{ label: string; step_conversion_rate: number; dropoff: number; dropoff_rate: number }>).entries()) {
    const row = rows.nth(i);
    expect(await row.locator("td").first().textContent()).toContain(s.label);
    expect(await row.locator('[data-col="step-conversion"]').textContent()).toBe(`${s.step_conversion_rate.toLocaleString("en", { maximumFractionDigits: 2 })}%`);
    if (i > 0) expect(await row.locator('[data-col="dropoff"]').textContent()).toBe(`${s.dropoff} (${s.dropoff_rate.toLocaleString("en", { maximumFractionDigits: 2 })}%)`);
  }
  expect(await card.getByTestId("funnel-summary").textContent()).toMatch(/5\s+visitors entered,\s+1\s+completed \(20%\)/);
  // The bars: one per step, the reached bar of step 2 two fifths the height of step 1's.
  const heights = await card.locator("rect.reached").evaluateAll((rects) => rects.map((r) => Number(r.getAttribute("height"))));
  expect(heights).toHaveLength(3);
  expect(heights[1]! / heights[0]!).toBeCloseTo(2 / 5, 2);
  await card.screenshot({ path: join(SHOTS, "funnel-card-light.png") });

  // An edit in the settings (the goal step removed) reaches the card.
  await page.goto(`/app/sites/${DOMAIN}/settings`);
  await editor.getByRole("button", { name: "Edit funnel Pricing to signup" }).click();
  await editor.getByRole("button", { name: "Remove step 3" }).click();
  await editor.getByRole("button", { name: "Save changes" }).click();
  await expect.poll(() => editor.locator("tbody tr").first().textContent()).toContain("/ → /pricing");
  await page.goto(`/app/sites/${DOMAIN}?period=7d`);
  await expect.poll(() => cardVisitors(page), { timeout: 20_000 }).toEqual(["5", "2"]);
  expect(errors).toEqual([]);
});

it.each([
  ["dark", { dark: true }],
  ["375px", { mobile: true }],
] as const)("screenshot of the funnel card (%s)", async (name, options) => {
  const { page } = await stack.open({ ...options, bypassCSP: true });
  await stack.signIn(page);
  await page.goto(`/app/sites/${DOMAIN}`);
  await expect.poll(() => cardVisitors(page), { timeout: 20_000 }).toEqual(["5", "2"]);
  const card = page.getByTestId("funnel-card");
  // At 375 px the card fits the screen: nothing scrolls sideways.
  if (name === "375px") expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  expect(await seriousViolations(page)).toEqual([]);
  await card.screenshot({ path: join(SHOTS, `funnel-card-${name}.png`) });
});
