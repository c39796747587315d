// Recomputes every rollup from the raw rows with plain SQL, independently of the gateway's code, so
// a test can demand that each rollup row equals COUNT(DISTINCT visitor_hash) and the counts.
import type pg from "pg";

// The visit rule, independently of lanes/visit-state.ts: script rows of a `human` or `human_via_ai`
// visitor hash, split into visits wherever 30 minutes or more pass between two rows (lag + running sum),
// take source, channel, UTM values, actor and ai_name from their visit's first row (first_value). Other
// rows keep their own. A visit never spans UTC days. Rows with one time stamp are one visit and carry one attribution, so ties do not
// change the result.
const RAW = `
  with script as (
    select *, sum(starts) over (partition by visitor_hash, day order by ts rows unbounded preceding) as visit
      from (select e.*, date_trunc('day', ts, 'UTC') as day,
                   case when lag(ts) over (partition by visitor_hash, date_trunc('day', ts, 'UTC') order by ts) > ts - interval '30 minutes'
                        then 0 else 1 end as starts
              from events e where site_id = $1 and actor in ('human', 'human_via_ai')) s
  ), visited as (
    select ts, visitor_hash, page, name, country, device, browser, os, rule,
           first_value(actor) over v as actor, first_value(ai_name) over v as ai_name,
           first_value(source) over v as source, first_value(channel) over v as channel,
           first_value(utm_source) over v as utm_source, first_value(utm_medium) over v as utm_medium,
           first_value(utm_campaign) over v as utm_campaign
      from script window v as (partition by visitor_hash, day, visit order by ts)
    union all
    select ts, visitor_hash, page, name, country, device, browser, os, rule, actor, ai_name, source, channel,
           utm_source, utm_medium, utm_campaign
      from events where site_id = $1 and actor not in ('human', 'human_via_ai')
  ), raw as (
    select ts, actor, visitor_hash, page, coalesce(source, '') as source, channel, utm_source, utm_medium, utm_campaign,
           coalesce(country, '') as country, device, coalesce(browser, '') as browser, coalesce(os, '') as os,
           name as event, ai_name, rule, null::text as status_class,
           (name = 'pageview')::int as pv, (name <> 'pageview')::int as ev, 0 as hit
      from visited
    union all
    select ts, actor, visitor_hash, page, coalesce(source, ''), channel, utm_source, utm_medium, utm_campaign,
           coalesce(country, ''), device, coalesce(browser, ''), coalesce(os, ''),
           null, ai_name, rule, (status / 100)::text || 'xx', 0, 0, 1
      from hits where site_id = $1
  ), dims as (
    select ts, actor, visitor_hash, pv, ev, hit, d.dim, d.value,
           -- A page's visitors are its viewers: a custom event on a page is not one.
           (d.dim <> 'page' or ev = 0) as counts_visitor
      from raw cross join lateral (values
        ('total', ''), ('page', page), ('source', source), ('channel', channel), ('utm_source', utm_source),
        ('utm_medium', utm_medium), ('utm_campaign', utm_campaign), ('country', country), ('device', device),
        ('browser', browser), ('os', os), ('event', event), ('ai_name', ai_name), ('status_class', status_class),
        ('rule', case when actor in ('bot', 'ai_crawler', 'ai_agent') then rule || coalesce(':' || ai_name, '') end)
      ) as d(dim, value)
     where d.value is not null
    union all
    -- The exact all-actor total: every row once more under actor 'all'.
    -- Its visitors are people and agents: crawlers and bots count as hits only.
    select ts, 'all', visitor_hash, pv, ev, hit, 'total', '', actor not in ('ai_crawler', 'bot') from raw
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
                   sum(pv) as pageviews, sum(ev) as events, sum(hit) as hits,
                   count(distinct visitor_hash) filter (where counts_visitor) as visitors
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
