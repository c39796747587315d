// A site's raw browser rows of a date range as NDJSON in the history import's line format (issue 22: one
// object per line, `timestamp`, `name`, `visitor`, `hostname`, `pathname`, `referrer`, `source`, `utm_*`,
// `browser`, `browser_version`, `os`, `os_version`, `device`, `country`, `props`, `actor`), so an export re-imports into another svc.
//
// PostgreSQL builds each line (json_build_object) and streams them with COPY TO: no row is held in this
// process beyond the socket's buffer, whatever the range. With the CSV format, a delimiter and a quote byte
// that JSON text never contains (json escapes every control character), each COPY row is exactly its JSON.
//
// What a line carries about the visitor: only `visitor`, the row's day-scoped hash (hex). The daily salt is
// deleted after its day, so the hash can be tied to nothing else, and equal hashes mean one visitor within one
// UTC day only — what the import means by `visitor`. Middleware hits are not exported: the import's format
// has no line for them.
import type pg from "pg";
import { to as copyTo } from "pg-copy-streams";
import type { CopyToStreamQuery } from "pg-copy-streams";

/** The COPY statement of one site's rows from `from` to `to` (whole UTC days, both included). */
function exportSql(client: pg.PoolClient, siteId: number, from: string, to: string): string {
  const literal = (s: string) => client.escapeLiteral(s);
  return `copy (
    select json_strip_nulls(json_build_object(
      'timestamp', to_char(ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'name', name,
      'visitor', encode(visitor_hash, 'hex'),
      'hostname', hostname,
      'pathname', page,
      'referrer', case when own_referrer_host is null or own_referrer_host = '' then null else 'https://' || own_referrer_host || '/' end,
      'source', nullif(source, ''),
      'utm_source', utm_source, 'utm_medium', utm_medium, 'utm_campaign', utm_campaign, 'utm_content', utm_content, 'utm_term', utm_term,
      'browser', nullif(browser, ''),
      'browser_version', nullif(browser_version, ''),
      'os', nullif(os, ''),
      'os_version', nullif(os_version, ''),
      'device', case device when 'desktop' then 'Desktop' when 'mobile' then 'Mobile' when 'tablet' then 'Tablet' end,
      'country', nullif(country, ''),
      'props', (select jsonb_object_agg(key, value #>> '{}') from jsonb_each(props)),
      'actor', actor
    ))::text
    from events
    where site_id = ${Number(siteId)} and ts >= ${literal(from)}::date and ts < ${literal(to)}::date + 1
    order by ts
  ) to stdout with (format csv, delimiter E'\\x02', quote E'\\x01')`;
}

export interface RawExport {
  readonly rows: CopyToStreamQuery;
  /** Returns the connection (broken when the export did not finish). */
  done(error?: Error): Promise<void>;
}

/**
 * Opens the export on a connection of its own, in a transaction without a statement timeout (a year of a
 * busy site streams for minutes, to a client reading at its own pace). Connection failures throw here, before
 * any byte is sent, so the route can still answer 503.
 */
export async function openRawExport(pool: pg.Pool, siteId: number, from: string, to: string): Promise<RawExport> {
  const client = await pool.connect();
  try {
    await client.query("begin read only");
    await client.query("set local statement_timeout = 0");
  } catch (error) {
    client.release(true);
    throw error;
  }
  const rows = client.query(copyTo(exportSql(client, siteId, from, to)));
  let released = false;
  return {
    rows,
    async done(error) {
      if (released) return;
      released = true;
      if (error) return client.release(true);
      await client.query("commit").then(() => client.release(), (e: Error) => client.release(e));
    },
  };
}
