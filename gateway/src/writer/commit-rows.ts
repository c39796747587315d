// The raw-row write path: one batch = one transaction holding the COPY of its events and hits, sent as one
// socket write (copy-batch.ts). Rollups are written apart, from the actors' counts (src/rollups/rollup-writes.ts).
import type pg from "pg";
import { copyBatch, type CopyPart } from "./copy-batch.ts";
import { copyStatement, encodeEvents, encodeHits } from "./copy-text.ts";
import { EVENT_COLUMNS, HIT_COLUMNS, type WriteBatch } from "../storage/rows.ts";

const COPY_EVENTS = copyStatement("events", EVENT_COLUMNS);
const COPY_HITS = copyStatement("hits", HIT_COLUMNS);

/** A batch as the COPY text of each table (encoded before taking a connection: a row the encoder rejects costs no round trip). */
export function copyParts(batch: WriteBatch): CopyPart[] {
  return [
    { statement: COPY_EVENTS, text: encodeEvents(batch.events), rows: batch.events.length },
    { statement: COPY_HITS, text: encodeHits(batch.hits), rows: batch.hits.length },
  ];
}

/**
 * Writes one batch of raw rows in one transaction. On any error nothing of the batch is stored and the
 * error is thrown: the caller retries the batch or fails its requests.
 */
export async function commitRows(pool: pg.Pool, batch: WriteBatch): Promise<void> {
  await copyBatch(pool, copyParts(batch));
}
