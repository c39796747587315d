// One batch of raw rows → PostgreSQL in one socket write and one round trip.
//
// The batch is a single simple-protocol Query holding one binary `COPY … FROM STDIN` per table, followed at once
// by each COPY's data (COPY_HEADER, the tuples, COPY_TRAILER) and CopyDone. A multi-statement Query runs as one implicit transaction, so the
// events and hits of a batch commit together or not at all, with no BEGIN/COMMIT round trips. The data
// does not wait for CopyInResponse: the server reads it in order, and after a failed COPY it ignores the
// CopyData/CopyDone messages that follow (PostgreSQL's protocol rule for a client still sending).
//
// Why not pg-copy-streams (DESIGN's choice for COPY): through it a batch was begin, COPY, two writes per
// chunk, CopyDone, commit — 6 to 8 write syscalls and 4 round trips, and on loopback the writes alone took
// 42 % of the gateway's main thread at 15,000 rows/s (`SVC_NODE_OPTIONS=--cpu-prof npm run bench`). A/B on
// the same build, `npm run bench -- --duration 15` at 64 connections: pg-copy-streams in a transaction
// 20,993 and 20,696 events/s, this one-write batch 30,570 and 30,972.
import type pg from "pg";
import { type Connections, returnConnection, takeConnection } from "./connection-hold.ts";
import { COPY_HEADER, COPY_TRAILER, CopyBytes } from "./copy-binary.ts";

const QUERY = 0x51; // 'Q'
const COPY_DATA = 0x64; // 'd'
const COPY_DONE = 0x63; // 'c'

export interface CopyPart {
  /** `copy <table> (<columns>) from stdin with (format binary)` (copyStatement) */
  readonly statement: string;
  readonly rows: number;
  /** Writes the rows as binary COPY tuples (copy-binary.ts); the header and trailer are written around them here. */
  readonly encode: (out: CopyBytes) => void;
}

/**
 * The frontend messages of a batch: Query, then per table CopyData + CopyDone, in one buffer the rows are
 * encoded straight into (each length written once its message is complete).
 */
export function copyBatchMessage(parts: readonly CopyPart[]): Buffer {
  const out = new CopyBytes(256);
  out.byte(QUERY);
  framed(out, () => {
    out.utf8(parts.map((p) => p.statement).join("; "));
    out.byte(0);
  });
  for (const part of parts) {
    out.byte(COPY_DATA);
    framed(out, () => {
      out.raw(COPY_HEADER);
      part.encode(out);
      out.raw(COPY_TRAILER);
    });
    out.byte(COPY_DONE);
    out.int32(4);
  }
  return out.written();
}

/** A message's Int32 length (itself included) before what `body` writes. */
function framed(out: CopyBytes, body: () => void): void {
  const at = out.length;
  out.int32(0);
  body();
  out.bytes.writeInt32BE(out.length - at, at);
}

/** The parts of node-postgres' connection this query touches. */
interface Connection {
  readonly stream: { write(data: Buffer): boolean };
}

/**
 * A node-postgres "submittable": the client calls `submit` when the connection is free and routes the
 * backend's messages to the handle* methods until ReadyForQuery.
 */
class CopyBatchQuery {
  private readonly counts: number[] = [];
  private settled = false;

  constructor(
    private readonly message: Buffer,
    private readonly expected: readonly number[],
    private readonly resolve: () => void,
    private readonly reject: (error: Error) => void,
  ) {}

  // node-postgres wraps a `callback` with its query timeout when one is configured.
  callback(): void {}

  submit(connection: Connection): void {
    connection.stream.write(this.message);
  }

  handleCommandComplete(message: { text: string }): void {
    const m = /^COPY (\d+)$/.exec(message.text);
    if (m) this.counts.push(Number(m[1]));
  }

  handleError(error: Error): void {
    // Also called for a broken connection, which never reaches ReadyForQuery: settle now.
    this.settle(error);
  }

  handleReadyForQuery(): void {
    const same = this.counts.length === this.expected.length && this.counts.every((n, i) => n === this.expected[i]);
    this.settle(same ? null : new Error(`COPY stored ${this.counts.join("+") || "nothing"} rows, expected ${this.expected.join("+")}`));
  }

  handleCopyInResponse(): void {}
  handleEmptyQuery(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handlePortalSuspended(): void {}

  private settle(error: Error | null): void {
    if (this.settled) return;
    this.settled = true;
    if (error) this.reject(error);
    else this.resolve();
  }
}

/**
 * Runs the COPYs of `parts` as one transaction on a connection of `connections` (the writer's hold: no wait for it).
 * On an error nothing of the batch is stored, the connection is discarded (its protocol state after a failed
 * pipelined COPY is not worth trusting) and the error is thrown.
 */
export async function copyBatch(connections: Connections, parts: readonly CopyPart[]): Promise<void> {
  const present = parts.filter((p) => p.rows > 0);
  if (present.length === 0) return;
  const message = copyBatchMessage(present);
  const taken = takeConnection(connections);
  const client = taken instanceof Promise ? await taken : taken;
  try {
    await new Promise<void>((resolve, reject) => {
      // A submittable: node-postgres drives it and it settles this promise itself; query() returns it, not a promise.
      void client.query(new CopyBatchQuery(message, present.map((p) => p.rows), resolve, reject) as unknown as pg.QueryConfig);
    });
  } catch (error) {
    client.release(true);
    throw error;
  }
  returnConnection(connections, client);
}
