// A site's "Sharing and reports" page in real Chromium: a shared link made from the form opens for a
// signed-out browser (password first); an alert made from the form fires to a local webhook receiver and
// its delivery shows in the log; the raw export downloads import-format lines.
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DASHBOARD_DIR } from "../scripts/launch.ts";
import { type Stack, startStack } from "./support/stack.ts";
import { pageview, visitorUa } from "./support/traffic.ts";

const DOMAIN = "settings.example";
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ sites: [DOMAIN] });
  for (const n of [1, 2, 3]) await pageview(stack.gateway.base, DOMAIN, `/p${n}`, visitorUa(n));
});
afterAll(async () => {
  await stack?.close();
});

it("makes a password-protected shared link, an alert whose delivery is logged, and a raw export", async () => {
  const hooks: string[] = [];
  const receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => (hooks.push(body), res.writeHead(204).end()));
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/svc`;

  const { page, errors } = await stack.open();
  await stack.signIn(page);
  await page.goto(`/app/sites/${DOMAIN}`);
  await page.getByTestId("site-settings").click();
  await page.waitForURL(`**/app/sites/${DOMAIN}/settings`);

  const shares = page.getByTestId("shares");
  await shares.getByLabel("Password (optional)").fill("a long password");
  await shares.getByRole("button", { name: "Make a shared link" }).click();
  const url = (await page.getByTestId("share-url").textContent())!;
  expect(url).toMatch(new RegExp(`^${stack.dashboard.base}/share/[A-Za-z0-9_-]{43}$`));
  await expect.poll(() => shares.locator("tbody tr").count()).toBe(1);
  const { page: stranger } = await stack.open();
  await stranger.goto(url);
  await stranger.getByLabel("Password").fill("a long password");
  await stranger.getByRole("button", { name: "View" }).click();
  await expect.poll(() => stranger.locator('[data-metric="visitors"]').textContent()).toBe("3");

  const alerts = page.getByTestId("alerts");
  await alerts.getByLabel("Threshold").fill("1");
  await alerts.getByLabel("At most once every (minutes)").fill("5");
  await alerts.getByLabel("Webhook URL").fill(hookUrl);
  await alerts.getByRole("button", { name: "Add alert" }).click();
  await expect.poll(() => page.getByTestId("webhook-secret").textContent()).toMatch(/whsec_/);
  await stack.gateway.gateway.notifier.runDue();
  await stack.gateway.gateway.notifier.settled();
  expect(hooks).toHaveLength(1);
  expect(JSON.parse(hooks[0]!)).toMatchObject({ alert: "visitors_last_hour", visitors_last_hour: 3, threshold: 1 });
  await page.reload();
  await expect.poll(() => page.getByTestId("delivery-log").locator("tbody tr").first().textContent()).toContain("delivered (HTTP 204)");
  await page.screenshot({ path: join(DASHBOARD_DIR, "screenshots", "site-settings.png"), fullPage: true });

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("raw-export").click()]);
  const lines = (await readFile((await download.path())!, "utf8")).trim().split("\n").map((l) => JSON.parse(l));
  expect(lines.map((l) => l.pathname).sort()).toEqual(["/p1", "/p2", "/p3"]);
  expect(errors).toEqual([]);
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});
