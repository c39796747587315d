// The raw-row write path: one batch = one transaction holding the COPY of its events and hits, sent as one
// socket write (copy-batch.ts). Rollups are written apart, from the actors' counts (src/rollups/rollup-writes.ts).
import type { Connections } from "./connection-hold.ts";
import { type CopyPart, copyBatch } from "./copy-batch.ts";
import { copyStatement, encodeEvents, encodeHits } from "./copy-binary.ts";
import { type MonthlyPartition, partitionFor } from "../storage/partitions.ts";
import { type ColumnTable, EVENT_COLUMNS, HIT_COLUMNS, type WriteBatch } from "../storage/rows.ts";

// A table's rows whose time stamps all lie in one UTC month are copied straight into that month's partition: the
// parent's partition routing is skipped. 38-row commits on one backend, four alternated pairs: 338 / 275 / 275 /
// 288 → 288 / 238 / 250 / 275 µs of PostgreSQL's CPU per commit (gateway/README.md "Third pass"). Live rows are
// stamped now (hits: within the hour), so a batch spans two months only at a month's boundary; it then goes to
// the parent, as does any batch while its month's partition is missing (those rows land in the default
// partition, as before, and are reported).
const statements = new Map<string, string>();
function statementFor(table: string, columns: ColumnTable): string {
  let statement = statements.get(table);
  if (statement === undefined) statements.set(table, (statement = copyStatement(table, columns)));
  return statement;
}

/** Partitions found missing, and until when (ms) the parent is used instead: the maintenance fiber makes them within a minute. */
const missing = new Map<string, number>();
const MISSING_RETRY_MS = 60_000;

/** Each table's partition of the last batch: a live batch's rows nearly always lie in the same month (a Date and a name less a commit). */
const lastPartition: Record<"events" | "hits", MonthlyPartition | null> = { events: null, hits: null };

function targetOf(table: "events" | "hits", rows: readonly { readonly ts: number }[], direct: boolean): string {
  if (!direct || rows.length === 0) return table;
  let min = rows[0]!.ts;
  let max = min;
  for (const row of rows) {
    if (row.ts < min) min = row.ts;
    else if (row.ts > max) max = row.ts;
  }
  let partition = lastPartition[table];
  if (partition === null || min < partition.fromMs || min >= partition.toMs) {
    const first = new Date(min);
    lastPartition[table] = partition = partitionFor(table, first.getUTCFullYear(), first.getUTCMonth());
  }
  if (max >= partition.toMs) return table;
  const until = missing.get(partition.name);
  if (until !== undefined) {
    if (Date.now() < until) return table;
    missing.delete(partition.name);
  }
  return partition.name;
}

/**
 * A batch as the COPY of each table (encoded by copyBatch before it takes a connection: a row the encoder rejects
 * costs no round trip), into each table's month partition when `direct` and all its rows are in one month.
 */
function copyParts(batch: WriteBatch, direct = true): CopyPart[] {
  return [
    { statement: statementFor(targetOf("events", batch.events, direct), EVENT_COLUMNS), rows: batch.events.length, encode: (out) => encodeEvents(batch.events, out) },
    { statement: statementFor(targetOf("hits", batch.hits, direct), HIT_COLUMNS), rows: batch.hits.length, encode: (out) => encodeHits(batch.hits, out) },
  ];
}

/**
 * Writes one batch of raw rows in one transaction. On any error nothing of the batch is stored and the
 * error is thrown: the caller retries the batch or fails its requests. When a month's partition does not exist
 * (SQLSTATE 42P01: dropped by hand, or not made yet), the same batch goes again through the parents, and that
 * partition is skipped for a while.
 */
export async function commitRows(connections: Connections, batch: WriteBatch): Promise<void> {
  const parts = copyParts(batch);
  try {
    await copyBatch(connections, parts);
  } catch (error) {
    if ((error as { code?: unknown }).code !== "42P01") throw error;
    for (const part of parts) {
      const name = /^copy (\w+) /.exec(part.statement)?.[1];
      if (name !== undefined && name !== "events" && name !== "hits") missing.set(name, Date.now() + MISSING_RETRY_MS);
    }
    await copyBatch(connections, copyParts(batch, false));
  }
}
