-- Saved segments (issue 23): a name and a set of filters per site, shared by the site's team and picked from
-- the dashboard's filter bar. The filters are Plausible Stats API v2 filter arrays, as POST /api/v2/query takes
-- them ([["is","visit:source",["Google"]]]), checked by the query engine's parser when saved. Names are unique
-- per site; 120 characters, like a goal's.
create table segments (
  id         integer generated always as identity primary key,
  site_id    integer     not null references sites (id) on delete cascade,
  name       text        not null check (char_length(name) between 1 and 120),
  filters    jsonb       not null check (jsonb_typeof(filters) = 'array'),
  created_at timestamptz not null default now(),
  unique (site_id, name)
);
