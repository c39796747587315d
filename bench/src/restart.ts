// npm run bench:restart [-- --rows 1000000]
// A clean restart of a busy day: loads `--rows` raw rows for one site into today (75 % events, 25 % hits,
// COPY of SQL-generated rows), then
//   1. boots a gateway as after a kill -9 (the repair mark set): it recounts the day's rollups before it
//      listens, and its first request replays the day into the site's visitor and visit state;
//   2. sends probe traffic (visitors with real hashes), stops it with SIGTERM: it saves the day state;
//   3. boots again and times spawn → listening and spawn → first 202 (the saved state is taken up, only rows
//      after its watermark are replayed), checks that the rollups are what the first gateway left;
//   4. sends the probe visitors again (returning: no new visitor may be counted), stops, and checks every
//      rollup of the day against a fresh recount of the raw rows.
// The last stdout line is one JSON object with the figures.
import { parseArgs } from "node:util";
import type pg from "pg";
import { type GatewayProcess, launchGateway } from "../../gateway/src/launch.ts";
import { bundleGateway } from "../../gateway/scripts/bundle.ts";
import { recountDay } from "../../gateway/src/rollups/day-rows.ts";
import { ensureMonthlyPartitions } from "../../gateway/src/storage/partitions.ts";
import { mergeRollups } from "../../gateway/src/rollups/rollup-writes.ts";
import { addSite } from "../../gateway/src/storage/sites.ts";
import { freshBenchDatabase } from "./bench-database.ts";
import { copyRows } from "./generated-rows.ts";
import { DAY_MS } from "@svc/core";

const { values: args } = parseArgs({ options: { rows: { type: "string", default: "1000000" } } });
const ROWS = Number(args.rows);
if (!Number.isInteger(ROWS) || ROWS < 1000) {
  console.error("usage: --rows N (≥ 1000)");
  process.exit(2);
}
const DOMAIN = "restart-bench.example";
const TARGET_S = 3;
const PROBE_VISITORS = 50;
const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const log = (line: string) => console.log(`[bench:restart] ${line}`);
const seconds = (ms: number) => Math.round(ms) / 1000;

interface Boot {
  readonly gw: GatewayProcess;
  readonly listeningMs: number;
  readonly firstAcceptedMs: number;
}

async function postEvent(port: number, visitor: number, path: string): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${port}/api/event`, {
    method: "POST",
    headers: { "content-type": "text/plain", "user-agent": CHROME, "x-forwarded-for": `10.0.${visitor >> 8}.${visitor & 255}` },
    body: JSON.stringify({ d: DOMAIN, u: `https://${DOMAIN}${path}`, r: visitor % 2 === 0 ? "https://chatgpt.com/" : null }),
  });
  await res.arrayBuffer();
  if (res.status !== 202) throw new Error(`event answered ${res.status}`);
}

/**
 * Spawns a gateway on the built bundle; times spawn → "listening", runs `whileListening` (untimed), then
 * times the first accepted event (visitor 0, counted before) and adds it to the listening time.
 */
async function boot(url: string, whileListening: () => Promise<void> = async () => undefined): Promise<Boot> {
  const started = performance.now();
  const gw = await launchGateway({ DATABASE_URL: url, SVC_TRUST_PROXY: "1" }, { rebuild: false });
  const listeningMs = performance.now() - started;
  await whileListening();
  const sent = performance.now();
  await postEvent(gw.port, 0, "/first");
  return { gw, listeningMs, firstAcceptedMs: listeningMs + performance.now() - sent };
}

async function stop(gw: GatewayProcess): Promise<number> {
  const started = performance.now();
  gw.child.kill("SIGTERM");
  const exit = await gw.exited();
  if (exit.code !== 0) throw new Error(`gateway exited ${JSON.stringify(exit)}:\n${gw.output.join("\n")}`);
  return performance.now() - started;
}

const probe = async (port: number, round: string) => {
  for (let v = 1; v <= PROBE_VISITORS; v++) await postEvent(port, v, `/probe/${round}/${v % 5}`);
};

/** The site's rollups of the day, one line per row, sorted. */
async function dumpRollups(pool: pg.Pool, siteId: number, dayStart: number): Promise<string[]> {
  const { rows } = await pool.query(
    `select 'd' as g, bucket::text as b, actor, dim, value, pageviews, events, hits, visitors from rollup_daily where site_id = $1 and bucket = $2::date
     union all
     select 'h', bucket::text, actor, dim, value, pageviews, events, hits, visitors from rollup_hourly where site_id = $1 and bucket >= $3 and bucket < $4`,
    [siteId, new Date(dayStart).toISOString().slice(0, 10), new Date(dayStart), new Date(dayStart + DAY_MS)],
  );
  return rows.map((r) => `${r.g}|${Date.parse(r.b.length === 10 ? `${r.b}T00:00:00Z` : r.b)}|${r.actor}|${r.dim}|${r.value}|${r.pageviews}|${r.events}|${r.hits}|${r.visitors}`).sort();
}

