-- Raw rows arrive in time order, so a BRIN index on ts (a few pages per partition, near-free on COPY) lets
-- "today's rows of a site" (the actors' state rebuilt at boot) and the retention deletes skip the rest of
-- the month instead of scanning the whole partition. Created on the parent, it propagates to every partition.
create index events_ts_brin on events using brin (ts);
create index hits_ts_brin on hits using brin (ts);
