-- A failed insights run no longer replaces the last good findings (issue 20): each site keeps its last
-- successful run (status 'ok') and, while the latest run failed, that failed run (status 'error', with the
-- input it sent and the redacted error). A successful run deletes the failed one.
alter table insight_runs drop constraint insight_runs_pkey;
alter table insight_runs add primary key (site_id, status);
