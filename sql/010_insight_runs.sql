-- The last insights run of each site (one row per site, replaced by every run): what the language model
-- wrote, which provider and model, when, the exact input that left the server, and the error if it failed.
create table insight_runs (
  site_id      integer     primary key references sites (id) on delete cascade,
  status       text        not null check (status in ('ok', 'error')),
  provider     text        not null check (provider in ('local', 'openai', 'anthropic', 'gemini')),
  model        text        not null,
  generated_at timestamptz not null,
  -- Plain-text findings (HTML stripped, foreign links dropped), at most a handful of short sentences.
  findings     jsonb       not null default '[]'::jsonb,
  -- The user message exactly as sent: text, not jsonb, because jsonb reorders keys and the point of storing
  -- it is to show the user the very bytes that left their server. Null when the run failed before sending.
  input        text,
  -- The system message sent with it (the instructions, never data).
  instructions text,
  error        text,
  check ((status = 'ok') = (error is null))
);
