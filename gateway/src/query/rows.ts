// The rows a query reads, in one shape for both of their homes: raw rows of PostgreSQL (days not yet written
// to Parquet, today above all) and the per-site daily Parquet files (parquet/day-files.ts). Each row carries
// its visit's values (entry and exit page, start, duration, pageviews, bounce), computed here once per UTC day
// — a visit never spans 00:00 UTC, when visitor hashes rotate — so a query never sessionizes settled days.
//
// PostgreSQL → DuckDB goes through COPY … TO STDOUT as CSV into a temporary file that DuckDB's CSV reader
// loads, so no row passes through the JavaScript heap (10M rows would not fit the gateway's budget).
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import type pg from "pg";
import { to as copyTo } from "pg-copy-streams";

/** A raw row as DuckDB holds it, in column order (name, DuckDB type, PostgreSQL select of events, of hits). */
export const RAW_COLUMNS = [
  ["kind", "VARCHAR", "'e'", "'h'"],
  ["ts", "BIGINT", "(extract(epoch from ts) * 1000)::int8", "(extract(epoch from ts) * 1000)::int8"],
  ["name", "VARCHAR", "name", "'hit'"],
  ["page", "VARCHAR", "page", "page"],
  ["hostname", "VARCHAR", "hostname", "null"],
  ["referrer_host", "VARCHAR", "referrer_host", "referrer_host"],
  ["source", "VARCHAR", "source", "source"],
  ["channel", "VARCHAR", "channel", "channel"],
  ["utm_source", "VARCHAR", "utm_source", "utm_source"],
  ["utm_medium", "VARCHAR", "utm_medium", "utm_medium"],
  ["utm_campaign", "VARCHAR", "utm_campaign", "utm_campaign"],
  ["utm_term", "VARCHAR", "utm_term", "utm_term"],
  ["utm_content", "VARCHAR", "utm_content", "utm_content"],
  ["country", "VARCHAR", "country", "country"],
  ["device", "VARCHAR", "device", "device"],
  ["browser", "VARCHAR", "browser", "browser"],
  ["browser_version", "VARCHAR", "browser_version", "browser_version"],
  ["os", "VARCHAR", "os", "os"],
  ["os_version", "VARCHAR", "os_version", "os_version"],
  ["actor", "VARCHAR", "actor", "actor"],
  ["ai_name", "VARCHAR", "ai_name", "ai_name"],
  // The first 8 bytes of the visitor hash: distinct counts over 64 bits; two visitors of one site and day share
  // a prefix with probability n²/2⁶⁵ (5 · 10⁻⁹ for 100,000 visitors a day).
  ["visitor", "BIGINT", "('x' || encode(substring(visitor_hash from 1 for 8), 'hex'))::bit(64)::int8", "('x' || encode(substring(visitor_hash from 1 for 8), 'hex'))::bit(64)::int8"],
  ["props", "VARCHAR", "props::text", "null"],
] as const;

/** The visit columns the enrichment adds after RAW_COLUMNS. */
export const VISIT_COLUMNS = ["visit", "v_start", "v_entry", "v_exit", "v_pageviews", "v_events", "v_duration", "v_bounce", "v_first", "v_human"] as const;

/** 30 minutes, as the site lanes cut visits (lanes/visit-state.ts VISIT_GAP_MS). */
const VISIT_GAP_MS = 1_800_000;

/**
 * DuckDB SQL adding the visit columns to `relation` (raw rows of whole UTC days). A visit is the script rows of
 * one visitor hash with gaps under 30 minutes; ties in time are ordered by page so entry and exit pages are
 * deterministic. Its entry and exit are its first and last pageview (its first and last row when it has none);
 * its duration the time from its first to its last row; it bounced when it has one row. Hits have no visit.
 * `v_first` marks exactly one row of each visit (its first) and `v_human` says whether any of its rows is a
 * human's, so a visit metric over visit-constant columns counts visits as rows (query/sql.ts, visitArms).
 * Window functions only, sharing one sort: ~30 % faster than aggregating visits and joining them back.
 */
