// npm run bench:dashboard [-- --reuse URL | --rows 10000000] [--runs 10] [--period 30d]
// Time to numbers: how long after a navigation the site view shows its numbers, over the 10M-row dataset of
// bench:read, in real Chromium through the dashboard server and the gateway process; and the JavaScript each
// page loads (gzip -9, from the build). Needs a loaded database: `--reuse URL` (one that
// `npm run bench:read -- --keep` left), or, with DATABASE_URL, it runs bench:read --keep itself first.
// The last stdout line is one JSON object with the figures.
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import type { BrowserContext, Page } from "playwright-core";
import { launchGateway } from "../../gateway/src/launch.ts";
import { pageJsWeight, type JsWeight } from "../../dashboard/scripts/js-weight.ts";
import { DASHBOARD_DIR, DASHBOARD_ENTRY, startDashboard } from "../../dashboard/scripts/launch.ts";
import { launchBrowser } from "../../tracker/test/support/browser.ts";
import { signedInPage } from "./site-load.ts";

const { values: args } = parseArgs({
  options: {
    reuse: { type: "string" },
    rows: { type: "string", default: "10000000" },
    runs: { type: "string", default: "10" },
    // The site view's period: 30d reads the daily rollups (settled days cached), 24h the hourly ones uncached.
    period: { type: "string", default: "30d" },
  },
});
const RUNS = Number(args.runs);
// bench:read's site and window.
const DOMAIN = "read-bench.example";
const TARGET_MS = 1_000;
const log = (line: string) => console.log(`[bench:dashboard] ${line}`);
const round = (n: number) => Math.round(n);

