// Rows → PostgreSQL COPY text format (tab-separated, \N for null, backslash escapes), written straight into
// UTF-8 bytes: the batch goes to PostgreSQL as one socket write (copy-batch.ts), and its message is the buffer
// the rows were written into. Each table's line encoder is generated from its column table (storage/rows.ts).
//
// Why bytes, not a string: a batch built as one string (a `+=` per field and line) was a rope of ~1,000 pieces
// per 38 rows that the socket write then flattened, measured in UTF-8 and copied — 2.5 µs an event in the
// writer's stage beside the encoder's own 1.4 (perf, `npm run bench -- --perf`, 20,229 events/s on a quiet box;
// gateway/README.md "Seventh pass"). Here an ASCII field is copied character by character as its escapes are
// checked, with no intermediate string; a field with anything else takes the string path (`copyText`) once.
import { Buffer } from "node:buffer";
import { storedText } from "@svc/core";
import { ByteWriter } from "../storage/byte-writer.ts";
import { type Codec, type Column, type ColumnTable, EVENT_COLUMNS, HIT_COLUMNS, type EventRow, type HitRow, type PropValue, type RowOf } from "../storage/rows.ts";

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

/** The byte after a value: a tab before the next column, a newline after the last. */
export const TAB = 0x09;
export const NEWLINE = 0x0a;
const BACKSLASH = 0x5c;
const HEX = Buffer.from("0123456789abcdef", "latin1");

// jsonb refuses the escapes JSON.stringify writes for NUL (\u0000) and for a lone surrogate (\ud800): one such
// prop failed every row of its batch. Props arrive in stored form; any that do not are put in it here.
const UNSTORABLE_JSON_ESCAPE = /\\u(?:0000|d[89a-f])/i;

function inStoredForm(props: Record<string, PropValue>): Record<string, PropValue> {
  return Object.fromEntries(Object.entries(props).map(([key, value]) => [storedText(key), typeof value === "string" ? storedText(value) : value]));
}

/**
 * COPY text as UTF-8 bytes (and the protocol's framing around it, copy-batch.ts) in a growing buffer.
 * Each method writes one value in its column's form; the generated line encoders call them in column order.
 */
export class CopyBytes extends ByteWriter {
  // A site lane stamps every row of a hand-over with one time, so a batch holds a few distinct time stamps: the
  // last one's text is kept (a Date and toISOString per row were 2 % of the gateway's CPU at full ingest load).
  private lastMs = Number.NaN;
  private lastIso = "";

  constructor(capacity = 4096) {
    super(capacity);
  }

  int32(value: number): void {
    this.room(4);
    this.bytes.writeInt32BE(value, this.length);
    this.length += 4;
  }

  /** `value` as UTF-8, unescaped (protocol strings: a statement, a table's data once escaped). */
  utf8(value: string): void {
    this.room(value.length * 3);
    this.length += this.bytes.write(value, this.length);
  }

  /** `\N`, then `end`. */
  null(end: number): void {
    this.room(3);
    const bytes = this.bytes;
    bytes[this.length] = BACKSLASH;
    bytes[this.length + 1] = 0x4e; // N
    bytes[this.length + 2] = end;
    this.length += 3;
  }

