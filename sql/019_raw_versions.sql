-- The browser's and the operating system's version of every raw row (issue 22: `visit:browser_version` and
-- `visit:os_version`), major.minor as Plausible stores them ("131.0", "17.5"), from the User-Agent at ingest and
-- from an import's fields. Nullable: rows stored before this migration, and clients that name no version, have
-- none. No index: the raw partitions have none beyond ts (each costs ingest more than its whole budget).
alter table events add column browser_version text, add column os_version text;
alter table hits add column browser_version text, add column os_version text;
