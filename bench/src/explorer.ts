// npm run bench:explorer [-- --rows 200000 --days 30 --runs 5 | --rows 10000000 | --reuse URL [--data-dir DIR]] [--settled] [--bundle PATH]
// Time to filtered numbers (issue 23): in real Chromium through the dashboard server and the gateway process,
// the site view of bench:read's site; a click on the top row of the Sources card filters the view through
// POST /api/v2/query, and the time from the click to the filtered tiles' numbers on screen is measured, then
// to the Pages card's filtered rows. `--rows` defaults to 200,000 (a minute to load); `--rows 10000000` is the
// issue's dataset (several minutes), `--reuse URL` a database `bench:read --keep` or `bench:query --keep` left,
// with `--data-dir` the data directory that run kept (its Parquet day files are reused, not written again).
// Waits for the gateway's Parquet day files first, as bench:query does. Every POST /api/v2/query the page sends
// is followed: a run that times out says which were still pending and how the others answered (a 503 of the
// engine's admission queue, say). The last stdout line is one JSON object with the figures, beside the load
// average (the machine is shared). The click comes as soon as the Sources card shows its rows, while the
// unfiltered view's own engine query (its visit tiles) still runs: the engine drops or interrupts it when the
// page withdraws it; `--settled` clicks once the view's visit tiles are shown instead.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import { launchGateway } from "../../gateway/src/launch.ts";
import { DASHBOARD_DIR, DASHBOARD_ENTRY, startDashboard } from "../../dashboard/scripts/launch.ts";
import type { Page } from "playwright-core";
import { launchBrowser } from "../../tracker/test/support/browser.ts";
import { freshBenchDatabase } from "./bench-database.ts";
import { READ_BENCH_DOMAIN, benchSite, benchSize, percentile, reusedDatabase, settledDays, signedInPage, waitForDayFiles } from "./site-load.ts";

const { values: args } = parseArgs({
  options: {
    rows: { type: "string", default: "200000" },
    days: { type: "string", default: "30" },
    runs: { type: "string", default: "5" },
    reuse: { type: "string" },
    "data-dir": { type: "string" },
    settled: { type: "boolean", default: false },
    // Another build's gateway bundle, run as it is (an A/B against the code before a change, as bench:ingest's --against).
    bundle: { type: "string" },
  },
});
const { rows: ROWS, days: DAYS, requests: RUNS } = benchSize({ rows: args.rows, days: args.days, requests: args.runs }, { days: 2, requests: 1 });
// The issue's target: a filtered view's numbers on screen at most 1.5 s after the click.
const TARGET_MS = 1_500;
const log = (line: string) => console.log(`[bench:explorer] ${line}`);
const round = (n: number) => Math.round(n);

/** The page's POST /api/v2/query requests since the last `reset`: when each was sent and how it ended. */
function followQueries(page: Page) {
  type Followed = { body: string; sentAt: number; status: number | null; failed: string | null; doneAt: number | null };
  let list: Followed[] = [];
  const mine = new Map<object, Followed>();
  page.on("request", (request) => {
    if (request.method() !== "POST" || !request.url().includes("/api/v2/query")) return;
    const f: Followed = { body: request.postData() ?? "", sentAt: performance.now(), status: null, failed: null, doneAt: null };
    mine.set(request, f);
    list.push(f);
  });
  page.on("requestfinished", (request) => {
    const f = mine.get(request);
    if (f === undefined) return;
    f.doneAt = performance.now();
    void request.response().then((response) => (f.status = response?.status() ?? null));
  });
  page.on("requestfailed", (request) => {
    const f = mine.get(request);
    if (f === undefined) return;
    f.doneAt = performance.now();
    f.failed = request.failure()?.errorText ?? "failed";
  });
  /** What a query asked, in a few words: its dimensions (or "totals") and metrics. */
  const what = (body: string): string => {
    try {
      const q = JSON.parse(body) as { dimensions?: string[]; metrics?: string[] };
      return `${q.dimensions?.join(",") || "totals"} [${q.metrics?.join(",") ?? ""}]`;
    } catch {
      return body.slice(0, 60);
    }
  };
  return {
    reset: () => (list = []),
    /** Whether every query sent has ended (and none followed for 300 ms) within `timeoutMs`. */
    settled: async (timeoutMs: number): Promise<boolean> => {
      const until = performance.now() + timeoutMs;
      while (performance.now() < until) {
        const last = Math.max(0, ...list.map((f) => f.doneAt ?? Number.POSITIVE_INFINITY));
        if (last !== Number.POSITIVE_INFINITY && performance.now() - last > 300) return true;
        await new Promise((r) => setTimeout(r, 50));
      }
      return false;
    },
    /** Statuses other than 200 among the finished ones. */
    refused: () => list.filter((f) => f.status !== null && f.status !== 200).map((f) => `${what(f.body)} ${f.status}`),
    report: (since: number): string =>
      list
        .map((f) => `  ${what(f.body)}: sent +${round(f.sentAt - since)} ms, ${f.doneAt === null ? "STILL PENDING" : f.failed ?? `answered ${f.status ?? "?"} at +${round(f.doneAt - since)} ms`}`)
        .join("\n") || "  (no POST /api/v2/query sent)",
  };
}

