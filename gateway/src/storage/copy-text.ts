// Rows → PostgreSQL COPY text format (tab-separated, \N for null, backslash escapes), built by string
// concatenation into one string per table: the batch goes to PostgreSQL as one socket write (copy-batch.ts).
import type { EventRow, HitRow, PropValue } from "./rows.ts";

export const EVENT_COLUMNS = [
  "site_id", "ts", "name", "page", "hostname", "referrer_host", "source", "channel",
  "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content",
  "country", "device", "browser", "os", "screen_width", "actor", "ai_name", "rule", "visitor_hash", "props", "own_referrer_host",
] as const;

export const HIT_COLUMNS = [
  "site_id", "ts", "method", "page", "status", "referrer_host", "source", "channel",
  "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content",
  "country", "device", "browser", "os", "actor", "ai_name", "rule", "visitor_hash",
] as const;

const NULL = "\\N";
const SPECIAL = /[\\\t\n\r\0]/;
const SPECIAL_ALL = /[\\\t\n\r\0]/g;
// NUL cannot be stored in a PostgreSQL text value at all; it is dropped rather than failing the whole batch.
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\0": "" };
const escapeChar = (c: string): string => ESCAPES[c]!;

export function copyText(value: string): string {
  return SPECIAL.test(value) ? value.replace(SPECIAL_ALL, escapeChar) : value;
}

function copyNullableText(value: string | null): string {
  return value === null ? NULL : SPECIAL.test(value) ? value.replace(SPECIAL_ALL, escapeChar) : value;
}

function copyInt(value: number | null): string {
  if (value === null) return NULL;
  if (!Number.isInteger(value)) throw new TypeError(`not an integer: ${value}`);
  return String(value);
}

function copyTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}

/** bytea in hex form; its backslash is escaped for the COPY text layer. */
function copyBytea(value: Buffer): string {
  return "\\\\x" + value.toString("hex");
}

// jsonb rejects the \u0000 escape that JSON.stringify emits for NUL, so NUL is removed from keys and values.
function withoutNul(props: Record<string, PropValue>): Record<string, PropValue> {
  const clean: Record<string, PropValue> = {};
  for (const [key, value] of Object.entries(props)) {
    clean[key.replaceAll("\0", "")] = typeof value === "string" ? value.replaceAll("\0", "") : value;
  }
  return clean;
}

function copyJson(props: Record<string, PropValue> | null): string {
  if (props === null) return NULL;
  let json = JSON.stringify(props);
  if (json.includes("\\u0000")) json = JSON.stringify(withoutNul(props));
  return copyText(json);
}

function eventLine(r: EventRow): string {
  return (
    copyInt(r.site_id) + "\t" +
    copyTimestamp(r.ts) + "\t" +
    copyText(r.name) + "\t" +
    copyText(r.page) + "\t" +
    copyNullableText(r.hostname) + "\t" +
    copyNullableText(r.referrer_host) + "\t" +
    copyNullableText(r.source) + "\t" +
    copyText(r.channel) + "\t" +
    copyNullableText(r.utm_source) + "\t" +
    copyNullableText(r.utm_medium) + "\t" +
    copyNullableText(r.utm_campaign) + "\t" +
    copyNullableText(r.utm_term) + "\t" +
    copyNullableText(r.utm_content) + "\t" +
    copyNullableText(r.country) + "\t" +
    copyText(r.device) + "\t" +
    copyNullableText(r.browser) + "\t" +
    copyNullableText(r.os) + "\t" +
    copyInt(r.screen_width) + "\t" +
    copyText(r.actor) + "\t" +
    copyNullableText(r.ai_name) + "\t" +
    copyText(r.rule) + "\t" +
    copyBytea(r.visitor_hash) + "\t" +
    copyJson(r.props) + "\t" +
    copyNullableText(r.own_referrer_host) + "\n"
  );
}

function hitLine(r: HitRow): string {
  return (
    copyInt(r.site_id) + "\t" +
    copyTimestamp(r.ts) + "\t" +
    copyText(r.method) + "\t" +
    copyText(r.page) + "\t" +
    copyInt(r.status) + "\t" +
    copyNullableText(r.referrer_host) + "\t" +
    copyNullableText(r.source) + "\t" +
    copyText(r.channel) + "\t" +
    copyNullableText(r.utm_source) + "\t" +
    copyNullableText(r.utm_medium) + "\t" +
    copyNullableText(r.utm_campaign) + "\t" +
    copyNullableText(r.utm_term) + "\t" +
    copyNullableText(r.utm_content) + "\t" +
    copyNullableText(r.country) + "\t" +
    copyText(r.device) + "\t" +
    copyNullableText(r.browser) + "\t" +
    copyNullableText(r.os) + "\t" +
    copyText(r.actor) + "\t" +
    copyNullableText(r.ai_name) + "\t" +
    copyText(r.rule) + "\t" +
    copyBytea(r.visitor_hash) + "\n"
  );
}

function encode<T>(rows: readonly T[], line: (row: T) => string): string {
  let text = "";
  for (const row of rows) text += line(row);
  return text;
}

export function encodeEvents(rows: readonly EventRow[]): string {
  return encode(rows, eventLine);
}

export function encodeHits(rows: readonly HitRow[]): string {
  return encode(rows, hitLine);
}
