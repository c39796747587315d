// The insights card against the real gateway and a fake language model (a node:http server speaking Ollama's
// /api/chat, gateway/test/support/fake-llm.ts), in Chromium, on random ports (issues 20 and 21):
// Generate posts the route the gateway has (…/insights/run) and shows the findings; a run longer than the
// request shows "Running" and then its findings; an unreachable provider gives a sentence saying what to set —
// never the socket error or the address, and on the insights card only; with no provider the card says how to
// turn one on. Screenshots of the insights and anomalies cards, light and dark, under dashboard/screenshots/.
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bearer, call, loginAsAdmin } from "../../gateway/test/support/auth.ts";
import { FakeProvider } from "../../gateway/test/support/fake-llm.ts";
import { RUN_ANSWER_WITHIN_MS } from "../../gateway/src/routes/insights.ts";
import { DASHBOARD_DIR } from "../scripts/launch.ts";
import { type Stack, startStack } from "./support/stack.ts";
import { crawlerHit, pageview, visitorUa } from "./support/traffic.ts";

const DOMAIN = "insights-card.example";
const SHOTS = join(DASHBOARD_DIR, "screenshots");

let stack: Stack;
let fake: FakeProvider;
let token: string;
let signedIn: Awaited<ReturnType<import("playwright-core").BrowserContext["storageState"]>>;
// A port nothing listens on: the OpenAI-compatible endpoint is configured there.
let deadUrl: string;

beforeAll(async () => {
  fake = await FakeProvider.start("local");
  const dead = await FakeProvider.start("openai");
  deadUrl = dead.base;
  await dead.close();
  stack = await startStack({
    sites: [DOMAIN],
    env: { SVC_LLM_PROVIDER: "local", SVC_LLM_HOST: fake.base, SVC_OPENAI_BASE_URL: deadUrl, SVC_LLM_TIMEOUT_MS: "20000", SVC_INSIGHTS_EVERY_HOURS: "0" },
  });
  for (let n = 0; n < 6; n++) await pageview(stack.gateway.base, DOMAIN, n % 2 ? "/pricing" : "/", visitorUa(n), n % 3 === 0 ? { r: "https://chatgpt.com/" } : {});
  // GPTBot on a page no assistant referred: one open anomaly flag for the anomalies card.
  for (const path of ["/docs", "/docs", "/blog/crawled-never-referred"]) await crawlerHit(stack.gateway.base, DOMAIN, path);
  ({ token } = await loginAsAdmin(stack.gateway.base));
  const { page, context } = await stack.open();
  await stack.signIn(page);
  signedIn = await context.storageState();
  await context.close();
});
afterAll(async () => {
  await stack?.close();
  await fake?.close();
});
beforeEach(() => fake.reset());

const choose = async (provider: string) => {
  const res = await call(stack.gateway.base, "PATCH", "/api/team/llm", { body: { provider }, headers: bearer(token) });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
};

async function openSite(dark = false, query = "") {
  const opened = await stack.open({ dark, storageState: signedIn });
  await opened.page.goto(`/app/sites/${DOMAIN}${query}`);
  await opened.page.getByTestId("insights").waitFor();
  return opened;
}