export function enrichSql(relation: string): string {
  const order = "ts, page, name";
  const pv = "case when name = 'pageview' then page end";
  return `with e as (
      select *, case when ts - lag(ts) over (partition by visitor order by ${order}) < ${VISIT_GAP_MS} then 0 else 1 end as nv
        from ${relation} where kind = 'e'),
    s as (select *, sum(nv) over (partition by visitor order by ${order} rows unbounded preceding) as vn from e)
    select s.* exclude (nv, vn), hash(visitor, min(ts) over v) as visit, min(ts) over v as v_start,
           coalesce(first_value(${pv} ignore nulls) over vf, first_value(page) over vf) as v_entry,
           coalesce(last_value(${pv} ignore nulls) over vf, last_value(page) over vf) as v_exit,
           count(*) filter (where name = 'pageview') over v as v_pageviews, count(*) over v as v_events,
           (max(ts) over v - min(ts) over v) / 1000.0 as v_duration, count(*) over v = 1 as v_bounce,
           nv = 1 as v_first, bool_or(actor = 'human') over v as v_human
      from s
    window v as (partition by visitor, vn), vf as (partition by visitor, vn order by ts, page rows between unbounded preceding and unbounded following)
    union all
    ${withoutVisits(`(select * from ${relation} where kind = 'h')`)}`;
}

/** `relation`'s rows with the visit columns null: for a query that reads none of them, no sessionizing. */
export function withoutVisits(relation: string): string {
  return `select *, null::ubigint as visit, null::bigint as v_start, null::varchar as v_entry, null::varchar as v_exit, null::bigint as v_pageviews,
    null::bigint as v_events, null::double as v_duration, null::boolean as v_bounce, null::boolean as v_first, null::boolean as v_human from ${relation}`;
}

/**
 * DuckDB's read_csv of a file COPY wrote: the columns by name and type, "" kept apart from null. A row is bounded
 * by ingest's 64 KB request cap (core LIMITS), so 1 MB lines leave room for CSV quoting; DuckDB sizes each
 * reader's buffer at 16 lines, and 10 MB lines made that 152.5 MiB a reader: three at once (a report's parallel
 * queries) ran out of the engine's 256 MB.
 */
export function readCsvSql(file: string): string {
  const columns = RAW_COLUMNS.map(([name, type]) => `'${name}': '${type}'`).join(", ");
  return `read_csv('${file.replaceAll("'", "''")}', columns = {${columns}}, header = false, allow_quoted_nulls = false, auto_detect = false, quote = '"', escape = '"', delim = ',', max_line_size = 1048576)`;
}

/** COPY of one site's raw rows with from ≤ ts < to into `file` as CSV (site id and instants are numbers, never text). */
export async function copyRawRows(pool: pg.Pool, siteId: number, fromMs: number, toMs: number, file: string): Promise<void> {
  if (!Number.isSafeInteger(siteId) || !Number.isFinite(fromMs) || !Number.isFinite(toMs)) throw new RangeError("bad row range");
  const select = (table: "events" | "hits", at: 2 | 3): string => {
    const list = RAW_COLUMNS.map((c) => c[at]);
    return `select ${list.join(", ")} from ${table} where site_id = ${siteId} and ts >= to_timestamp(${fromMs / 1000}) and ts < to_timestamp(${toMs / 1000})`;
  };
  await mkdir(path.dirname(file), { recursive: true });
  const client = await pool.connect();
  try {
    const stream = client.query(copyTo(`copy (${select("events", 2)} union all ${select("hits", 3)}) to stdout with (format csv)`));
    await pipeline(stream, createWriteStream(file));
  } catch (error) {
    await rm(file, { force: true });
    throw error;
  } finally {
    client.release();
  }
}
