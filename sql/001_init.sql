-- svc schema, version 1. Raw rows are partitioned by month (UTC); dashboards read only the rollups.
-- Timestamps are timestamptz and every day/hour bucket is UTC.

create table sites (
  id             integer generated always as identity primary key,
  domain         text        not null unique,
  name           text,
  team_id        integer     not null default 1,
  -- 395 days = 13 months: a full year plus the same month last year for year-over-year views.
  retention_days integer     not null default 395 check (retention_days between 1 and 3660),
  created_at     timestamptz not null default now()
);

-- One 32-byte random salt per site per UTC day. A past day's row is deleted, so its hashes can never be recomputed.
create table salts (
  site_id integer not null references sites (id) on delete cascade,
  day     date    not null,
  salt    bytea   not null check (octet_length(salt) = 32),
  primary key (site_id, day)
);

-- Browser script rows (POST /api/event): js_executed = true by construction.
create table events (
  site_id       integer     not null,
  ts            timestamptz not null,
  name          text        not null,
  page          text        not null,
  hostname      text,
  referrer_host text,
  source        text,
  channel       text        not null,
  utm_source    text,
  utm_medium    text,
  utm_campaign  text,
  utm_term      text,
  utm_content   text,
  country       text,
  device        text        not null,
  browser       text,
  os            text,
  screen_width  integer,
  actor         text        not null,
  ai_name       text,
  rule          text        not null,
  visitor_hash  bytea       not null,
  props         jsonb
) partition by range (ts);

-- Server middleware rows (POST /api/hit): js_executed = false by construction.
create table hits (
  site_id       integer     not null,
  ts            timestamptz not null,
  method        text        not null,
  page          text        not null,
  status        smallint    not null,
  referrer_host text,
  source        text,
  channel       text        not null,
  utm_source    text,
  utm_medium    text,
  utm_campaign  text,
  utm_term      text,
  utm_content   text,
  country       text,
  device        text        not null,
  browser       text,
  os            text,
  actor         text        not null,
  ai_name       text,
  rule          text        not null,
  visitor_hash  bytea       not null
) partition by range (ts);

-- Rows outside every monthly partition still land here and are reported by /healthz and the maintenance fiber.
create table events_default partition of events default;
create table hits_default partition of hits default;

-- Rollups: one row per (site, bucket, actor, dimension, value). dim 'total' has value ''.
-- visitors = distinct visitor hashes in that bucket for that value (exact; see gateway/README.md).
create table rollup_hourly (
  site_id   integer     not null,
  bucket    timestamptz not null,
  actor     text        not null,
  dim       text        not null,
  value     text        not null,
  pageviews bigint      not null default 0,
  events    bigint      not null default 0,
  hits      bigint      not null default 0,
  visitors  bigint      not null default 0,
  primary key (site_id, bucket, actor, dim, value)
);

create table rollup_daily (
  site_id   integer not null,
  bucket    date    not null,
  actor     text    not null,
  dim       text    not null,
  value     text    not null,
  pageviews bigint  not null default 0,
  events    bigint  not null default 0,
  hits      bigint  not null default 0,
  visitors  bigint  not null default 0,
  primary key (site_id, bucket, actor, dim, value)
);
create index rollup_daily_site_dim on rollup_daily (site_id, dim, actor, bucket);
