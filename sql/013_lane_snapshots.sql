-- The per-site fiber is called a site lane ("actor" is a row's traffic label: human, bot, ai_crawler …), so
-- the table of its saved day states is renamed to match (gateway/src/lanes/snapshot.ts encodes the state).
alter table actor_snapshots rename to lane_snapshots;
