// What the cluster test and `npm run bench:cluster` drive and check a cluster with: a load of events for many
// sites through HAProxy that retries 503s as the tracker does and records every 202, a sampler of the site
// locks (pg_locks every 100 ms, ownership changes logged), and the exactness checks (every 202'd event stored
// exactly once, every rollup equal to its recount from the raw rows).
import http from "node:http";
import type pg from "pg";
import { SITE_LOCK_CLASS } from "../../src/cluster/ownership.ts";
import { recomputedRollups, storedRollups } from "./recompute.ts";
import { zipfSampler } from "../../../bench/src/scenario.ts";

export interface Ack {
  readonly site: string;
  /** The gateway that answered 202 (HAProxy's x-svc-gateway header). */
  readonly gateway: string;
  /** When the 202 arrived (ms, Date.now()). */
  readonly at: number;
}

export interface LoadStats {
  sent: number;
  /** By event key (`<tag><n>`, its page is `/e/<key>`). */
  readonly acked: Map<string, Ack>;
  readonly statuses: Record<string, number>;
  /** 503s answered (each retried). */
  retried503: number;
  /** Events given up: a connection cut with the request sent (its outcome unknown), or 503s past the bound. */
  givenUp: number;
  /** Latency of each 202'd request, first attempt to 202 (ms). */
  readonly latencies: number[];
  /** 503s per second of the run (index = second since start). */
  readonly unavailableBySecond: number[];
}

export interface LoadOptions {
  readonly base: string;
  /** Prefix of this run's event keys, so the pages of several runs on one database never collide. */
  readonly tag: string;
  readonly domains: readonly string[];
  readonly visitorsPerSite: number;
  readonly workers: number;
  /** A 503 is retried after min(Retry-After, this) ms, at most `maxAttempts` times in all. */
  readonly retryDelayMs: number;
  readonly maxAttempts: number;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

// A client gives a request up after 5 s, as the middleware does (its timeoutMs): a paused gateway must not hold
// the load's connections (the rows may still be stored when it resumes: given up, never counted as 202'd).
const REQUEST_TIMEOUT_MS = 5_000;

function postOnce(base: string, path: string, body: string, ua: string): Promise<{ status: number; gateway: string | null; retryAfter: number }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method: "POST", agent, headers: { "content-type": "text/plain", "user-agent": ua, "content-length": Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, gateway: (res.headers["x-svc-gateway"] as string | undefined) ?? null, retryAfter: Number(res.headers["retry-after"] ?? 1) }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error("no answer within 5 s")));
    req.end(body);
  });
}

/** Posts events until `stop.now`; each event's page is `/e/<tag><n>`, so the raw rows say which were stored. */
export async function driveEvents(opts: LoadOptions, stop: { now: boolean }): Promise<LoadStats> {
  const stats: LoadStats = { sent: 0, acked: new Map(), statuses: {}, retried503: 0, givenUp: 0, latencies: [], unavailableBySecond: [] };
  // Site popularity: Zipf, exponent 1 (the ingest benchmark's scenario draws pages the same way).
  const pick = zipfSampler(opts.domains.length, Math.random);
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    while (!stop.now) {
      const n = next++;
      const domain = opts.domains[pick()]!;
      const visitor = Math.floor(Math.random() * opts.visitorsPerSite);
      const ua = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.${visitor}.0 Safari/537.36`;
      const key = `${opts.tag}${n}`;
      const body = JSON.stringify({ d: domain, u: `https://${domain}/e/${key}` });
      const first = Date.now();
      stats.sent++;
      for (let attempt = 1; ; attempt++) {
        let answer: Awaited<ReturnType<typeof postOnce>>;
        try {
          answer = await postOnce(opts.base, `/api/event?d=${encodeURIComponent(domain)}`, body, ua);
        } catch (error) {
          // Refused before anything was sent (HAProxy restarting): safe to send again. Anything else may have
          // reached a gateway and been stored: never sent twice.
          if ((error as NodeJS.ErrnoException).code === "ECONNREFUSED" && attempt < opts.maxAttempts) {
            await new Promise((r) => setTimeout(r, opts.retryDelayMs));
            continue;
          }
          stats.statuses.error = (stats.statuses.error ?? 0) + 1;
          stats.givenUp++;
          break;
        }
        stats.statuses[answer.status] = (stats.statuses[answer.status] ?? 0) + 1;
        if (answer.status === 202) {
          const at = Date.now();
          stats.acked.set(key, { site: domain, gateway: answer.gateway ?? "?", at });
          stats.latencies.push(at - first);
          break;
        }
        if (answer.status === 503 && attempt < opts.maxAttempts) {
          stats.retried503++;
          const second = Math.floor((Date.now() - started) / 1000);
          stats.unavailableBySecond[second] = (stats.unavailableBySecond[second] ?? 0) + 1;
          await new Promise((r) => setTimeout(r, Math.min(answer.retryAfter * 1000, opts.retryDelayMs)));
          continue;
        }
        stats.givenUp++;
        break;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.workers }, worker));
  return stats;
}

