-- The site actors' visitor and visit state of the day, saved by a clean stop so the next boot takes it up
-- instead of replaying the day's raw rows (gateway/README.md "Restarts"). watermark: the latest row time stamp
-- the state covers; the boot replays only rows after it. Every boot deletes all rows here as it reads them.
-- state holds visitor hashes of the day, as the raw rows do; it never outlives the day's salt by more than a boot.
create table actor_snapshots (
  site_id   integer     primary key references sites (id) on delete cascade,
  day       date        not null,
  watermark timestamptz not null,
  state     bytea       not null
);
-- Stored uncompressed: the state is varints and hashes, which pglz barely shrinks, and compressing tens of MB
-- would sit on the clean stop's path.
alter table actor_snapshots alter column state set storage external;
