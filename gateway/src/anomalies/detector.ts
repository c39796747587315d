// GET /api/sites/{id}/anomalies computes its flags here: the rollup series of the window and its baselines
// (read/anomaly-reads.ts, read/rollup-reads.ts) through core's anomaly math. Answers are cached 5 minutes per
// (site, days, hour): flags change at most once an hour (their series are hourly) and a dashboard polls.
import { type AnomalyFlag, BASELINE_DAYS, DAY_MS, DROP_MAX_WEEKS, DROP_SPANS_HOURS, HOUR_MS, crawledNeverReferred, crawlerSpikes, humanDrop } from "@svc/core";
import type pg from "pg";
import { crawlerHourlyHits, firstRollupHour, pageCrawlSums } from "../read/anomaly-reads.ts";
import { bucketTotals } from "../read/rollup-reads.ts";
import { isoDay, readWindow } from "../read/window.ts";

// 5 minutes: the longest a flag may lag the rollups (issue 12).
export const ANOMALY_CACHE_MS = 5 * 60_000;
// 2,000 answers (a few KB each): every site × a few `days` values of a large install.
const CACHE_MAX_ENTRIES = 2000;

export interface AnomalyReport {
  readonly site_id: number;
  readonly days: number;
  readonly from: string;
  readonly to: string;
  readonly generated_at: string;
  readonly flags: readonly AnomalyFlag[];
}

/** The flags of one site for the `days` whole UTC days ending now, straight from the rollups. */
export async function detectAnomalies(pool: pg.Pool, siteId: number, nowMs: number, days: number): Promise<AnomalyReport> {
  const w = readWindow(nowMs, days, "all");
  const currentHour = w.currentHourMs;
  const lastCompleteHour = currentHour - HOUR_MS;
  const longestSpan = Math.max(...DROP_SPANS_HOURS);
  const humanFrom = lastCompleteHour - (longestSpan - 1) * HOUR_MS - DROP_MAX_WEEKS * 7 * DAY_MS;
  const baselineFrom = isoDay(w.startMs - BASELINE_DAYS * DAY_MS);
  const [since, crawlers, humans, pages] = await Promise.all([
    firstRollupHour(pool, siteId),
    crawlerHourlyHits(pool, siteId, w.startMs - BASELINE_DAYS * DAY_MS, currentHour),
    bucketTotals(pool, siteId, ["human"], { grain: "hour", fromMs: humanFrom, toMs: lastCompleteHour }),
    pageCrawlSums(pool, siteId, baselineFrom, w.from, w.to),
  ]);
  const flags: AnomalyFlag[] = [];
  if (since !== null) {
    flags.push(...crawlerSpikes({ crawlers, firstHour: w.startMs, lastHour: currentHour, dataSince: since }));
    const visitors = new Map([...humans].map(([hour, counts]) => [hour, counts.visitors] as const));
    const drop = humanDrop({ visitors, lastCompleteHour, dataSince: since });
    if (drop) flags.push(drop);
    flags.push(
      ...crawledNeverReferred(
        pages.map((p) => ({ page: p.page, crawledBefore: p.crawled_before, crawled: p.crawled, firstCrawledDay: p.first_crawled.getTime(), referred: p.referred })),
        currentHour + HOUR_MS,
      ),
    );
  }
  return { site_id: siteId, days, from: w.from, to: w.to, generated_at: new Date(nowMs).toISOString(), flags };
}

/** detectAnomalies behind the 5-minute cache. */
export class AnomalyDetector {
  private readonly cache = new Map<string, { at: number; report: AnomalyReport }>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => number,
  ) {}

  async report(siteId: number, days: number): Promise<AnomalyReport> {
    const now = this.now();
    const key = `${siteId}|${days}|${now - (now % HOUR_MS)}`;
    const hit = this.cache.get(key);
    if (hit && now - hit.at < ANOMALY_CACHE_MS) return hit.report;
    const report = await detectAnomalies(this.pool, siteId, now, days);
    if (this.cache.size >= CACHE_MAX_ENTRIES) {
      for (const [k, v] of this.cache) if (now - v.at >= ANOMALY_CACHE_MS || this.cache.size >= CACHE_MAX_ENTRIES) this.cache.delete(k);
    }
    this.cache.set(key, { at: now, report });
    return report;
  }
}
