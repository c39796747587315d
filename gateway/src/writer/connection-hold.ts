// The writer's connections between its commits. Taking one from the pool and giving it back for every commit was
// pg-pool's `connect()` (a pending item, a timer for the acquire timeout, a `nextTick`, two promises) and `release()`:
// 1.0–1.3 % of the gateway's perf samples at full ingest load, and a turn of the microtask queue between a commit's
// start and its write (gateway/README.md "Seventeenth pass"). A held connection is taken back at once.
//
// A connection that breaks while it waits in the hold (PostgreSQL restarted, the connection cut) leaves the hold and the
// pool at once, as an idle one of the pool would, so the next commit takes a new one instead of failing on it and
// waiting for a retry. pg-pool's `end()` waits for every connection checked out, so the writer hands its held ones back
// (`close`) before the pool ends.
import type pg from "pg";

export class ConnectionHold {
  /** The idle connections, each with its listener for a failure while it waits for the next commit. */
  private readonly idle: Array<{ readonly client: pg.PoolClient; readonly onError: (error: Error) => void }> = [];
  private closed = false;

  constructor(private readonly pool: pg.Pool) {}

  /** Connections waiting in the hold. */
  get size(): number {
    return this.idle.length;
  }

  /** A held connection (no wait), else one from the pool. */
  take(): pg.PoolClient | Promise<pg.PoolClient> {
    const held = this.idle.pop();
    if (held === undefined) return this.pool.connect();
    held.client.removeListener("error", held.onError);
    return held.client;
  }

  /** A connection whose commit succeeded: held for the next one (back to the pool once the hold is closed). */
  keep(client: pg.PoolClient): void {
    if (this.closed) return client.release();
    const held = {
      client,
      onError: (error: Error) => {
        const at = this.idle.indexOf(held);
        if (at !== -1) this.idle.splice(at, 1);
        client.removeListener("error", held.onError);
        // Released with the error, pg-pool drops it (and listens to it again until it is gone).
        client.release(error);
      },
    };
    client.on("error", held.onError);
    this.idle.push(held);
  }

  /** Every held connection back to the pool, and the ones kept later too: before the pool ends. */
  close(): void {
    this.closed = true;
    for (const { client, onError } of this.idle.splice(0)) {
      client.removeListener("error", onError);
      client.release();
    }
  }
}

/** Where a commit takes its connection: the pool (a connection each time) or the writer's hold. */
export type Connections = pg.Pool | ConnectionHold;

export function takeConnection(connections: Connections): pg.PoolClient | Promise<pg.PoolClient> {
  return connections instanceof ConnectionHold ? connections.take() : connections.connect();
}

/** After a commit that succeeded: held again, or released to the pool. */
export function returnConnection(connections: Connections, client: pg.PoolClient): void {
  if (connections instanceof ConnectionHold) connections.keep(client);
  else client.release();
}
