// Rows → PostgreSQL's binary COPY format, written straight into bytes: the batch goes to PostgreSQL as one socket
// write (copy-batch.ts), and its message is the buffer the rows were written into. Each table's row encoder is
// generated from its column table (storage/rows.ts).
//
// Why binary, not COPY's text format: in text every value is parsed back by the server (a time stamp by
// DecodeDateTime, a bytea from hex, every field split and unescaped by CopyReadAttributesText), and written with
// escapes here. In binary a field is its length and its bytes: a time stamp is 8 bytes, the visitor hash its 32,
// text needs no escapes. 200,000 rows of the bench's shape copied into one month's partition by psql, three
// alternated pairs: 502 / 488 / 478 ms as text, 414 / 366 / 385 ms as binary (−0.5 µs of PostgreSQL's CPU a row);
// gateway/README.md "Thirteenth pass" has the gateway's figures.
//
// Why bytes, not a string: a batch built as one string (a `+=` per field and line) was a rope of ~1,000 pieces
// per 38 rows that the socket write then flattened, measured in UTF-8 and copied — 2.5 µs an event in the
// writer's stage beside the encoder's own 1.4 (gateway/README.md "Seventh pass"). Here an ASCII value is copied
// character by character as it is checked, with no intermediate string; anything else is written by Buffer#write.
import { Buffer } from "node:buffer";
import { storedText } from "@svc/core";
import { ByteWriter } from "../storage/byte-writer.ts";
import { type Codec, type ColumnTable, EVENT_COLUMNS, HIT_COLUMNS, type EventRow, type HitRow, type PropValue, type RowOf } from "../storage/rows.ts";

/** The signature, flags (no OIDs) and header-extension length that open a binary COPY's data. */
export const COPY_HEADER = Buffer.from([...Buffer.from("PGCOPY\n\xff\r\n\0", "latin1"), 0, 0, 0, 0, 0, 0, 0, 0]);
/** The field count -1 that ends it. */
export const COPY_TRAILER = Buffer.from([0xff, 0xff]);

// timestamptz travels as microseconds since 2000-01-01 00:00 UTC.
const POSTGRES_EPOCH_MS = Date.UTC(2000, 0, 1);
const TWO_32 = 2 ** 32;

// jsonb refuses the escapes JSON.stringify writes for NUL (\u0000) and for a lone surrogate (\ud800): one such
// prop failed every row of its batch. Props arrive in stored form; any that do not are put in it here.
const UNSTORABLE_JSON_ESCAPE = /\\u(?:0000|d[89a-f])/i;
// jsonb's binary form: a version byte, then the JSON text.
const JSONB_VERSION = 1;

function inStoredForm(props: Record<string, PropValue>): Record<string, PropValue> {
  return Object.fromEntries(Object.entries(props).map(([key, value]) => [storedText(key), typeof value === "string" ? storedText(value) : value]));
}

/**
 * Binary COPY data (and the protocol's framing around it, copy-batch.ts) in a growing buffer. Each method writes
 * one field, its length first; the generated row encoders call `fields`, then one method per column in order.
 */
export class CopyBytes extends ByteWriter {
  constructor(capacity = 4096) {
    super(capacity);
  }

  int32(value: number): void {
    this.room(4);
    this.bytes.writeInt32BE(value, this.length);
    this.length += 4;
  }

  /** `value` as UTF-8, unframed (a protocol string: a statement). */
  utf8(value: string): void {
    this.room(value.length * 3);
    this.length += this.bytes.write(value, this.length);
  }

  /** A tuple's field count. */
  fields(n: number): void {
    this.room(2);
    this.bytes[this.length] = n >> 8;
    this.bytes[this.length + 1] = n & 0xff;
    this.length += 2;
  }

  /** A null field: length -1. */
  null(): void {
    this.room(4);
    int32At(this.bytes, this.length, -1);
    this.length += 4;
  }

