// Rows → PostgreSQL COPY text format (tab-separated, \N for null, backslash escapes), built by string
// concatenation into one string per table: the batch goes to PostgreSQL as one socket write (copy-batch.ts).
// Each table's line encoder is generated from its column table (storage/rows.ts).
import { storedText } from "@svc/core";
import { type Column, type ColumnTable, EVENT_COLUMNS, HIT_COLUMNS, type EventRow, type HitRow, type PropValue, type RowOf } from "../storage/rows.ts";

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

// A site lane stamps every row of a hand-over with one time, so a batch holds a few distinct time stamps: the
// last one's text is kept (a Date and toISOString per row were 2 % of the gateway's CPU at full ingest load).
let lastMs = Number.NaN;
let lastIso = "";

function copyTimestamp(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
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

/** The encoder of each kind of column: the one function a value of that column goes through. */
export const COPY_CODECS = {
  int: copyInt,
  text: copyText,
  nullableText: copyNullableText,
  timestamp: copyTimestamp,
  bytea: copyBytea,
  jsonb: copyJson,
} as const;
type CopyCodec = keyof typeof COPY_CODECS;

// int and jsonb encoders already write \N for null; text has its own nullable variant so a non-null column
// pays no null check.
function copyCodec(column: Column): CopyCodec {
  return column.codec === "text" && column.nullable === true ? "nullableText" : column.codec;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** `copy <table> (<columns>) from stdin` for one column table. */
export function copyStatement(table: string, columns: ColumnTable): string {
  return `copy ${table} (${Object.keys(columns).join(", ")}) from stdin`;
}

/**
 * The line encoder of one column table, generated as one concatenation expression: the same code as a
 * hand-written `copyInt(r.site_id) + "\t" + copyTimestamp(r.ts) + …`, so V8 sees monomorphic property loads
 * and direct calls, for every ingested row. `npm run bench:copy` (CPU time, three runs at load average 7–9)
 * measured it at 0.99–1.09× the hand-written encoders' time per event row and 0.85–1.00× per hit row: equal
 * within the box's noise. A loop over the columns with keyed loads measured about the same on the bench's
 * uniform rows, but the ingest's rows come in several object shapes (fields, then site/ts/hash and kind
 * added), where keyed loads go megamorphic; the generated code has no such risk.
 */
export function lineEncoder<T extends ColumnTable>(columns: T): (row: RowOf<T>) => string {
  const names = Object.keys(columns);
  const parts = names.map((name) => {
    if (!IDENTIFIER.test(name)) throw new Error(`column name not usable in generated code: ${name}`);
    return `${copyCodec(columns[name]!)}(r.${name})`;
  });
  const codecs = Object.keys(COPY_CODECS);
  const make = new Function(...codecs, `return function line(r) { return ${parts.join(' + "\\t" + ')} + "\\n"; };`);
  return make(...Object.values(COPY_CODECS)) as (row: RowOf<T>) => string;
}

const eventLine = lineEncoder(EVENT_COLUMNS);
const hitLine = lineEncoder(HIT_COLUMNS);

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