  /**
   * A text value, then `end` (the tab before the next column or the line's newline: written here, not by a call
   * of its own, which V8 did not inline into the generated line). ASCII without COPY's special characters is
   * copied as it is checked; the rest is escaped as a string.
   */
  text(value: string, end: number): void {
    const n = value.length;
    this.room(n + 1);
    const bytes = this.bytes;
    const start = this.length;
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i);
      // Below 0x0e are NUL, tab, newline and carriage return; 0x5c is the backslash; 0x80 and up are not ASCII.
      if (c < 0x0e || c === BACKSLASH || c >= 0x80) {
        this.length = start;
        this.utf8(copyText(value));
        this.byte(end);
        return;
      }
      bytes[start + i] = c;
    }
    bytes[start + n] = end;
    this.length = start + n + 1;
  }

  nullableText(value: string | null, end: number): void {
    if (value === null) this.null(end);
    else this.text(value, end);
  }

  int(value: number | null, end: number): void {
    if (value === null) this.null(end);
    else if (!Number.isInteger(value)) throw new TypeError(`not an integer: ${value}`);
    else this.text(String(value), end);
  }

  timestamp(ms: number, end: number): void {
    if (ms !== this.lastMs) {
      this.lastIso = new Date(ms).toISOString();
      this.lastMs = ms;
    }
    this.text(this.lastIso, end);
  }

  /** bytea in hex form (`\\x…`: its backslash escaped for the COPY text layer), straight from the bytes. */
  bytea(value: Buffer, end: number): void {
    const n = value.length;
    this.room(4 + 2 * n);
    const bytes = this.bytes;
    let at = this.length;
    bytes[at++] = BACKSLASH;
    bytes[at++] = BACKSLASH;
    bytes[at++] = 0x78; // x
    for (let i = 0; i < n; i++) {
      const b = value[i]!;
      bytes[at++] = HEX[b >> 4]!;
      bytes[at++] = HEX[b & 15]!;
    }
    bytes[at++] = end;
    this.length = at;
  }

  jsonb(props: Record<string, PropValue> | null, end: number): void {
    if (props === null) return this.null(end);
    let json = JSON.stringify(props);
    if (UNSTORABLE_JSON_ESCAPE.test(json)) json = JSON.stringify(inStoredForm(props));
    this.text(json, end);
  }
}

/** The method of CopyBytes each kind of column is written by: the one function a value of that column goes through. */
type CopyCodec = (Codec | "nullableText") & keyof CopyBytes;

// int and jsonb already write \N for null; text has its own nullable variant so a non-null column pays no null check.
function copyCodec(column: Column): CopyCodec {
  return column.codec === "text" && column.nullable === true ? "nullableText" : column.codec;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** `copy <table> (<columns>) from stdin` for one column table. */
export function copyStatement(table: string, columns: ColumnTable): string {
  return `copy ${table} (${Object.keys(columns).join(", ")}) from stdin`;
}

/** Writes one row as a COPY line into `out`. */
export type LineEncoder<T> = (out: CopyBytes, row: T) => void;

/**
 * The line encoder of one column table, generated as straight-line code: the same as a hand-written
 * `out.int(r.site_id, TAB); out.timestamp(r.ts, TAB); … out.nullableText(r.os_version, NEWLINE)`, so V8 sees
 * monomorphic property loads and direct method calls on one class, for every ingested row. (As string concatenation, `npm run bench:copy` measured the
 * generated form at 0.99–1.09× the hand-written encoders' time per row; a loop over the columns with keyed loads
 * goes megamorphic on the ingest's rows, which come in several object shapes.)
 */
export function lineEncoder<T extends ColumnTable>(columns: T): LineEncoder<RowOf<T>> {
  const names = Object.keys(columns);
  const body = names.map((name, i) => {
    if (!IDENTIFIER.test(name)) throw new Error(`column name not usable in generated code: ${name}`);
    return `o.${copyCodec(columns[name]!)}(r.${name}, ${i === names.length - 1 ? NEWLINE : TAB});`;
  });
  return new Function(`return function line(o, r) { ${body.join(" ")} };`)() as LineEncoder<RowOf<T>>;
}

const eventLine = lineEncoder(EVENT_COLUMNS);
const hitLine = lineEncoder(HIT_COLUMNS);

// ~300 bytes a row of the bench's scenario: a batch's message is sized once, not grown.
const BYTES_PER_ROW = 320;

function encode<T>(rows: readonly T[], line: LineEncoder<T>, out: CopyBytes): CopyBytes {
  out.room(rows.length * BYTES_PER_ROW);
  for (const row of rows) line(out, row);
  return out;
}

/** The COPY text of `rows`, written after what `out` holds. */
export function encodeEvents(rows: readonly EventRow[], out = new CopyBytes()): CopyBytes {
  return encode(rows, eventLine, out);
}

export function encodeHits(rows: readonly HitRow[], out = new CopyBytes()): CopyBytes {
  return encode(rows, hitLine, out);
}
