-- Shared links (gateway/README.md "Shared links"): a read-only view of one site for whoever holds the link.
-- The token itself is shown once, when the link is made; only its SHA-256 is stored. A password, when set,
-- is stored as an scrypt hash (`scrypt$N$r$p$salt$hash`, base64url), never in clear.
create table shares (
  id            integer generated always as identity primary key,
  site_id       integer     not null references sites (id) on delete cascade,
  token_hash    bytea       not null unique check (octet_length(token_hash) = 32),
  password_hash text,
  -- Plausible Stats API v2 filter arrays ([["is","visit:source",["Google"]]]) the viewer cannot remove.
  filters       jsonb       not null default '[]',
  -- One of the five actor labels: the viewer sees only that actor's numbers. Null = the viewer chooses.
  actor         text        check (actor in ('human', 'human_via_ai', 'ai_crawler', 'ai_agent', 'bot')),
  -- Origins allowed to frame the embed (CSP frame-ancestors); empty = nobody.
  frame_origins text[]      not null default '{}',
  created_at    timestamptz not null default now()
);
create index shares_site on shares (site_id);

-- E-mail reports (gateway/README.md "Reports and alerts"): one row per site, address and frequency. A
-- recipient gets nothing until they follow the confirmation link (only its SHA-256 is kept); the unsubscribe
-- token is kept as it is, since every mail must carry it, and it can do nothing but unsubscribe.
create table report_recipients (
  id                 integer generated always as identity primary key,
  site_id            integer     not null references sites (id) on delete cascade,
  email              text        not null,
  frequency          text        not null check (frequency in ('weekly', 'monthly')),
  confirm_token_hash bytea       check (confirm_token_hash is null or octet_length(confirm_token_hash) = 32),
  confirmed_at       timestamptz,
  unsubscribe_token  text        not null unique,
  -- The last period sent ('2026-11-16' for the week starting that Monday, '2026-10' for a month): claimed
  -- before sending, so two gateways never send the same report twice.
  last_sent_period   text,
  created_at         timestamptz not null default now(),
  unique (site_id, email, frequency)
);

-- Alert rules: the anomaly flags, or people in the last hour above a threshold; to e-mail and/or a webhook.
create table alert_rules (
  id               integer generated always as identity primary key,
  site_id          integer     not null references sites (id) on delete cascade,
  kind             text        not null check (kind in ('anomaly', 'visitors_last_hour')),
  threshold        integer     check (threshold is null or threshold >= 0),
  interval_minutes integer     not null check (interval_minutes between 5 and 10080),
  email            text,
  webhook_url      text,
  -- Signs each webhook body (HMAC-SHA-256); kept as it is because signing needs it. Shown once when made.
  webhook_secret   text,
  -- Claimed before an alert goes out: at most one alert per rule per interval, across gateways.
  last_fired_at    timestamptz,
  created_at       timestamptz not null default now(),
  check (email is not null or webhook_url is not null)
);

-- Every delivery attempt of an alert, for the settings page's log (newest first; the oldest are pruned).
create table alert_deliveries (
  id          bigint generated always as identity primary key,
  rule_id     integer     not null references alert_rules (id) on delete cascade,
  site_id     integer     not null,
  channel     text        not null check (channel in ('email', 'webhook')),
  attempt     integer     not null,
  status      text        not null check (status in ('delivered', 'failed')),
  http_status integer,
  -- What went wrong, without secrets (no URL, address or server reply; see notify/outbound-errors.ts).
  error       text,
  at          timestamptz not null
);
create index alert_deliveries_site on alert_deliveries (site_id, at desc);
