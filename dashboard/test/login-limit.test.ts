// The gateway's login limit through the dashboard: the 11th attempt in a minute shows the gateway's message
// and when to retry (its Retry-After).
import { afterAll, beforeAll, expect, it } from "vitest";
import { ADMIN_EMAIL, type Stack, startStack } from "./support/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

it("429 shows the message and the seconds to wait", async () => {
  // 10 attempts a minute per client (gateway README); through the proxy they all come from the dashboard.
  for (let n = 0; n < 10; n++) {
    const res = await fetch(`${stack.dashboard.base}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: ADMIN_EMAIL, password: "wrong-password" }) });
    expect(res.status).toBe(401);
  }
  const { page } = await stack.open();
  await page.goto("/app/login");
  await page.getByLabel("Email").fill(ADMIN_EMAIL);
  await page.getByLabel("Password").fill("wrong-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  const alert = page.getByTestId("login-error");
  await expect.poll(() => alert.textContent()).toMatch(/too many login attempts; retry later\. Try again in \d+ s\./);
});
