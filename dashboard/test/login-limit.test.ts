// The gateway's login limits through the dashboard: once they answer 429 (the account's failure limit after 5
// failures in a row, or the per-client 10 a minute), the form shows the gateway's message and when to retry
// (its Retry-After). And each browser is its own client for the per-client limit: the dashboard forwards its
// address in X-Forwarded-For, believed by the gateway from loopback (SVC_TRUST_PROXY, as `npm start` sets it).
import { afterAll, beforeAll, expect, it } from "vitest";
import { ADMIN_EMAIL, type Stack, startStack } from "./support/stack.ts";
import { wrongLoginFrom } from "./support/traffic.ts";

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

it("each browser has its own login bucket behind the dashboard; a browser's own X-Forwarded-For picks none", async () => {
  const loginFrom = (address: string, headers?: Record<string, string>) => wrongLoginFrom(stack.dashboard.base, address, headers);
  const first: number[] = [];
  for (let i = 0; i < 10; i++) first.push(await loginFrom("127.0.0.2"));
  expect(first).toEqual(Array(10).fill(401));
  expect(await loginFrom("127.0.0.2")).toBe(429);
  // Another browser address is not locked out by the first one.
  expect(await loginFrom("127.0.0.3")).toBe(401);
  // The first browser claiming other addresses is still itself: the dashboard sets the header, never appends.
  for (const claimed of ["198.51.100.7", "127.0.0.4", "127.0.0.3, 198.51.100.8"]) {
    expect(await loginFrom("127.0.0.2", { "x-forwarded-for": claimed }), claimed).toBe(429);
  }
  expect(await loginFrom("127.0.0.3")).toBe(401);
});
