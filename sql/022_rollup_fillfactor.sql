-- The rollup rows of the current hour and day are upserted again at every flush (each second), changing counts
-- only, never a key. With full pages such an update could not stay on its page: 4 % (hourly) and 8 % (daily)
-- of them were HOT at the bench's 1,585 keys a flush, so each one added entries to both of the table's indexes
-- and PostgreSQL's bottom-up index deletion cleaned up after them (btree inserts were 18 % of PostgreSQL's CPU
-- under ingest). Half-empty pages leave room for the next version beside the last, which page pruning then
-- reclaims (gateway/README.md "Seventh pass"). Pages written before this keep their rows; new ones follow it.
alter table rollup_hourly set (fillfactor = 50);
alter table rollup_daily set (fillfactor = 50);
