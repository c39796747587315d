-- Rollups are written from the gateway's memory about once a second, apart from the raw rows' commits (see
-- gateway/README.md "Rollups"). This one row says from which hour on rollups may lag the raw rows: every flush
-- sets it to the earliest hour still held in memory, a clean shutdown clears it. A gateway that finds it set
-- at boot (it was killed) recomputes those days' rollups from the raw rows before it takes traffic.
create table rollup_repair (
  id        integer     primary key default 1 check (id = 1),
  from_hour timestamptz
);
insert into rollup_repair (id, from_hour) values (1, null);
