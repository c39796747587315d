-- Each site's IANA time zone (gateway/README.md "Time zones"): reports' days, weeks and months follow it.
-- Visitor identity does not: hashes still rotate at 00:00 UTC. Validated by the gateway with Intl
-- (core/src/time-zone.ts canonicalTimeZone); existing sites keep UTC, which is what they were read in.
alter table sites add column time_zone text not null default 'UTC';
