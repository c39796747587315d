// The gateway's login limits through the dashboard: once they answer 429 (the account's failure limit after 5
// failures in a row, or the per-client 10 a minute), the form shows the gateway's message and when to retry
// (its Retry-After).
import { afterAll, beforeAll, expect, it } from "vitest";
import { ADMIN_EMAIL, type Stack, startStack } from "./support/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

it("429 shows the message and the seconds to wait", async () => {
  // Wrong passwords until the gateway limits them (gateway README, "Authentication"): 401s, then 429.
  const statuses: number[] = [];
  while (statuses.at(-1) !== 429 && statuses.length < 11) {
    const res = await fetch(`${stack.dashboard.base}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: ADMIN_EMAIL, password: "wrong-password" }) });
    statuses.push(res.status);
  }
  expect(statuses.at(-1)).toBe(429);
  expect(new Set(statuses.slice(0, -1))).toEqual(new Set([401]));
  const { page } = await stack.open();
  await page.goto("/app/login");
  await page.getByLabel("Email").fill(ADMIN_EMAIL);
  await page.getByLabel("Password").fill("wrong-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  const alert = page.getByTestId("login-error");
  // The per-account limit answers first (5 failures in a row): its message, then when to retry.
  await expect.poll(() => alert.textContent()).toMatch(/too many (failed logins|login attempts)[^.]*\.[^]*Try again in \d+ s\./);
});