async function main(): Promise<void> {
  if (!existsSync(DASHBOARD_ENTRY)) execFileSync("npm", ["run", "build", "-w", "dashboard"], { cwd: `${DASHBOARD_DIR}/..`, stdio: "inherit" });
  const db = args.reuse ? await reusedDatabase(args.reuse) : await freshBenchDatabase("bench_explorer", { keep: false, log });
  const dataDir = args["data-dir"] ?? mkdtempSync(path.join(os.tmpdir(), "svc-bench-explorer-"));
  let gateway: Awaited<ReturnType<typeof launchGateway>> | null = null;
  let dashboard: Awaited<ReturnType<typeof startDashboard>> | null = null;
  const browser = await launchBrowser();
  try {
    const { siteId, loaded } = await benchSite(db, { reused: args.reuse !== undefined, rows: ROWS, days: DAYS, log });
    const settled = await settledDays(db.pool, siteId);
    gateway = await launchGateway({ DATABASE_URL: db.url, SVC_DATA_DIR: dataDir }, args.bundle === undefined ? {} : { bundle: args.bundle });
    await waitForDayFiles(dataDir, siteId, settled, log);
    dashboard = await startDashboard(`http://127.0.0.1:${gateway.port}`);
    const context = await browser.newContext({ baseURL: dashboard.base, viewport: { width: 1280, height: 900 } });
    const page = await signedInPage(context);
    const queries = followQueries(page);
    const refusals: string[] = [];

    const numbers: number[] = [];
    const cards: number[] = [];
    let source = "";
    let visitors = "";
    // Run 0 warms the gateway (DuckDB's first statements, today's rows copied once) and is left out.
    for (let run = 0; run <= RUNS; run++) {
      queries.reset();
      const opened = performance.now();
      await page.goto(`/app/sites/${READ_BENCH_DOMAIN}`);
      const top = page.locator('[data-testid="breakdown-source"] tbody tr a[data-filter-link]').first();
      await top.waitFor({ timeout: 60_000 });
      await page.locator('[data-status="live"]').waitFor({ timeout: 60_000 });
      if (args.settled) await page.locator('[data-metric="visits"][data-value]').waitFor({ timeout: 60_000 });
      source = (await top.textContent()) ?? "";
      // What the unfiltered view asked the engine before the click (still running or waiting then, it runs first).
      log(`run ${run}: before the click, ${round(performance.now() - opened)} ms after navigation, the view's queries (times from navigation):\n${queries.report(opened)}`);
      queries.reset();
      const started = performance.now();
      await top.click();
      // On a timeout, which of the view's queries were still pending and how the others answered.
      const waitFor = async (what: string, check: () => boolean) => {
        try {
          await page.waitForFunction(check, undefined, { polling: "raf", timeout: 120_000 });
        } catch (error) {
          log(`run ${run}: no ${what} 120 s after the click; the view's queries (times from the click):\n${queries.report(started)}`);
          throw error;
        }
      };
      await waitFor("filtered tiles", () => location.search.includes("f=") && !!document.querySelector('[data-metric="visits"][data-value]') && !!document.querySelector('[data-metric="visitors"][data-value]'));
      const shown = performance.now() - started;
      await waitFor("filtered pages card", () => document.querySelectorAll('[data-testid="breakdown-page"] tbody tr').length > 0);
      const cardsShown = performance.now() - started;
      visitors = (await page.locator('[data-metric="visitors"]').textContent()) ?? "";
      // Wait for the rest of the view's queries, so the next run starts on an idle engine, and count refusals.
      if (!(await queries.settled(120_000))) log(`run ${run}: queries still running 120 s after the click:\n${queries.report(started)}`);
      if (run > 0) refusals.push(...queries.refused());
      log(`run ${run}: the view's queries (times from the click):\n${queries.report(started)}`);
      if (run === 0) log(`warm-up: numbers ${round(shown)} ms after the click`);
      else {
        numbers.push(shown);
        cards.push(cardsShown);
        log(`run ${run}: ${source} → visitors ${visitors}: numbers ${round(shown)} ms, page card ${round(cardsShown)} ms after the click`);
      }
    }
    numbers.sort((a, b) => a - b);
    cards.sort((a, b) => a - b);
    const load = os.loadavg().map((x) => x.toFixed(1)).join(" ");
    const figures = (list: number[]) => ({ p50: round(percentile(list, 50)), p95: round(percentile(list, 95)), max: round(list.at(-1)!) });
    log(`filtered by source ${source}: numbers p50 ${round(percentile(numbers, 50))} / p95 ${round(percentile(numbers, 95))} ms after the click; load average ${load}`);
    console.log(JSON.stringify({
      bench: "explorer", rows: loaded.rows, days: DAYS, runs: RUNS, filter: `source is ${source}`,
      clicked: args.settled ? "after the view settled" : "while the view loads", click_to_numbers_ms: figures(numbers), click_to_page_card_ms: figures(cards), queries_not_200: refusals,
      target_ms: TARGET_MS, within_target: percentile(numbers, 95) <= TARGET_MS, load_average: load,
    }));
  } finally {
    await browser.close();
    await dashboard?.close();
    if (gateway) {
      gateway.child.kill("SIGTERM");
      await gateway.exited();
    }
    await db.dispose();
    if (args["data-dir"] === undefined) rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
