// The commit thread's side (commit-thread.ts): a pool of its own on the database, and the one-write COPY batch of
// copy-batch.ts for every batch the main thread posts. It holds no state but its connections: a batch it cannot
// commit is reported back as the error PostgreSQL or the socket gave, and the main thread's writer decides.
import { parentPort, workerData } from "node:worker_threads";
import pg from "pg";
import { copyBatch, type CopyPart } from "./copy-batch.ts";
import { type CommitThreadData, type CommitRequest, type CommitReply, errorFields } from "./commit-thread-messages.ts";
import { poolLimitOptions } from "../storage/pool-limits.ts";

const port = parentPort!;
const data = workerData as CommitThreadData;
const pool = new pg.Pool({ connectionString: data.url, max: data.inFlight + 1, ...poolLimitOptions(data.limits) });
// A connection that breaks while idle must not end the thread (storage/database.ts guardPool does the same).
pool.on("connect", (client) => client.on("error", () => undefined));
pool.on("error", (error) => port.postMessage({ log: `database: idle commit-thread connection lost (${error.message})` } satisfies CommitReply));

port.on("message", (message: CommitRequest) => {
  if (message.close) {
    void pool.end().finally(() => port.close());
    return;
  }
  const parts: CopyPart[] = message.parts;
  copyBatch(pool, parts).then(
    () => port.postMessage({ id: message.id, error: null } satisfies CommitReply),
    (error: unknown) => port.postMessage({ id: message.id, error: errorFields(error) } satisfies CommitReply),
  );
});
