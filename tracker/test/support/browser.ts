/**
 * Real Chromium for the tracker tests: Debian's `chromium` package driven by playwright-core
 * (nothing may download a browser here; `.ci/run` installs the package with apt-get).
 */
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

/** Where Debian installs it; SVC_CHROMIUM_PATH points elsewhere on other machines. */
export const CHROMIUM_PATH = process.env.SVC_CHROMIUM_PATH ?? "/usr/bin/chromium";

// Headless, and quiet: no background or update traffic mixes into what the capture server sees.
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** One browser per test file; each test opens its own context with `openPage`. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

export interface OpenedPage {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Uncaught exceptions of the page: anything the tracker throws into the host page lands here. */
  readonly pageErrors: Error[];
  readonly close: () => Promise<void>;
}

/** A fresh context (no cookies, empty storage) and one page in it, with its uncaught errors collected. */
export async function openPage(browser: Browser, initScripts: readonly string[] = []): Promise<OpenedPage> {
  const context = await browser.newContext();
  for (const content of initScripts) await context.addInitScript({ content });
  const page = await context.newPage();
  const pageErrors: Error[] = [];
  page.on("pageerror", (error) => pageErrors.push(error));
  return { context, page, pageErrors, close: () => context.close() };
}
