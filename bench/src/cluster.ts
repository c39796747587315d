// npm run bench:cluster — svc as several gateways behind HAProxy on one PostgreSQL, through failures.
//
// 1. Throughput: one gateway without HAProxy (the default `npm start`), one behind HAProxy, three behind
//    HAProxy: events/s and latency p50/p99/p99.9 of a load of events for --sites sites (Zipf-skewed).
// 2. Under load on three gateways, in turn: kill -9 of one; kill -STOP of one for --pause seconds, then -CONT
//    (the zombie); pg_terminate_backend of one's owner session; a HAProxy restart; a fourth gateway added,
//    then removed. After each: every 202'd event stored exactly once, no event stored twice, no site with two
//    owners (pg_locks sampled every 100 ms), every rollup equal to its recount from the raw rows; the zombie's
//    202s after it resumed all for sites it locked again on a new session. Printed: the failover gap per moved
//    site (failure → first 202 elsewhere), 503s per failure, the share of sites moved when a gateway joins.
// 3. Takeover time against the size of the site's day (--takeover-rows, rows loaded by COPY), with how long the
//    new owner's event loop was held (its slowest answer to a tracker-script fetch) and whether it kept its owner session.
// 4. Lock slots: site locks held per 1,000 active sites, against the server's lock table.
//
// `--skip throughput,failures` runs the takeovers alone (3 gateways still start).
//
// Every request of the load carries `?d=` and retries a 503 (at most --attempts times) as the tracker does.
import os from "node:os";
import { parseArgs } from "node:util";
import { HOUR_MS, utcDayStart } from "@svc/core";
import { PLACEHOLDER_ADMIN_PASSWORD } from "../../gateway/src/auth/auth-config.ts";
import { type LocalCluster, startLocalCluster } from "../../gateway/src/cluster/local-cluster.ts";
import { launchGateway } from "../../gateway/src/launch.ts";
import { ensureMonthlyPartitions } from "../../gateway/src/storage/partitions.ts";
import { addSite } from "../../gateway/src/storage/sites.ts";
import { type Ack, checkExactness, driveEvents, type LoadStats, LockSampler, percentile } from "../../gateway/test/support/cluster-probe.ts";
import { freshBenchDatabase } from "./bench-database.ts";
import { copyRows } from "./generated-rows.ts";

const { values: args } = parseArgs({
  options: {
    sites: { type: "string", default: "200" },
    workers: { type: "string", default: "32" },
    seconds: { type: "string", default: "10" },
    pause: { type: "string", default: "20" },
    attempts: { type: "string", default: "30" },
    "takeover-rows": { type: "string", default: "1000,100000,1000000" },
    skip: { type: "string", default: "" },
  },
});
const SITES = Number(args.sites);
const WORKERS = Number(args.workers);
const SECONDS = Number(args.seconds);
const PAUSE_S = Number(args.pause);
const ATTEMPTS = Number(args.attempts);
const TAKEOVER_ROWS = args["takeover-rows"].split(",").filter(Boolean).map(Number);
const SKIP = new Set(args.skip.split(",").filter(Boolean));
const WARMUP_S = 5;

const log = (line: string) => console.log(line);
/** The figures, printed as one JSON object on the last line (as every bench/ script does). */
const summary: Record<string, unknown> = {};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const DOMAINS = Array.from({ length: SITES }, (_, i) => `site${i}.bench`);
// The per-client limit would count HAProxy as one client; an admin password keeps the placeholder warnings out.
const ENV = { SVC_EVENT_RATE_PER_CLIENT: "0", SVC_ADMIN_PASSWORD: PLACEHOLDER_ADMIN_PASSWORD };

function figures(run: { stats: LoadStats; seconds: number }) {
  const sorted = [...run.stats.latencies].sort((a, b) => a - b);
  return { events_per_s: Math.round(run.stats.acked.size / run.seconds), p50_ms: percentile(sorted, 50), p99_ms: percentile(sorted, 99), p999_ms: percentile(sorted, 99.9) };
}

