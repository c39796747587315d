// The rollup series the anomaly flags are computed from (core/src/anomalies): hourly hits per AI crawler,
// the first hour a site has rollups, and per page the AI-crawler hits before and in a window with the
// assistant-referred visitors. Rollups only, on the (site_id, dim, actor, bucket) indexes.
import type { HourlySeries } from "@svc/core";
import type pg from "pg";

/** Hits per AI crawler name per hour over [fromMs, toMs]. */
export async function crawlerHourlyHits(pool: pg.Pool, siteId: number, fromMs: number, toMs: number): Promise<Map<string, HourlySeries>> {
  // The hour as epoch ms (float8) rather than a timestamptz: node-postgres parses each timestamptz into a Date,
  // most of the client-side cost of the ~10,000 rows a 30-crawler site has over 15 days.
  const { rows } = await pool.query<{ value: string; ms: number; hits: number }>({
    name: "svc_anomaly_crawler_hours",
    text: `select value, extract(epoch from bucket)::float8 * 1000 as ms, hits::float8 as hits
             from rollup_hourly
            where site_id = $1 and dim = 'ai_name' and actor = 'ai_crawler' and bucket between $2 and $3 and hits > 0`,
    values: [siteId, new Date(fromMs), new Date(toMs)],
  });
  const out = new Map<string, Map<number, number>>();
  for (const r of rows) {
    let series = out.get(r.value);
    if (!series) out.set(r.value, (series = new Map()));
    series.set(r.ms, r.hits);
  }
  return out;
}

/** Start (ms) of the site's first hourly rollup row, or null when it has none. */
export async function firstRollupHour(pool: pg.Pool, siteId: number): Promise<number | null> {
  const { rows } = await pool.query<{ first: Date | null }>({
    name: "svc_anomaly_first_hour",
    text: "select min(bucket) as first from rollup_hourly where site_id = $1",
    values: [siteId],
  });
  return rows[0]?.first?.getTime() ?? null;
}

export interface PageCrawlSums {
  page: string;
  crawled_before: number;
  crawled: number;
  first_crawled: Date;
  referred: number;
}

/**
 * Pages with AI-crawler hits in [windowFrom, to] (days, YYYY-MM-DD): their hits before the window (from
 * `baselineFrom`), in it, the first day in it with hits, and the assistant-referred visitors in it.
 */
export async function pageCrawlSums(pool: pg.Pool, siteId: number, baselineFrom: string, windowFrom: string, to: string): Promise<PageCrawlSums[]> {
  const { rows } = await pool.query<PageCrawlSums>({
    name: "svc_anomaly_page_crawls",
    text: `select value as page,
                  coalesce(sum(hits::float8) filter (where actor = 'ai_crawler' and bucket < $3::date), 0) as crawled_before,
                  coalesce(sum(hits::float8) filter (where actor = 'ai_crawler' and bucket >= $3::date), 0) as crawled,
                  min(bucket::timestamp at time zone 'UTC') filter (where actor = 'ai_crawler' and bucket >= $3::date and hits > 0) as first_crawled,
                  coalesce(sum(visitors::float8) filter (where actor = 'human_via_ai' and bucket >= $3::date), 0) as referred
             from rollup_daily
            where site_id = $1 and dim = 'page' and actor in ('ai_crawler', 'human_via_ai') and bucket between $2::date and $4::date
            group by value
           having sum(hits) filter (where actor = 'ai_crawler' and bucket >= $3::date) > 0`,
    values: [siteId, baselineFrom, windowFrom, to],
  });
  return rows;
}
