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