function latency(stats: LoadStats): string {
  const sorted = [...stats.latencies].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms, p99.9 ${percentile(sorted, 99.9)} ms`;
}

let runs = 0;

async function load(base: string, seconds: number, during?: (elapsed: () => number) => Promise<void>): Promise<{ stats: LoadStats; seconds: number }> {
  const stop = { now: false };
  const started = performance.now();
  const running = driveEvents({ base, tag: `r${++runs}-`, domains: DOMAINS, visitorsPerSite: 200, workers: WORKERS, retryDelayMs: 1000, maxAttempts: ATTEMPTS }, stop);
  if (during) await during(() => (performance.now() - started) / 1000);
  const rest = seconds * 1000 - (performance.now() - started);
  if (rest > 0) await sleep(rest);
  stop.now = true;
  const stats = await running;
  return { stats, seconds: (performance.now() - started) / 1000 };
}

async function main(): Promise<void> {
  const db = await freshBenchDatabase("cluster", { log });
  const clusters: LocalCluster[] = [];
  try {
    await ensureMonthlyPartitions(db.pool, Date.now());
    for (const domain of DOMAINS) await addSite(db.pool, { domain });
    const sites = new Map((await db.pool.query<{ id: number; domain: string }>("select id, domain from sites")).rows.map((r) => [r.domain, r.id]));
    const domainOf = new Map([...sites].map(([domain, id]) => [id, domain]));
    const env = { ...ENV, DATABASE_URL: db.url };
    log(`bench:cluster — ${SITES} sites (Zipf 1), ${WORKERS} connections, ${SECONDS} s per run, load average ${loadAverage()}`);

    // 1. Throughput.
    if (!SKIP.has("throughput")) {
      // Each timed run follows a warm-up of every site (a site's first row rebuilds its state; in a cluster it
      // also locks the site and answers 503 + Retry-After meanwhile).
      const direct = await launchGateway(env);
      await load(`http://127.0.0.1:${direct.port}`, WARMUP_S);
      const one = await load(`http://127.0.0.1:${direct.port}`, SECONDS);
      direct.child.kill("SIGTERM");
      await direct.exited();
      log(`1 gateway, no HAProxy (npm start):   ${Math.round(one.stats.acked.size / one.seconds)} events/s, ${latency(one.stats)}`);
      summary.one_direct = figures(one);
      const single = await startLocalCluster({ gateways: 1, env });
      await load(single.base, WARMUP_S);
      const hop = await load(single.base, SECONDS);
      await single.stop();
      log(`1 gateway behind HAProxy (cluster):  ${Math.round(hop.stats.acked.size / hop.seconds)} events/s, ${latency(hop.stats)}`);
      summary.one_haproxy = figures(hop);
    }

    const cluster = await startLocalCluster({ gateways: 3, env });
    clusters.push(cluster);
    await load(cluster.base, WARMUP_S);
    if (!SKIP.has("throughput")) {
      const three = await load(cluster.base, SECONDS);
      log(`3 gateways behind HAProxy (cluster): ${Math.round(three.stats.acked.size / three.seconds)} events/s, ${latency(three.stats)}`);
      summary.three_haproxy = figures(three);
    }

    // 2. Failures under load (--skip failures leaves them out: the takeover figures alone).
    let lockedAtLoad = 0;
    let activeAtLoad = 0;
    if (!SKIP.has("failures")) {
      const sampler = new LockSampler(db.pool);
      sampler.start();
      const ownersOf = (gateway: string) => [...sampler.current].filter(([, owner]) => owner.startsWith(`svc-owner:${gateway}#`)).map(([site]) => site);
      const allAcks = new Map<string, Ack>();
    let lastRunSites = 0;
      const scenario = async (name: string, act: (elapsed: () => number) => Promise<{ at: number; moved?: number[]; gateway?: string; extra?: string }>) => {
        let event: { at: number; moved?: number[]; gateway?: string; extra?: string } = { at: 0 };
        const run = await load(cluster.base, SECONDS + (name === "kill -STOP" ? PAUSE_S : 0), async (elapsed) => {
          while (elapsed() < 3) await sleep(100);
          event = await act(elapsed);
        });
        for (const [n, a] of run.stats.acked) allAcks.set(n, a);
      lastRunSites = new Set([...run.stats.acked.values()].map((a) => a.site)).size;
        await sleep(2500); // the rollup flushes of the last commits
        await sampler.sample();
        const exact = await checkExactness(db.pool, allAcks);
        const gaps: number[] = [];
        for (const siteId of event.moved ?? []) {
          const domain = domainOf.get(siteId);
          let first = Infinity;
          for (const a of run.stats.acked.values()) if (a.site === domain && a.at > event.at && a.gateway !== event.gateway && a.at < first) first = a.at;
          if (first !== Infinity) gaps.push(first - event.at);
        }
        gaps.sort((a, b) => a - b);
        const ok = exact.missing === 0 && exact.duplicates === 0 && exact.rollupMismatches.length === 0 && sampler.twoOwners === 0;
        log(
          `${name.padEnd(22)} ${ok ? "EXACT" : "NOT EXACT"}: ${run.stats.acked.size} events 202'd (${Math.round(run.stats.acked.size / run.seconds)}/s), ` +
            `503s ${run.stats.retried503}, given up ${run.stats.givenUp}, missing ${exact.missing}, stored twice ${exact.duplicates}, ` +
            `rollup mismatches ${exact.rollupMismatches.length}, two owners ${sampler.twoOwners}` +
            (gaps.length > 0 ? `; failover gap over ${gaps.length} moved sites p50 ${percentile(gaps, 50)} ms, max ${gaps.at(-1)} ms` : "") +
            (event.extra ? `; ${event.extra}` : ""),
        );
        summary[name] = { exact: ok, acked: run.stats.acked.size, unavailable_503: run.stats.retried503, given_up: run.stats.givenUp, gap_p50_ms: percentile(gaps, 50), gap_max_ms: gaps.at(-1) ?? null, note: event.extra ?? null };
        if (!ok) process.exitCode = 1;
      };

      await scenario("kill -9", async () => {
        const victim = cluster.members[0]!;
        const moved = ownersOf(victim.name);
        victim.process.child.kill("SIGKILL");
        const at = Date.now();
        return { at, moved, gateway: victim.name };
      });
      await cluster.remove(cluster.members[0]!.name);
      await cluster.add();

      await scenario("kill -STOP", async (elapsed) => {
        const zombie = cluster.members[0]!;
        const moved = ownersOf(zombie.name);
        const oldSession = [...sampler.current.values()].find((o) => o.startsWith(`svc-owner:${zombie.name}#`));
        zombie.process.child.kill("SIGSTOP");
        const at = Date.now();
        const until = elapsed() + PAUSE_S;
        while (elapsed() < until) await sleep(100);
        zombie.process.child.kill("SIGCONT");
        const resumed = Date.now();
        // Every 202 the zombie gave after resuming must be for a site it locked again, on a new session.
        await sleep(3000);
        let stale = 0;
        for (const c of sampler.changes) if (c.at > resumed && c.owner === oldSession) stale++;
        return { at, moved, gateway: zombie.name, extra: `zombie resumed after ${PAUSE_S} s: its old session ${oldSession ? "was ended by PostgreSQL" : "held nothing"}, locks seen on it afterwards: ${stale}` };
      });

      await scenario("pg_terminate_backend", async () => {
        const victim = cluster.members[1]!;
        const moved = ownersOf(victim.name);
        const { rows } = await db.pool.query<{ pid: number }>("select pid from pg_stat_activity where application_name = $1", [`svc-owner:${victim.name}`]);
        for (const r of rows) await db.pool.query("select pg_terminate_backend($1)", [r.pid]);
        return { at: Date.now(), moved, extra: `${victim.name} took its ${moved.length} sites back on a new session` };
      });

      await scenario("HAProxy restart", async () => {
        await cluster.restartHaproxy();
        return { at: Date.now() };
      });

      await scenario("add, then remove", async () => {
        const joined = await cluster.add();
        // Where HAProxy routes each site now: one request per site, its answering gateway (x-svc-gateway).
        let routed = 0;
        for (let i = 0; i < DOMAINS.length; i += 20) {
          const answers = await Promise.all(DOMAINS.slice(i, i + 20).map((domain) => routeOf(cluster.base, domain)));
          routed += answers.filter((g) => g === joined.name).length;
        }
        await sleep(4000);
        await sampler.sample();
        const taken = ownersOf(joined.name).length;
        await cluster.remove(joined.name);
        return { at: Date.now(), extra: `a 4th gateway joined: HAProxy routes ${routed} of ${DOMAINS.length} sites to it (${((100 * routed) / DOMAINS.length).toFixed(0)} %; 1/4 = 25 % expected), ${taken} locked by it within 4 s; then it left` };
      });
      sampler.stop();
      // Lock slots while the 200 sites have traffic: the locks held at the end of the failures, per site that had a 202 in the last run.
      lockedAtLoad = sampler.current.size;
      activeAtLoad = lastRunSites;
    }

    // 3. Takeover time against the size of the site's day. The rows span what a takeover recounts: today so far,
    // and yesterday too in the first hour of the day (a day of N rows over 24 hours at 00:xx, like a busy site at
    // 23:00). Meanwhile a light load on the other sites runs, every gateway's tracker script (served from memory) is
    // fetched every 100 ms (its slowest answer is how long a gateway's event loop was held), and any owner session ended
    // during the takeover is counted (a held loop misses the heartbeat: the site is lost and rebuilt again).
    for (const rows of TAKEOVER_ROWS) {
      const domain = `takeover-${rows}.bench`;
      const siteId = await addSite(db.pool, { domain }).then((s) => s.id);
      const now = Date.now();
      const from = utcDayStart(now - HOUR_MS);
      const events = Math.round(rows * 0.75);
      await copyRows(db.url, { kind: "events", siteId, domain, dayStart: from, span: now - from - 1000, n: events });
      await copyRows(db.url, { kind: "hits", siteId, domain, dayStart: from, span: now - from - 1000, n: rows - events });
      const lostBefore = sessionsEnded(cluster);
      const heldBefore = cluster.members.map((m) => m.process.output.length);
      const stopLoad = { now: false };
      const others = driveEvents({ base: cluster.base, tag: `t${rows}-`, domains: DOMAINS, visitorsPerSite: 200, workers: 4, retryDelayMs: 1000, maxAttempts: ATTEMPTS }, stopLoad);
      const probes = cluster.members.map((m) => probeLoop(`http://127.0.0.1:${m.process.port}`));
      const started = Date.now();
      const result = await driveOne(cluster.base, domain);
      const slowest = await Promise.all(probes.map((p) => p.stop()));
      stopLoad.now = true;
      const load = await others;
      const line = cluster.members.flatMap((m) => m.process.output).find((l) => l.includes("site taken over") && l.includes(`"site":${siteId},`));
      const ms = line ? /"ms":(\d+)/.exec(line)?.[1] : "?";
      const replaceMs = line ? /"replace_ms":(\d+)/.exec(line)?.[1] : "?";
      const recounted = line ? /"rows":(\d+)/.exec(line)?.[1] : "?";
      const owner = cluster.members.findIndex((m) => m.name === result.gateway);
      const lost = sessionsEnded(cluster) - lostBefore;
      // Heartbeats held back a whole interval (a third of SVC_OWNER_TIMEOUT_MS) by the event loop, on any gateway.
      const heldBack = cluster.members.flatMap((m, i) => m.process.output.slice(heldBefore[i]).filter((l) => l.includes("held the owner heartbeat back")));
      const sorted = [...load.latencies].sort((a, b) => a - b);
      const figures = {
        rows_recounted: Number(recounted), rebuilt_ms: Number(ms), rollups_replaced_ms: Number(replaceMs), first_202_ms: result.at - started, unavailable_503: result.retries,
        owner_sessions_ended: lost, heartbeats_held_back: heldBack.length, slowest_loop_probe_ms: slowest[owner] ?? null, other_sites_p99_ms: percentile(sorted, 99), other_sites_max_ms: sorted.at(-1) ?? null,
      };
      log(
        `takeover of a ${rows.toLocaleString("en")}-row day (${figures.rows_recounted.toLocaleString("en")} rows recounted): rebuilt in ${ms} ms (replacing the rollups on the owner session ${replaceMs} ms), ` +
          `first 202 after ${figures.first_202_ms} ms (${result.retries} × 503 + Retry-After meanwhile); owner sessions ended ${lost}, heartbeats held back a whole interval ${heldBack.length}; ` +
          `slowest tracker-script fetch from the owner ${figures.slowest_loop_probe_ms} ms; ` +
          `other sites meanwhile p99 ${figures.other_sites_p99_ms} ms, max ${figures.other_sites_max_ms} ms; load average ${loadAverage()}`,
      );
      summary[`takeover_${rows}_rows`] = figures;
      sites.set(domain, siteId);
    }

    // 4. Lock slots (counted while the failures' load ran).
    if (!SKIP.has("failures")) {
      const held = (await db.pool.query<{ n: number }>("select count(*)::int as n from pg_locks where locktype = 'advisory' and classid = $1 and granted", [0x53564331])).rows[0]!.n;
      const { rows: settings } = await db.pool.query<{ name: string; setting: string }>("select name, setting from pg_settings where name in ('max_locks_per_transaction', 'max_connections', 'max_prepared_transactions')");
      const s = Object.fromEntries(settings.map((r) => [r.name, Number(r.setting)]));
      const table = s.max_locks_per_transaction! * (s.max_connections! + s.max_prepared_transactions!);
      const active = activeAtLoad;
      summary.lock_slots_per_1000_active_sites = Math.round((1000 * lockedAtLoad) / Math.max(1, active));
      summary.lock_table_slots = table;
      log(`lock slots: ${lockedAtLoad} site locks held for ${active} sites with 202s in the last run = ${summary.lock_slots_per_1000_active_sites} per 1,000 active sites (${held} held now); the server's lock table holds ${table.toLocaleString("en")} (max_locks_per_transaction ${s.max_locks_per_transaction} × ${s.max_connections! + s.max_prepared_transactions!} connections)`);
    }
    console.log(JSON.stringify(summary));
  } finally {
    for (const c of clusters) await c.stop().catch(() => undefined);
    await db.dispose();
  }
}

