import { afterAll, beforeAll, expect, it } from "vitest";
import { type Stack, startStack } from "./support/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ sites: ["shop.example"] });
});
afterAll(() => stack?.close());

it("signs in and lists sites", async () => {
  const { page, errors } = await stack.open();
  await stack.signIn(page);
  await expect.poll(() => page.textContent("main")).toContain("shop.example");
  await page.goto("/app/sites/shop.example");
  await page.waitForSelector('[data-metric="visitors"]');
  await page.screenshot({ path: "screenshots/smoke-site.png", fullPage: true });
  expect(errors).toEqual([]);
});
