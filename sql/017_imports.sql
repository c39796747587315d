-- History imports (gateway/README.md "History import"): one row per committed import, named by the SHA-256 of
-- the body it was sent, so the same file sent again is recognised and changes nothing. The rows themselves go
-- into `events` like any other (no address: an import never carries one); their visitor hashes use a secret
-- made for that import and never stored.
create table imports (
  id         integer generated always as identity primary key,
  site_id    integer     not null references sites (id) on delete cascade,
  sha256     bytea       not null check (octet_length(sha256) = 32),
  lines      integer     not null,
  imported   integer     not null,
  refused    integer     not null,
  first_day  date,
  last_day   date,
  created_at timestamptz not null default now(),
  unique (site_id, sha256)
);