async function routeOf(base: string, domain: string): Promise<string | null> {
  const res = await fetch(`${base}/api/event?d=${domain}`, { method: "POST", headers: { "content-type": "text/plain", "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0.0.0 Safari/537.36" }, body: JSON.stringify({ d: domain, u: `https://${domain}/route-probe/${domain}` }) });
  await res.arrayBuffer();
  return res.headers.get("x-svc-gateway");
}

async function driveOne(base: string, domain: string): Promise<{ at: number; retries: number; gateway: string | null }> {
  for (let retries = 0; ; retries++) {
    const res = await fetch(`${base}/api/event?d=${domain}`, { method: "POST", headers: { "content-type": "text/plain", "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0.0.0 Safari/537.36" }, body: JSON.stringify({ d: domain, u: `https://${domain}/takeover` }) });
    await res.arrayBuffer();
    if (res.status === 202) return { at: Date.now(), retries, gateway: res.headers.get("x-svc-gateway") };
    if (res.status !== 503) throw new Error(`takeover probe answered ${res.status}`);
    await sleep(Number(res.headers.get("retry-after") ?? 1) * 1000);
  }
}

/** Owner sessions ended so far, by the gateways' log lines. */
function sessionsEnded(cluster: LocalCluster): number {
  return cluster.members.reduce((n, m) => n + m.process.output.filter((l) => l.includes("the owner session ended")).length, 0);
}

/** GET /js/svc.js (no database) every 100 ms, one at a time; `stop` resolves to the slowest answer's time (ms). */
function probeLoop(base: string): { stop: () => Promise<number> } {
  let running = true;
  let slowest = 0;
  const probing = (async () => {
    while (running) {
      const started = performance.now();
      await fetch(`${base}/js/svc.js`).then((r) => r.arrayBuffer(), () => undefined);
      slowest = Math.max(slowest, performance.now() - started);
      await sleep(100);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await probing;
      return Math.round(slowest);
    },
  };
}

function loadAverage(): string {
  return os.loadavg().map((l) => l.toFixed(1)).join(" ");
}

await main();
