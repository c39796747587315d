// The whole product for a browser test: a real gateway (in-process, its own fresh PostgreSQL database,
// the test clock at the real time so live deltas flow), the built dashboard in front of it, Chromium.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { type Harness, UA, startHarness } from "../../../gateway/test/support/harness.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD } from "../../../gateway/test/support/auth.ts";
import { TRACKER_BUNDLE } from "../../../tracker/scripts/build.ts";
import { launchBrowser } from "../../../tracker/test/support/browser.ts";
import { type DashboardServer, startDashboard } from "../../scripts/launch.ts";

export { ADMIN_EMAIL, ADMIN_PASSWORD, UA };

export interface OpenOptions {
  readonly dark?: boolean;
  readonly mobile?: boolean;
  readonly javaScript?: boolean;
  /** Cookies of an earlier sign-in (`context.storageState()`): the login limiter allows 10 a minute. */
  readonly storageState?: Awaited<ReturnType<BrowserContext["storageState"]>>;
  /** For injecting axe-core into pages whose CSP allows only their own scripts. */
  readonly bypassCSP?: boolean;
}

export interface Stack {
  readonly gateway: Harness;
  readonly dashboard: DashboardServer;
  readonly browser: Browser;
  /** Stops the dashboard server and starts it again on the same port (a dropped connection for the browser). */
  restartDashboard(downMs: number): Promise<void>;
  /** A fresh browser context on the dashboard, with uncaught page errors collected. */
  open(options?: OpenOptions): Promise<{ context: BrowserContext; page: Page; errors: Error[] }>;
  /** Signs in through the form and lands on /app. */
  signIn(page: Page): Promise<void>;
  close(): Promise<void>;
}

// 375 × 812: the narrowest phone the dashboard supports (iPhone X/11 Pro/12 mini class).
export const MOBILE = { width: 375, height: 812 } as const;
const DESKTOP = { width: 1280, height: 900 } as const;

export async function startStack(options: { sites?: string[]; env?: Record<string, string> } = {}): Promise<Stack> {
  // Loopback trusted as `npm start` sets it (scripts/start.ts): the dashboard's X-Forwarded-For is believed.
  const gateway = await startHarness({ sites: options.sites ?? [], env: { SVC_TRACKER_PATH: TRACKER_BUNDLE, SVC_TRUST_PROXY: "127.0.0.1,::1", ...options.env } });
  let dashboard = await startDashboard(gateway.base);
  const browser = await launchBrowser();
  const contexts: BrowserContext[] = [];
  return {
    gateway,
    get dashboard() {
      return dashboard;
    },
    browser,
    async restartDashboard(downMs) {
      const port = Number(new URL(dashboard.base).port);
      await dashboard.close();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      dashboard = await startDashboard(gateway.base, {}, port);
    },
    async open(o = {}) {
      const context = await browser.newContext({
        baseURL: dashboard.base,
        viewport: o.mobile ? MOBILE : DESKTOP,
        colorScheme: o.dark ? "dark" : "light",
        javaScriptEnabled: o.javaScript ?? true,
        bypassCSP: o.bypassCSP ?? false,
        ...(o.storageState ? { storageState: o.storageState } : {}),
        // An ordinary desktop browser: the dashboard's own requests never reach ingest anyway.
        userAgent: UA.chrome,
      });
      contexts.push(context);
      const page = await context.newPage();
      const errors: Error[] = [];
      page.on("pageerror", (error) => errors.push(error));
      if (o.javaScript ?? true) awaitHydration(page);
      return { context, page, errors };
    },
    async signIn(page) {
      await page.goto("/app/login");
      await page.getByLabel("Email").fill(ADMIN_EMAIL);
      await page.getByLabel("Password").fill(ADMIN_PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL((url) => url.pathname === "/app");
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => {});
      await browser.close();
      await dashboard.close();
      await gateway.close();
    },
  };
}

// A click or a keystroke that lands on the server-rendered page before its script takes over does nothing, and
// the test then waits 30 s for what never comes (five CI flakes so far, the last a country-map toggle). So a
// dashboard page's goto and reload return once the root layout has marked the page hydrated; anything else
// (a fixture page, a file) returns as Playwright's would.
function awaitHydration(page: Page): void {
  const hydrated = () => page.waitForFunction(() => !document.body?.hasAttribute("data-sveltekit-preload-data") || document.documentElement.dataset["hydrated"] !== undefined);
  const goto = page.goto.bind(page);
  const reload = page.reload.bind(page);
  page.goto = async (...args) => {
    const response = await goto(...args);
    await hydrated();
    return response;
  };
  page.reload = async (...args) => {
    const response = await reload(...args);
    await hydrated();
    return response;
  };
}