  /**
   * A text field. ASCII with no NUL is copied as it is checked; anything else is written by Buffer#write, which
   * turns a lone surrogate into U+FFFD as storedText would, with a NUL removed first (text cannot hold one).
   */
  text(value: string): void {
    const n = value.length;
    this.room(n + 4);
    const bytes = this.bytes;
    const start = this.length;
    const at = start + 4;
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i);
      if (c === 0 || c >= 0x80) return this.utf8Field(value);
      bytes[at + i] = c;
    }
    int32At(bytes, start, n);
    this.length = at + n;
  }

  private utf8Field(value: string): void {
    const text = value.includes("\0") ? storedText(value) : value;
    this.room(4 + text.length * 3);
    const start = this.length;
    const n = this.bytes.write(text, start + 4);
    int32At(this.bytes, start, n);
    this.length = start + 4 + n;
  }

  nullableText(value: string | null): void {
    if (value === null) this.null();
    else this.text(value);
  }

  /**
   * An integer column (int4). A value it cannot hold is refused here, before the batch is sent: binary COPY has
   * no room for it (the text format let the server refuse it). The decoders bound every integer a request brings
   * (core/src/schema/limits.ts), so this is a fault of the gateway's own, as a fractional value is.
   */
  int(value: number | null): void {
    if (value === null) return this.null();
    integerIn(value, 0x7fffffff, "integer");
    this.room(8);
    int32At(this.bytes, this.length, 4);
    int32At(this.bytes, this.length + 4, value);
    this.length += 8;
  }

  /** A smallint column (int2). */
  smallint(value: number | null): void {
    if (value === null) return this.null();
    integerIn(value, 0x7fff, "smallint");
    this.room(6);
    const bytes = this.bytes;
    const at = this.length;
    int32At(bytes, at, 2);
    bytes[at + 4] = value >> 8;
    bytes[at + 5] = value;
    this.length = at + 6;
  }

  /** Epoch ms as timestamptz: int64 microseconds since 2000, written as two 32-bit halves (exact below 2^53 µs, year 2255). */
  timestamp(ms: number): void {
    const us = (ms - POSTGRES_EPOCH_MS) * 1000;
    const high = Math.floor(us / TWO_32);
    this.room(12);
    const bytes = this.bytes;
    const at = this.length;
    int32At(bytes, at, 8);
    int32At(bytes, at + 4, high);
    int32At(bytes, at + 8, us - high * TWO_32);
    this.length = at + 12;
  }

  bytea(value: Buffer): void {
    const n = value.length;
    this.room(4 + n);
    const bytes = this.bytes;
    const at = this.length + 4;
    int32At(bytes, this.length, n);
    // A loop: the hash is 32 bytes, and Buffer#copy is a call into C++ per row.
    for (let i = 0; i < n; i++) bytes[at + i] = value[i]!;
    this.length = at + n;
  }

  jsonb(props: Record<string, PropValue> | null): void {
    if (props === null) return this.null();
    let json = JSON.stringify(props);
    if (UNSTORABLE_JSON_ESCAPE.test(json)) json = JSON.stringify(inStoredForm(props));
    this.room(5 + json.length * 3);
    const start = this.length;
    this.bytes[start + 4] = JSONB_VERSION;
    const n = this.bytes.write(json, start + 5);
    int32At(this.bytes, start, n + 1);
    this.length = start + 5 + n;
  }
}

function integerIn(value: number, max: number, type: string): void {
  if (!Number.isInteger(value)) throw new TypeError(`not an integer: ${value}`);
  if (value > max || value < -max - 1) throw new RangeError(`${value} is out of range for type ${type}`);
}

/**
 * 32 bits of `n` big-endian at `at`: a length, an int4, half an int8. A store into a Uint8Array keeps the low 8
 * bits of the number, so negative values and ones up to 2^32 need no masks. Written by hand: Buffer#writeInt32BE's
 * checks and Buffer#fill's call into C++ per null field made the first binary encoder slower than the text one
 * (`npm run bench:copy`: events 1,111 / 1,229 ns a row against 956 / 1,059).
 */
function int32At(bytes: Buffer, at: number, n: number): void {
  bytes[at] = n >>> 24;
  bytes[at + 1] = n >>> 16;
  bytes[at + 2] = n >>> 8;
  bytes[at + 3] = n;
}

/** The method of CopyBytes each kind of column is written by: the one function a value of that column goes through. */
type CopyCodec = (Codec | "nullableText") & keyof CopyBytes;

// int, smallint and jsonb already write a null field for null; text has its own nullable variant so a non-null column pays no null check.
function copyCodec(column: ColumnTable[string]): CopyCodec {
  return column.codec === "text" && column.nullable === true ? "nullableText" : column.codec;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** `copy <table> (<columns>) from stdin with (format binary)` for one column table. */
export function copyStatement(table: string, columns: ColumnTable): string {
  return `copy ${table} (${Object.keys(columns).join(", ")}) from stdin with (format binary)`;
}

/** Writes one row as a binary COPY tuple into `out`. */
export type RowEncoder<T> = (out: CopyBytes, row: T) => void;

/**
 * The row encoder of one column table, generated as straight-line code: the same as a hand-written
 * `out.fields(26); out.int(r.site_id); out.timestamp(r.ts); … out.nullableText(r.os_version)`, so V8 sees
 * monomorphic property loads and direct method calls on one class, for every ingested row. (As string
 * concatenation, `npm run bench:copy` measured the generated form at 0.99–1.09× the hand-written encoders' time per
 * row; a loop over the columns with keyed loads goes megamorphic on the ingest's rows, which come in several object
 * shapes.)
 */
export function rowEncoder<T extends ColumnTable>(columns: T): RowEncoder<RowOf<T>> {
  const names = Object.keys(columns);
  const body = names.map((name) => {
    if (!IDENTIFIER.test(name)) throw new Error(`column name not usable in generated code: ${name}`);
    return `o.${copyCodec(columns[name]!)}(r.${name});`;
  });
  return new Function(`return function copyRow(o, r) { o.fields(${names.length}); ${body.join(" ")} };`)() as RowEncoder<RowOf<T>>;
}

const eventRow = rowEncoder(EVENT_COLUMNS);
const hitRow = rowEncoder(HIT_COLUMNS);

// ~300 bytes a row of the bench's scenario: a batch's message is sized once, not grown.
const BYTES_PER_ROW = 320;

function encode<T>(rows: readonly T[], row: RowEncoder<T>, out: CopyBytes): CopyBytes {
  out.room(rows.length * BYTES_PER_ROW);
  for (const r of rows) row(out, r);
  return out;
}

/** The binary COPY tuples of `rows`, written after what `out` holds (without COPY_HEADER and COPY_TRAILER). */
export function encodeEvents(rows: readonly EventRow[], out = new CopyBytes()): CopyBytes {
  return encode(rows, eventRow, out);
}

export function encodeHits(rows: readonly HitRow[], out = new CopyBytes()): CopyBytes {
  return encode(rows, hitRow, out);
}
