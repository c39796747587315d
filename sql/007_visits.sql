-- Visits (gateway/README.md "Visits"): a script row stores its visit's attribution — the entry row's source,
-- referrer host, channel, UTM values and, for a visit entered from an assistant, actor human_via_ai with its
-- ai_name — in the existing columns, so rollups, recounts and the tests' recomputation read one set of values.
-- The row's own referrer host is kept here. Rows written before this migration have null.
alter table events add column own_referrer_host text;
