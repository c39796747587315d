-- Funnels: a site's named, ordered steps (2 to 8), each a page-path pattern with Plausible's wildcards
-- (`*` any characters but `/`, `**` any characters) or the name of one of the site's goals. The steps are
-- stored as the JSON array the API takes ([{"page_path": "/"}, {"goal": "Signup"}]); they are checked by the
-- route (api-schema/funnels.ts), so the table only bounds their size. A goal deleted later matches nothing.
create table funnels (
  id         integer     generated always as identity primary key,
  site_id    integer     not null references sites (id) on delete cascade,
  -- 120 characters: as a goal's name.
  name       text        not null check (char_length(name) between 1 and 120),
  steps      jsonb       not null check (jsonb_typeof(steps) = 'array' and jsonb_array_length(steps) between 2 and 8),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (site_id, name)
);
