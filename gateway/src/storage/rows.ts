// The raw rows the ingest pipeline hands to the writer, one table per kind: each column of sql/001_init.sql
// (and 007_visits.sql, 019_raw_versions.sql) once, with its COPY codec and whether it may be null. The row types, the COPY column
// lists and row encoders (writer/copy-binary.ts) and the day replay's SELECT and decoding (rollups/day-rows.ts)
// are all derived from these tables; test/storage/row-columns.test.ts checks them against the migrated schema.
// Timestamps are epoch milliseconds (UTC); the writer turns them into timestamptz.
import type { DeltaCounts } from "../rollups/counts.ts";
import type { LedgerSlot } from "../rollups/ledger.ts";

export type PropValue = string | number | boolean;

/** How a column travels in binary COPY (writer/copy-binary.ts) and which TypeScript value it holds. */
export interface CodecValues {
  /** integer (int4). */
  int: number;
  /** smallint (int2): binary COPY sends each integer type at its own width. */
  smallint: number;
  text: string;
  /** Epoch ms; timestamptz in the table. */
  timestamp: number;
  bytea: Buffer;
  jsonb: Record<string, PropValue>;
}
export type Codec = keyof CodecValues;

export interface Column {
  readonly codec: Codec;
  readonly nullable?: true;
}

export type ColumnTable = Readonly<Record<string, Column>>;

type ValueOf<C extends Column> = CodecValues[C["codec"]] | (C extends { readonly nullable: true } ? null : never);

/** The row a column table describes: one field per column, null only where the column is nullable. */
export type RowOf<T extends ColumnTable> = { -readonly [K in keyof T]: ValueOf<T[K]> };

const int = { codec: "int" } as const;
const intOrNull = { codec: "int", nullable: true } as const;
const smallint = { codec: "smallint" } as const;
const text = { codec: "text" } as const;
const textOrNull = { codec: "text", nullable: true } as const;
const timestamp = { codec: "timestamp" } as const;
const bytea = { codec: "bytea" } as const;
const jsonbOrNull = { codec: "jsonb", nullable: true } as const;

/**
 * `events` (browser script, POST /api/event), in COPY order. `referrer_host` is the visit's referrer host
 * (its entry row's; see lanes/visit-state.ts), `own_referrer_host` this row's own (sql/007_visits.sql).
 */
export const EVENT_COLUMNS = {
  site_id: int, ts: timestamp, name: text, page: text, hostname: textOrNull, referrer_host: textOrNull,
  source: textOrNull, channel: text, utm_source: textOrNull, utm_medium: textOrNull, utm_campaign: textOrNull,
  utm_term: textOrNull, utm_content: textOrNull, country: textOrNull, device: text, browser: textOrNull,
  os: textOrNull, screen_width: intOrNull, actor: text, ai_name: textOrNull, rule: text, visitor_hash: bytea,
  props: jsonbOrNull, own_referrer_host: textOrNull, browser_version: textOrNull, os_version: textOrNull,
} as const satisfies ColumnTable;

/** `hits` (server middleware, POST /api/hit), in COPY order. */
export const HIT_COLUMNS = {
  site_id: int, ts: timestamp, method: text, page: text, status: smallint, referrer_host: textOrNull,
  source: textOrNull, channel: text, utm_source: textOrNull, utm_medium: textOrNull, utm_campaign: textOrNull,
  utm_term: textOrNull, utm_content: textOrNull, country: textOrNull, device: text, browser: textOrNull,
  os: textOrNull, actor: text, ai_name: textOrNull, rule: text, visitor_hash: bytea, browser_version: textOrNull,
  os_version: textOrNull,
} as const satisfies ColumnTable;

/** A row of `events`. */
export type EventRow = RowOf<typeof EVENT_COLUMNS>;

/** A row of `hits`. */
export type HitRow = RowOf<typeof HIT_COLUMNS>;

/**
 * An increment of one rollup key. `hour` is the start of the UTC hour in ms; the same delta feeds
 * rollup_hourly (bucket = hour, visitors += visitors_hour) and rollup_daily (bucket = the UTC day of hour,
 * visitors += visitors_day). The actor that owns the day's visitor state knows whether a visitor is new to
 * the hour and to the day, hence two visitor numbers.
 */
export interface RollupDelta extends DeltaCounts {
  site_id: number;
  hour: number;
  actor: string;
  dim: string;
  value: string;
  /** The actor's counter this delta came from: lets the rollup ledger sum deltas without building a key. */
  readonly slot?: LedgerSlot;
}

/** One group commit: raw rows only; their rollup counts are written apart, about once a second. */
export interface WriteBatch {
  events: EventRow[];
  hits: HitRow[];
}