describe("the insights card", () => {
  it("Generate posts …/insights/run and shows the findings", async () => {
    await choose("local");
    fake.script = [{ text: "- Human visitors held steady at 6.\n- ChatGPT referred 2 visitors." }];
    const { page, context, errors } = await openSite();
    const card = page.getByTestId("insights");
    await card.getByText("No insights yet.").waitFor();
    const posted = page.waitForRequest((r) => r.method() === "POST" && r.url().includes("/insights"));
    await card.getByRole("button", { name: "Generate" }).click();
    expect(new URL((await posted).url()).pathname).toBe(`/api/sites/${DOMAIN}/insights/run`);
    await expect.poll(() => card.locator("li").allTextContents()).toEqual(["Human visitors held steady at 6.", "ChatGPT referred 2 visitors."]);
    expect(fake.requests).toHaveLength(1);
    expect(await card.textContent()).not.toContain("method not allowed");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a run longer than the request shows Running, then its findings", async () => {
    fake.script = [{ delayMs: RUN_ANSWER_WITHIN_MS + 2000, text: "- A slow model finished." }];
    const { page, context, errors } = await openSite();
    const card = page.getByTestId("insights");
    await card.getByRole("button", { name: "Generate" }).click();
    // The POST answers 202 after 5 s; the card says so and polls.
    await card.getByTestId("insights-running").waitFor({ timeout: RUN_ANSWER_WITHIN_MS + 3000 });
    expect(await card.getByRole("button", { name: "Running…" }).isDisabled()).toBe(true);
    await expect.poll(() => card.locator("li").allTextContents(), { timeout: 10_000 }).toEqual(["A slow model finished."]);
    expect(await card.getByTestId("insights-running").count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);

  it("an unreachable provider: one sentence saying what to set, on the insights card only, beside the last good findings", async () => {
    await choose("openai");
    const { page, context, errors } = await openSite();
    const card = page.getByTestId("insights");
    await card.getByRole("button", { name: "Generate" }).click();
    const error = card.getByTestId("insights-error");
    await error.waitFor();
    const said = (await error.textContent()) ?? "";
    expect(said).toMatch(/^The last run failed \(.+ UTC\): openai could not be reached \(connection refused: nothing listens there\); check SVC_OPENAI_BASE_URL in the gateway's environment, or choose another provider \(or none\) under Settings → Language model$/);
    for (const leak of ["ECONNREFUSED", "127.0.0.1", new URL(deadUrl).port, "fetch failed"]) expect(said).not.toContain(leak);
    // The last good findings stay, marked as such.
    expect(await card.locator("li").allTextContents()).toEqual(["A slow model finished."]);
    expect(await card.textContent()).toContain("(the last good run)");
    await card.screenshot({ path: join(SHOTS, "insights-card-error-light.png") });
    // A reload shows the same sentence on this card and nowhere else.
    await page.reload();
    await card.getByTestId("insights-error").waitFor();
    const body = await page.locator("body").innerText();
    expect(body.split("could not be reached").length - 1).toBe(1);
    expect(body).not.toContain("ECONNREFUSED");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("with no provider it says how to turn one on, and offers no Generate", async () => {
    await choose("none");
    const { page, context, errors } = await openSite();
    const card = page.getByTestId("insights");
    const off = card.getByTestId("insights-off");
    await off.waitFor();
    expect(await off.textContent()).toContain("Insights are off");
    expect(await off.textContent()).toContain("SVC_LLM_PROVIDER");
    expect(await off.getByRole("link", { name: "Settings → Language model" }).getAttribute("href")).toBe("/app/settings");
    expect(await card.getByRole("button").count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it.each([false, true])("screenshots of the insights and anomalies cards (dark: %s)", async (dark) => {
    await choose("local");
    fake.script = [{ text: "- Human visitors held steady at 6.\n- GPTBot crawled /blog/crawled-never-referred but no assistant referred a visitor to it." }];
    expect((await call(stack.gateway.base, "POST", `/api/sites/${DOMAIN}/insights/run`, { headers: bearer(token) })).status).toBe(200);
    // The anomalies card shows the kinds about the actor on screen (issue 21): a crawled page is the crawlers'.
    const { page, context, errors } = await openSite(dark, "?actor=ai_crawler");
    const theme = dark ? "dark" : "light";
    const insights = page.getByTestId("insights");
    await insights.locator("li").first().waitFor();
    await insights.screenshot({ path: join(SHOTS, `insights-card-${theme}.png`) });
    const anomalies = page.getByTestId("anomalies");
    await anomalies.waitFor();
    expect(await anomalies.textContent()).toContain("/blog/crawled-never-referred");
    await anomalies.screenshot({ path: join(SHOTS, `anomalies-card-${theme}.png`) });
    expect(errors).toEqual([]);
    await context.close();
  });
});
