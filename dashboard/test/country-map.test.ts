// The countries card's world map in real Chromium: visits from three countries (their addresses resolved by the
// gateway's bundled country table), the map fetched when "Show map" is pressed, those countries shaded and
// buttons, a country without visitors neither; clicking or pressing Enter on one dispatches its ISO alpha-2
// code (the site view filters the whole view by that country). The JavaScript of the site view before and
// after the map is printed. Screenshots light, dark and 375 px under dashboard/screenshots/.
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { bearer, call, loginAsAdmin } from "../../gateway/test/support/auth.ts";
import { post } from "../../gateway/test/support/harness.ts";
import { pageJsWeight } from "../scripts/js-weight.ts";
import { DASHBOARD_DIR } from "../scripts/launch.ts";
import { seriousViolations } from "./support/axe.ts";
import { type Stack, startStack } from "./support/stack.ts";
import { visitorUa } from "./support/traffic.ts";

const DOMAIN = "map.example";
const SHOTS = join(DASHBOARD_DIR, "screenshots");
// Addresses the bundled RIR table places (gateway/test/geo.test.ts): visitors per country.
const VISITORS = [["193.99.144.80", "DE", 3], ["81.2.69.142", "GB", 2], ["8.8.8.8", "US", 1]] as const;
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ sites: [DOMAIN] });
  let n = 0;
  for (const [ip, , count] of VISITORS) {
    for (let i = 0; i < count; i++) {
      const res = await post(stack.gateway.base, "/api/event", { d: DOMAIN, n: "pageview", u: `https://${DOMAIN}/` }, { "user-agent": visitorUa(++n), "x-forwarded-for": ip });
      expect(res.status).toBe(202);
    }
  }
});
afterAll(async () => {
  await stack?.close();
});

it("shades the countries with visitors, and a click or Enter on one dispatches its code", async () => {
  const { page, errors } = await stack.open();
  await stack.signIn(page);
  await page.goto(`/app/sites/${DOMAIN}`);
  const card = page.getByTestId("breakdown-country");
  await card.locator("tbody tr").first().waitFor();
  // Every card's script has run once the funnel card (the last to ask) answered.
  await page.getByTestId("funnel-card").getByText("No funnels yet").waitFor();
  const before = await pageJsWeight(page);
  console.info(`site view JavaScript, gzip -9: ${before.gzipBytes} B in ${before.files} files`);
  await card.getByTestId("country-map-toggle").click();
  const map = card.getByTestId("country-map");
  await map.locator("path[data-code]").first().waitFor();
  const after = await pageJsWeight(page);
  console.info(`with the map: ${after.gzipBytes} B in ${after.files} files`);
  expect(before.files).toBeLessThan(after.files);

  // Every country of the shape is drawn; exactly the three with visitors are buttons, with their counts.
  expect(await map.locator("path").count()).toBeGreaterThan(170);
  const active = await map.locator('path[role="button"]').evaluateAll((paths) => paths.map((p) => [p.getAttribute("data-code"), Number(p.getAttribute("data-visitors")), p.getAttribute("aria-label")]));
  expect(active.sort()).toEqual([["DE", 3, "Germany: 3 visitors"], ["GB", 2, "United Kingdom: 2 visitors"], ["US", 1, "United States: 1 visitor"]]);
  const fillOf = (code: string) => map.locator(`path[data-code="${code}"]`).evaluate((p) => getComputedStyle(p).fill);
  const [de, gb, us, fr] = await Promise.all(["DE", "GB", "US", "FR"].map(fillOf));
  expect(new Set([de, gb, us, fr]).size).toBe(4);
  expect(await map.locator('path[data-code="FR"]').getAttribute("tabindex")).toBeNull();
  expect(await map.getByTestId("country-map-summary").textContent()).toContain("Visitors from 3 countries; most from Germany (3), United Kingdom (2), United States (1).");
  await card.screenshot({ path: join(SHOTS, "country-map-light.png") });

  await map.locator('path[data-code="DE"]').click();
  // The site view filters everything by that country.
  await page.waitForURL((url) => url.searchParams.get("f") === "country~is~DE");
  // The filtered view's map is the query API's countries for the filter: Germany alone.
  const shaded = () => map.locator('path[role="button"]').evaluateAll((paths) => paths.map((p) => p.getAttribute("data-code")));
  await expect.poll(shaded, { timeout: 15_000 }).toEqual(["DE"]);
  await page.keyboard.press("Escape");
  await page.goto(`/app/sites/${DOMAIN}`);
  await card.getByTestId("country-map-toggle").click();
  await map.locator('path[data-code="GB"]').focus();
  await page.keyboard.press("Enter");
  await page.waitForURL((url) => url.searchParams.get("f") === "country~is~GB");
  expect(errors).toEqual([]);
});

it.each([
  ["dark", { dark: true }],
  ["375px", { mobile: true }],
] as const)("screenshot of the map (%s)", async (name, options) => {
  const { page } = await stack.open({ ...options, bypassCSP: true });
  await stack.signIn(page);
  await page.goto(`/app/sites/${DOMAIN}`);
  const card = page.getByTestId("breakdown-country");
  await card.getByTestId("country-map-toggle").click();
  await card.locator('path[data-code="DE"][role="button"]').waitFor();
  if (name === "375px") expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  expect(await seriousViolations(page)).toEqual([]);
  await card.screenshot({ path: join(SHOTS, `country-map-${name}.png`) });
});

it.each([
  ["a plain link", null, ["DE", "GB", "US"]],
  ["a link limited to Germany and the United Kingdom", [["is", "visit:country", ["DE", "GB"]]], ["DE", "GB"]],
] as const)("the shared view's map (%s): the link's countries only, and a click filters the view", async (_name, filters, shown) => {
  const { token: session } = await loginAsAdmin(stack.gateway.base);
  const link = await call(stack.gateway.base, "POST", `/api/sites/${DOMAIN}/shares`, { body: filters ? { filters } : {}, headers: bearer(session) });
  expect(link.status, JSON.stringify(link.json)).toBe(201);
  const { page, errors } = await stack.open();
  await page.goto(`/share/${link.json.token}`);
  await page.locator("html[data-hydrated]").waitFor();
  const card = page.getByTestId("breakdown-country");
  await card.locator("tbody tr").first().waitFor();
  await card.getByTestId("country-map-toggle").click();
  const map = card.getByTestId("country-map");
  const shaded = () => map.locator('path[role="button"]').evaluateAll((paths) => paths.map((p) => p.getAttribute("data-code")).sort());
  await expect.poll(shaded, { timeout: 15_000 }).toEqual([...shown]);
  if (filters) await card.screenshot({ path: join(SHOTS, "share-country-map.png") });
  await map.locator('path[data-code="GB"]').click();
  await page.waitForURL((url) => url.searchParams.get("f") === "country~is~GB");
  await expect.poll(shaded, { timeout: 15_000 }).toEqual(["GB"]);
  expect(errors).toEqual([]);
});