export interface OwnershipChange {
  readonly at: number;
  readonly site: number;
  /** `svc-owner:<gateway>#<backend pid>` of the new holder (a new pid is a new session), or null (nobody). */
  readonly owner: string | null;
}

/** Samples the site locks every `everyMs`: ownership changes, and any moment a site had two holders. */
export class LockSampler {
  readonly changes: OwnershipChange[] = [];
  current = new Map<number, string>();
  twoOwners = 0;
  samples = 0;
  private timer: NodeJS.Timeout | null = null;
  private busy = false;

  constructor(private readonly pool: pg.Pool, private readonly everyMs = 100) {}

  start(): void {
    // A failed sample (the database dropped at the end of a failed test) is a gap in the record, never a crash.
    this.timer = setInterval(() => void this.sample().catch(() => undefined), this.everyMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async sample(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const { rows } = await this.pool.query<{ site: number; owner: string }>(
        `select l.objid::int as site, a.application_name || '#' || l.pid as owner from pg_locks l join pg_stat_activity a using (pid)
          where l.locktype = 'advisory' and l.granted and l.classid = $1 and l.objsubid = 2
            and l.database = (select oid from pg_database where datname = current_database())`,
        [SITE_LOCK_CLASS],
      );
      this.samples++;
      const now = Date.now();
      const next = new Map<number, string>();
      for (const r of rows) {
        if (next.has(r.site)) this.twoOwners++;
        next.set(r.site, r.owner);
      }
      for (const [site, owner] of next) if (this.current.get(site) !== owner) this.changes.push({ at: now, site, owner });
      for (const site of this.current.keys()) if (!next.has(site)) this.changes.push({ at: now, site, owner: null });
      this.current = next;
    } finally {
      this.busy = false;
    }
  }
}

export interface Exactness {
  readonly acked: number;
  /** 202'd events with no stored row. */
  readonly missing: number;
  /** Load events (`/e/…`) stored more than once, 202'd or not. */
  readonly duplicates: number;
  /** Site-days (hourly and daily rows) whose rollups differ from the recount. */
  readonly rollupMismatches: readonly string[];
}

export async function checkExactness(pool: pg.Pool, acked: ReadonlyMap<string, Ack>): Promise<Exactness> {
  const { rows } = await pool.query<{ page: string; n: number }>("select page, count(*)::int as n from events where page like '/e/%' group by page");
  const stored = new Map(rows.map((r) => [r.page, r.n]));
  let missing = 0;
  for (const key of acked.keys()) if (!stored.has(`/e/${key}`)) missing++;
  const duplicates = rows.filter((r) => r.n > 1).length;
  const { rows: sites } = await pool.query<{ id: number; domain: string }>("select id, domain from sites order by id");
  const rollupMismatches: string[] = [];
  for (const site of sites) {
    for (const grain of ["day", "hour"] as const) {
      const [stored, recount] = await Promise.all([storedRollups(pool, site.id, grain), recomputedRollups(pool, site.id, grain)]);
      if (JSON.stringify(stored) !== JSON.stringify(recount)) rollupMismatches.push(`${site.domain} (${grain})`);
    }
  }
  return { acked: acked.size, missing, duplicates, rollupMismatches };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
