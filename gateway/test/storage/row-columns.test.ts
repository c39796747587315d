// The column tables of storage/rows.ts are the one definition of the raw rows: the migrated schema, the COPY
// statements, the generated row encoders and the day replay must all agree with them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY_MS } from "@svc/core";
import { type Codec, type ColumnTable, EVENT_COLUMNS, type EventRow, HIT_COLUMNS, type HitRow } from "../../src/storage/rows.ts";
import { copyStatement, encodeEvents, encodeHits } from "../../src/writer/copy-binary.ts";
import { forEachDayRow } from "../../src/rollups/day-rows.ts";
import { commitRows } from "../../src/writer/commit-rows.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { eventRow, hitRow } from "../support/sample-rows.ts";

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

// information_schema's data_type → the codec a column of that type takes.
const CODEC_OF_TYPE: Record<string, Codec> = {
  integer: "int",
  smallint: "smallint",
  text: "text",
  "timestamp with time zone": "timestamp",
  bytea: "bytea",
  jsonb: "jsonb",
};

// Each kind with its table, a complete sample row and its encoder.
const KINDS = [
  { table: "events", columns: EVENT_COLUMNS as ColumnTable, sample: eventRow({ props: { plan: "pro" } }), encode: (row: object) => encodeEvents([row as EventRow]).written() },
  { table: "hits", columns: HIT_COLUMNS as ColumnTable, sample: hitRow({ country: "US" }), encode: (row: object) => encodeHits([row as HitRow]).written() },
];

/** A binary COPY tuple's fields: null, or the field's bytes. */
function fieldsOf(tuple: Buffer): Array<Buffer | null> {
  const count = tuple.readInt16BE(0);
  const fields: Array<Buffer | null> = [];
  let at = 2;
  for (let i = 0; i < count; i++) {
    const length = tuple.readInt32BE(at);
    at += 4;
    fields.push(length === -1 ? null : tuple.subarray(at, at + length));
    if (length > 0) at += length;
  }
  expect(at).toBe(tuple.length);
  return fields;
}

function nullsOf(columns: ColumnTable): Record<string, null> {
  return Object.fromEntries(Object.entries(columns).filter(([, c]) => c.nullable === true).map(([name]) => [name, null]));
}

describe.each(KINDS)("$table", ({ table, columns, sample, encode }) => {
  it("the column table matches the migrated schema: every column, its type and its nullability", async () => {
    const { rows } = await db.pool.query<{ column_name: string; data_type: string; is_nullable: string }>(
      "select column_name, data_type, is_nullable from information_schema.columns where table_schema = current_schema() and table_name = $1",
      [table],
    );
    const fromSchema = Object.fromEntries(
      rows.map((r) => [r.column_name, { codec: CODEC_OF_TYPE[r.data_type] ?? r.data_type, ...(r.is_nullable === "YES" ? { nullable: true } : {}) }]),
    );
    expect(fromSchema).toEqual({ ...columns });
  });

  it("the COPY statement names the table's columns in its order", () => {
    expect(copyStatement(table, columns)).toBe(`copy ${table} (${Object.keys(columns).join(", ")}) from stdin with (format binary)`);
  });

  it("the encoder writes one field per column, in the table's order, null exactly where the row holds null", () => {
    const names = Object.keys(columns);
    for (const row of [sample, { ...sample, ...nullsOf(columns) }] as Array<Record<string, unknown>>) {
      const fields = fieldsOf(encode(row));
      expect(fields).toHaveLength(names.length);
      expect(names.filter((_, i) => fields[i] === null)).toEqual(names.filter((name) => row[name] === null));
      expect(fields[names.indexOf("page")]?.toString("utf8")).toBe(row.page);
    }
  });
});

describe("the day replay", () => {
  it("reads back what the COPY wrote: each column it selects equals the written row's, null where the table has none", async () => {
    const event = eventRow({ props: { plan: "pro" } });
    const hit = hitRow({ ts: event.ts + 1, country: "US", status: 404 });
    await commitRows(db.pool, { events: [event], hits: [hit] });
    const dayStart = Date.UTC(2026, 10, 21);
    const read: Array<Record<string, unknown>> = [];
    await forEachDayRow(db.pool, 1, dayStart, dayStart + DAY_MS, (row) => read.push({ ...row }));
    expect(read.map((r) => r.kind)).toEqual(["event", "hit"]);
    for (const [replayed, written] of [[read[0]!, event], [read[1]!, hit]] as Array<[Record<string, unknown>, Record<string, unknown>]>) {
      const { kind: _kind, ...columns } = replayed;
      expect(Object.keys(columns).length).toBeGreaterThan(10);
      expect(columns).toEqual(Object.fromEntries(Object.keys(columns).map((name) => [name, name in written ? written[name] : null])));
    }
  });
});