/** Runs bench:read with --keep and returns the URL of the database it loaded. */
async function loadDataset(): Promise<string> {
  const server = process.env.DATABASE_URL;
  if (!server) throw new Error("bench:dashboard needs --reuse URL or DATABASE_URL (bench:read --keep works only with DATABASE_URL)");
  log(`loading ${Number(args.rows).toLocaleString("en")} rows with bench:read --keep (several minutes)`);
  const child = spawn(process.execPath, ["--import", "tsx", "bench/src/read.ts", "--keep", "--requests", "10", "--rows", args.rows!], { stdio: ["ignore", "pipe", "inherit"] });
  let output = "";
  child.stdout.on("data", (c: Buffer) => {
    output += c.toString();
    process.stdout.write(c);
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const kept = /kept database (\w+)/.exec(output);
  if (code !== 0 || !kept) throw new Error(`bench:read failed (${code})`);
  const url = new URL(server);
  url.pathname = `/${kept[1]}`;
  return url.toString();
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function main(): Promise<void> {
  if (!existsSync(DASHBOARD_ENTRY)) execFileSync("npm", ["run", "build", "-w", "dashboard"], { cwd: `${DASHBOARD_DIR}/..`, stdio: "inherit" });
  const databaseUrl = args.reuse ?? (await loadDataset());
  const gateway = await launchGateway({ DATABASE_URL: databaseUrl });
  const api = `http://127.0.0.1:${gateway.port}`;
  const dashboard = await startDashboard(api);
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext({ baseURL: dashboard.base, viewport: { width: 1280, height: 900 } });
    await signedInPage(context);
    const state = await context.storageState();

    const view = `/app/sites/${DOMAIN}?period=${args.period}`;
    /** One navigation to the site view in a new tab: when the tiles hold numbers, when every card has. */
    const timeView = async (tabContext: BrowserContext): Promise<{ numbers: number; cards: number; visitors: string }> => {
      const tab = await tabContext.newPage();
      const started = performance.now();
      await tab.goto(view, { waitUntil: "commit" });
      await tab.waitForFunction(() => /\d/.test(document.querySelector('[data-metric="visitors"]')?.textContent ?? ""), undefined, { polling: "raf", timeout: 30_000 });
      const numbers = performance.now() - started;
      await tab.waitForFunction(() => document.querySelectorAll('[data-testid="breakdown-page"] tbody tr').length > 0 && !!document.querySelector('[data-testid="ai-panel"] table'), undefined, { polling: "raf", timeout: 30_000 });
      const cards = performance.now() - started;
      const visitors = (await tab.locator('[data-metric="visitors"]').textContent()) ?? "";
      await tab.close();
      return { numbers, cards, visitors };
    };
    const options = { baseURL: dashboard.base, viewport: { width: 1280, height: 900 }, storageState: state };
    // Cold: a new browser context per run (no HTTP cache: a first visit). Warm: one context whose cache holds
    // the immutable bundle (a returning user opening the dashboard). Run 0 after boot is reported apart (the
    // gateway's settled-days cache is empty then).
    const first = await timeView(await browser.newContext(options));
    log(`first view after boot: numbers ${round(first.numbers)} ms, every card ${round(first.cards)} ms`);
    const warmContext = await browser.newContext(options);
    await timeView(warmContext);
    const cold: number[] = [];
    const warm: number[] = [];
    const cardsMs: number[] = [];
    let shown = "";
    for (let run = 0; run < RUNS; run++) {
      const fresh = await browser.newContext(options);
      const c = await timeView(fresh);
      await fresh.close();
      cold.push(c.numbers);
      cardsMs.push(c.cards);
      const w = await timeView(warmContext);
      warm.push(w.numbers);
      shown = w.visitors;
    }
    for (const list of [cold, warm, cardsMs]) list.sort((a, b) => a - b);
    const figures = (list: number[]) => ({ p50: round(percentile(list, 50)), p95: round(percentile(list, 95)), max: round(list.at(-1)!) });
    log(`visitors tile shows ${shown}: numbers after navigation, cold p50 ${round(percentile(cold, 50))} / p95 ${round(percentile(cold, 95))} ms, warm p50 ${round(percentile(warm, 50))} / p95 ${round(percentile(warm, 95))} ms; every card (cold) p50 ${round(percentile(cardsMs, 50))} ms`);

    const weights: Record<string, JsWeight> = {};
    const routes: Record<string, { path: string; ready: string }> = {
      login: { path: "/app/login", ready: "form" },
      sites: { path: "/app", ready: `a[href="/app/sites/${DOMAIN}"]` },
      site_view: { path: view, ready: '[data-testid="ai-panel"] table' },
      settings: { path: "/app/settings", ready: '[data-testid="llm"] select' },
    };
    for (const [name, route] of Object.entries(routes)) {
      const fresh = await browser.newContext({ baseURL: dashboard.base, storageState: state });
      const tab: Page = await fresh.newPage();
      await tab.goto(route.path);
      await tab.locator(route.ready).first().waitFor({ timeout: 30_000 });
      weights[name] = await pageJsWeight(tab);
      log(`${name}: ${weights[name]!.files} scripts, ${(weights[name]!.gzipBytes / 1024).toFixed(1)} KB gzip (${(weights[name]!.rawBytes / 1024).toFixed(1)} KB raw)`);
      await fresh.close();
    }
    console.log(
      JSON.stringify({
        bench: "dashboard",
        runs: RUNS,
        period: args.period,
        time_to_numbers_ms: { cold: figures(cold), warm: figures(warm), first_after_boot: round(first.numbers) },
        time_to_every_card_ms: figures(cardsMs),
        js_gzip_bytes: Object.fromEntries(Object.entries(weights).map(([k, w]) => [k, w.gzipBytes])),
        target_ms: TARGET_MS,
        within_target: { cold: percentile(cold, 95) <= TARGET_MS, warm: percentile(warm, 95) <= TARGET_MS },
        js_budget_bytes: 100 * 1024,
        within_js_budget: weights.site_view!.gzipBytes <= 100 * 1024,
      }),
    );
  } finally {
    await browser.close();
    await dashboard.close();
    gateway.child.kill("SIGTERM");
    await gateway.exited();
  }
}

await main();
