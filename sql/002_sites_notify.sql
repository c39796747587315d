-- Every change to a site is announced on channel svc_sites, so a gateway caching sites in memory drops the
-- entry at once: a rename made by the operator CLI (another process) makes ingest for the old domain 404
-- without waiting for a cache expiry. The payload is small JSON: {"op","id","old_domain","new_domain"}.
create function svc_notify_site_change() returns trigger
language plpgsql as $$
begin
  perform pg_notify('svc_sites', json_build_object(
    'op',         lower(tg_op),
    'id',         case when tg_op = 'DELETE' then old.id else new.id end,
    'old_domain', case when tg_op = 'INSERT' then null else old.domain end,
    'new_domain', case when tg_op = 'DELETE' then null else new.domain end
  )::text);
  return null;
end
$$;

create trigger sites_notify
  after insert or update or delete on sites
  for each row execute function svc_notify_site_change();
