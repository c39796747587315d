// Recomputes every rollup from the raw rows with plain SQL, independently of the gateway's code, so
// a test can demand that each rollup row equals COUNT(DISTINCT visitor_hash) and the counts.
import type pg from "pg";

const RAW = `
  with raw as (
    select ts, actor, visitor_hash, page, coalesce(source, '') as source, channel, utm_source, utm_medium, utm_campaign,
           coalesce(country, '') as country, device, coalesce(browser, '') as browser, coalesce(os, '') as os,
           name as event, ai_name, null::text as status_class,
           (name = 'pageview')::int as pv, (name <> 'pageview')::int as ev, 0 as hit
      from events where site_id = $1
    union all
    select ts, actor, visitor_hash, page, coalesce(source, ''), channel, utm_source, utm_medium, utm_campaign,
           coalesce(country, ''), device, coalesce(browser, ''), coalesce(os, ''),
           null, ai_name, (status / 100)::text || 'xx', 0, 0, 1
      from hits where site_id = $1
  ), dims as (
    select ts, actor, visitor_hash, pv, ev, hit, d.dim, d.value
      from raw cross join lateral (values
        ('total', ''), ('page', page), ('source', source), ('channel', channel), ('utm_source', utm_source),
        ('utm_medium', utm_medium), ('utm_campaign', utm_campaign), ('country', country), ('device', device),
        ('browser', browser), ('os', os), ('event', event), ('ai_name', ai_name), ('status_class', status_class)
      ) as d(dim, value)
     where d.value is not null
  )`;

export interface RollupRowCheck {
  bucket: string;
  actor: string;
  dim: string;
  value: string;
  pageviews: number;
  events: number;
  hits: number;
  visitors: number;
}

const norm = (rows: any[]): RollupRowCheck[] =>
  rows
    .map((r) => ({ bucket: new Date(r.bucket).toISOString(), actor: r.actor, dim: r.dim, value: r.value, pageviews: Number(r.pageviews), events: Number(r.events), hits: Number(r.hits), visitors: Number(r.visitors) }))
    .sort((a, b) => (a.bucket + a.actor + a.dim + a.value < b.bucket + b.actor + b.dim + b.value ? -1 : 1));

export async function recomputedRollups(pool: pg.Pool, siteId: number, grain: "hour" | "day"): Promise<RollupRowCheck[]> {
  const { rows } = await pool.query(
    `${RAW} select date_trunc('${grain}', ts, 'UTC') as bucket, actor, dim, value,
                   sum(pv) as pageviews, sum(ev) as events, sum(hit) as hits, count(distinct visitor_hash) as visitors
              from dims group by 1, 2, 3, 4`,
    [siteId],
  );
  return norm(rows);
}

export async function storedRollups(pool: pg.Pool, siteId: number, grain: "hour" | "day"): Promise<RollupRowCheck[]> {
  const table = grain === "hour" ? "rollup_hourly" : "rollup_daily";
  const bucket = grain === "hour" ? "bucket" : "(bucket::timestamp at time zone 'UTC')";
  const { rows } = await pool.query(`select ${bucket} as bucket, actor, dim, value, pageviews, events, hits, visitors from ${table} where site_id = $1`, [siteId]);
  return norm(rows);
}