/** The same lines from a fresh replay of the day's raw rows. */
async function recountedRollups(pool: pg.Pool, siteId: number, dayStart: number): Promise<string[]> {
  const { counts } = await recountDay(pool, siteId, dayStart, { counts: true });
  const lines = (grain: "hour" | "day", g: string) =>
    mergeRollups(counts, grain).map((r) => `${g}|${r.bucket}|${r.actor}|${r.dim}|${r.value}|${r.pageviews}|${r.events}|${r.hits}|${r.visitors}`);
  return [...lines("day", "d"), ...lines("hour", "h")].sort();
}

const allVisitors = async (pool: pg.Pool, siteId: number, dayStart: number): Promise<number> =>
  Number(
    (await pool.query("select visitors from rollup_daily where site_id = $1 and bucket = $2::date and actor = 'all' and dim = 'total'", [siteId, new Date(dayStart).toISOString().slice(0, 10)])).rows[0]
      ?.visitors ?? 0,
  );

const sameLines = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((line, i) => line === b[i]);

async function main(): Promise<void> {
  await bundleGateway();
  const db = await freshBenchDatabase("bench_restart", { log });
  const gateways: GatewayProcess[] = [];
  try {
    const siteId = (await addSite(db.pool, { domain: DOMAIN })).id;
    const now = Date.now();
    const dayStart = now - (now % DAY_MS);
    // Rows up to a minute ago, so none lies in the future of the gateway's clock.
    const span = Math.max(60_000, now - dayStart - 60_000);
    await ensureMonthlyPartitions(db.pool, dayStart);
    const loadStart = performance.now();
    const events = Math.round(ROWS * 0.75);
    await copyRows(db.url, { kind: "events", siteId, domain: DOMAIN, dayStart, span, n: events });
    await copyRows(db.url, { kind: "hits", siteId, domain: DOMAIN, dayStart, span, n: ROWS - events });
    log(`loaded ${ROWS.toLocaleString("en")} rows into today in ${seconds(performance.now() - loadStart)} s`);
    // As after a kill -9: the first boot recounts today's rollups from the raw rows.
    await db.pool.query("update rollup_repair set from_hour = $1", [new Date(dayStart)]);

    const cold = await boot(db.url);
    gateways.push(cold.gw);
    log(`boot after a kill: listening after ${seconds(cold.listeningMs)} s (rollups recounted), first event accepted after ${seconds(cold.firstAcceptedMs)} s (the day replayed)`);
    await probe(cold.gw.port, "a");
    const stopMs = await stop(cold.gw);
    const saved = cold.gw.output.find((l) => l.includes("site states saved"));
    log(`clean stop in ${seconds(stopMs)} s: ${saved ?? "no state saved"}`);
    const before = await dumpRollups(db.pool, siteId, dayStart);
    const visitorsBefore = await allVisitors(db.pool, siteId, dayStart);

    let atListening: string[] = [];
    const warm = await boot(db.url, async () => {
      atListening = await dumpRollups(db.pool, siteId, dayStart);
    });
    gateways.push(warm.gw);
    const restored = warm.gw.output.some((l) => l.includes("site state restored from the last clean stop"));
    if (process.env.BENCH_RESTART_VERBOSE) for (const l of warm.gw.output) log(l);
    log(`clean restart: listening after ${seconds(warm.listeningMs)} s, first event accepted after ${seconds(warm.firstAcceptedMs)} s (state ${restored ? "restored" : "NOT restored"})`);
    const unchanged = sameLines(before, atListening);
    await probe(warm.gw.port, "b");
    await stop(warm.gw);
    const visitorsAfter = await allVisitors(db.pool, siteId, dayStart);
    const after = await dumpRollups(db.pool, siteId, dayStart);
    const recount = await recountedRollups(db.pool, siteId, dayStart);
    const exact = sameLines(after, recount);
    log(`rollups at the restart ${unchanged ? "equal" : "DIFFER FROM"} those the clean stop left`);
    log(`today's all-actor visitors: ${visitorsBefore} before the restart, ${visitorsAfter} after the returning probe visitors (must be equal)`);
    log(`rollups after the restart ${exact ? "equal" : "DIFFER FROM"} a recount of the raw rows (${after.length.toLocaleString("en")} rows)`);

    const figures = {
      bench: "restart",
      rows: ROWS,
      cold_boot_listening_s: seconds(cold.listeningMs),
      cold_boot_first_event_s: seconds(cold.firstAcceptedMs),
      clean_stop_s: seconds(stopMs),
      restart_listening_s: seconds(warm.listeningMs),
      restart_first_event_s: seconds(warm.firstAcceptedMs),
      state_restored: restored,
      visitors_before: visitorsBefore,
      visitors_after_returning: visitorsAfter,
      counts_identical: exact && visitorsBefore === visitorsAfter && unchanged,
      target_s: TARGET_S,
      within_target: warm.firstAcceptedMs <= TARGET_S * 1000,
    };
    console.log(JSON.stringify(figures));
    if (!figures.counts_identical || !restored) process.exitCode = 1;
  } finally {
    for (const gw of gateways) if (gw.child.exitCode === null && gw.child.signalCode === null) gw.child.kill("SIGKILL");
    await db.dispose();
  }
}

await main();
