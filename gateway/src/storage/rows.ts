// The rows the ingest pipeline hands to the writer: one field per column of sql/001_init.sql.
// Timestamps are epoch milliseconds (UTC); the writer turns them into timestamptz.
import type { LedgerSlot } from "../rollups/ledger.ts";

export type PropValue = string | number | boolean;

/** A row of `events` (browser script, POST /api/event). */
export interface EventRow {
  site_id: number;
  ts: number;
  name: string;
  page: string;
  hostname: string | null;
  /** The visit's referrer host (its entry row's); see lanes/visit-state.ts. */
  referrer_host: string | null;
  /** This row's own referrer host (sql/007_visits.sql). */
  own_referrer_host: string | null;
  source: string | null;
  channel: string;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
  country: string | null;
  device: string;
  browser: string | null;
  os: string | null;
  screen_width: number | null;
  actor: string;
  ai_name: string | null;
  rule: string;
  visitor_hash: Buffer;
  props: Record<string, PropValue> | null;
}

/** A row of `hits` (server middleware, POST /api/hit). */
export interface HitRow {
  site_id: number;
  ts: number;
  method: string;
  page: string;
  status: number;
  referrer_host: string | null;
  source: string | null;
  channel: string;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
  country: string | null;
  device: string;
  browser: string | null;
  os: string | null;
  actor: string;
  ai_name: string | null;
  rule: string;
  visitor_hash: Buffer;
}

/**
 * An increment of one rollup key. `hour` is the start of the UTC hour in ms; the same delta feeds
 * rollup_hourly (bucket = hour, visitors += visitors_hour) and rollup_daily (bucket = the UTC day of hour,
 * visitors += visitors_day). The actor that owns the day's visitor state knows whether a visitor is new to
 * the hour and to the day, hence two visitor numbers.
 */
export interface RollupDelta {
  site_id: number;
  hour: number;
  actor: string;
  dim: string;
  value: string;
  pageviews: number;
  events: number;
  hits: number;
  visitors_hour: number;
  visitors_day: number;
  /** The actor's counter this delta came from: lets the rollup ledger sum deltas without building a key. */
  readonly slot?: LedgerSlot;
}

/** One group commit: raw rows only; their rollup counts are written apart, about once a second. */
export interface WriteBatch {
  events: EventRow[];
  hits: HitRow[];
}
