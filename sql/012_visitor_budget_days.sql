-- The days a site went past its visitor budget (gateway/src/actors/state-budget.ts): from the row that
-- passed it on, new visitors were counted as new on every row, so that day's visitor counts are an upper
-- bound and the read API marks them `inferred`. One row per site and day, written once by the site actor.
create table visitor_budget_days (
  site_id integer not null references sites (id) on delete cascade,
  day     date    not null,
  primary key (site_id, day)
);
