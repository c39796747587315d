-- Goals (a name per site matched exactly against event names) and per-team language-model settings.
-- Goal conversions are read from rollup_daily (dim 'event'), so deleting a goal removes only the definition:
-- the events stay and simply leave the goals report.
create table goals (
  id         integer     generated always as identity primary key,
  site_id    integer     not null references sites (id) on delete cascade,
  -- 120 characters: the tracker's event names are at most 120 (core LIMITS.eventName), so a longer goal could never match.
  name       text        not null check (char_length(name) between 1 and 120),
  created_at timestamptz not null default now(),
  unique (site_id, name)
);

-- One row per team once an operator saved a choice; without a row the environment's SVC_LLM_* apply.
-- API keys are never stored here: they come only from the environment.
create table team_llm_settings (
  team_id    integer     primary key,
  provider   text        not null check (provider in ('local', 'openai', 'anthropic', 'gemini', 'none')),
  model      text        check (model is null or char_length(model) between 1 and 200),
  updated_at timestamptz not null default now()
);

-- The hourly series of GET /stats reads (site, dim 'total', actor, last 48 hours); the primary key leads with the
-- bucket, so without this index that read would walk every dimension's rows of those hours.
create index rollup_hourly_site_dim on rollup_hourly (site_id, dim, actor, bucket);
