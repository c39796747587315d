// Rows → PostgreSQL COPY text format (tab-separated, \N for null, backslash escapes), built by string
// concatenation into one string per table: the batch goes to PostgreSQL as one socket write (copy-batch.ts).
import { storedText } from "@svc/core";
import type { EventRow, HitRow, PropValue } from "../storage/rows.ts";

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
const SPECIAL_ALL = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };
const escapeChar = (c: string): string => ESCAPES[c]!;

// Strings reach the encoder in their stored form (core's storedText, applied where they enter). A NUL that got
// here anyway is removed the same way, rather than failing the whole batch (text cannot hold it); a lone
// surrogate becomes U+FFFD in the UTF-8 encoding of the batch, as storedText would make it.
export function copyText(value: string): string {
  if (!SPECIAL.test(value)) return value;
  return (value.includes("\0") ? storedText(value) : value).replace(SPECIAL_ALL, escapeChar);
}

function copyNullableText(value: string | null): string {
  return value === null ? NULL : copyText(value);
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

// jsonb refuses the escapes JSON.stringify writes for NUL (\u0000) and for a lone surrogate (\ud800): one such
// prop failed every row of its batch. Props arrive in stored form; any that do not are put in it here.
const UNSTORABLE_JSON_ESCAPE = /\\u(?:0000|d[89a-f])/i;

function inStoredForm(props: Record<string, PropValue>): Record<string, PropValue> {
  return Object.fromEntries(Object.entries(props).map(([key, value]) => [storedText(key), typeof value === "string" ? storedText(value) : value]));
}

function copyJson(props: Record<string, PropValue> | null): string {
  if (props === null) return NULL;
  let json = JSON.stringify(props);
  if (UNSTORABLE_JSON_ESCAPE.test(json)) json = JSON.stringify(inStoredForm(props));
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
