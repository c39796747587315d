// The commit thread (SVC_COMMIT_THREAD): the writer's COPY batches are sent to PostgreSQL, and its replies read,
// by a worker thread with its own connections, so the main thread — which answers HTTP, runs the lanes and
// counts the rollups, and is the gateway's bottleneck under load — no longer pays for the socket write that
// wakes PostgreSQL, node-postgres' pool and protocol parsing, and the reads of the replies. The rows are still
// encoded on the main thread (the COPY text crosses as two strings, one copy), and the 202s are still answered
// there after the thread reports the commit: "202 means committed" is unchanged.
//
// Off by default. Measured on this 2-core box at load average 7–8 (other sessions' tests), paced at 6,000
// requests/s (~7,200 events/s) so both settings did the same work, two alternated pairs: the main thread's CPU went
// 47 / 48 → 37 / 46 µs per event, the process's 52 / 52 → 47 / 61 (the thread's own event loop, the cross-thread
// messages and their wake-ups). With the box's cores busy, total CPU is what limits ingest, and closed-loop A/Bs
// were split (gateway/README.md "Third pass"). Where the main thread is the bottleneck and the other core has
// room (a quiet box: ~25 % idle), it should pay: `npm run bench -- --against gateway/dist/main.mjs --this-env
// SVC_COMMIT_THREAD=true --rounds 4` decides.
import { Worker } from "node:worker_threads";
import type { Logger } from "../log.ts";
import type { WriteBatch } from "../storage/rows.ts";
import { commitParts } from "./commit-rows.ts";
import type { CopyPart } from "./copy-batch.ts";
import { type CommitReply, type CommitRequest, type CommitThreadData, errorFromFields } from "./commit-thread-messages.ts";
import type { CommitFn } from "./group-commit.ts";

interface Waiting {
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/**
 * The worker: the bundle's sibling `commit-thread.mjs` (gateway/scripts/bundle.ts builds it), or, when the gateway
 * runs from its TypeScript sources (tests), the source file behind tsx's loader registered in the thread first
 * (`--import tsx` in a worker's execArgv is not honoured inside vitest's own worker threads).
 */
function startWorker(data: CommitThreadData): Worker {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) return new Worker(new URL("./commit-thread.mjs", here), { workerData: data });
  const source = JSON.stringify(new URL("./commit-thread-worker.ts", here).href);
  return new Worker(`import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${source}); });`, { eval: true, workerData: data });
}

export class CommitThread {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  private closed = false;

  constructor(
    private readonly data: CommitThreadData,
    private readonly log: Logger,
  ) {
    // Started now, not at the first commit: the thread's start (~30 ms from the bundle) is not the first request's wait.
    this.started();
  }

  /** The writer's CommitFn: the batch's COPY text made here, committed on the thread. The pool argument is not used. */
  readonly commit: CommitFn = (_pool, batch: WriteBatch) => commitParts(batch, (parts) => this.send(parts));

  private send(parts: CopyPart[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.closed) return reject(new Error("commit thread closed"));
      if (parts.every((p) => p.rows === 0)) return resolve();
      const id = this.nextId++;
      this.waiting.set(id, { resolve, reject });
      this.started().postMessage({ id, parts } satisfies CommitRequest);
    });
  }

  /** Ends the thread once its commits in flight have settled (the writer waits for them before this). */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (worker === null) return;
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.postMessage({ close: true } satisfies CommitRequest);
    // Its pool ends at once when the server is up or gone; a server that accepts and never answers must not hold
    // the gateway's stop: after the acquire timeout's 5 s the thread is ended (its commits have all settled).
    const timer = setTimeout(() => void worker.terminate(), 5_000);
    await exited;
    clearTimeout(timer);
  }

  /** The running worker; a new one after a crash (its batches were failed and the writer retries them). */
  private started(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = startWorker(this.data);
    worker.on("message", (reply: CommitReply) => {
      if (reply.log !== undefined) return this.log.warn(reply.log);
      const waiting = this.waiting.get(reply.id);
      if (waiting === undefined) return;
      this.waiting.delete(reply.id);
      if (reply.error === null) waiting.resolve();
      else waiting.reject(errorFromFields(reply.error));
    });
    const stopped = (error: Error): void => {
      if (this.worker !== worker) return;
      this.worker = null;
      if (this.closed) return;
      this.log.error("commit thread stopped; its batches failed and are retried on a new one", { error: error.message });
      // Whether those batches committed is unknown, as after a connection lost before its reply: they are
      // rejected as such a commit is, and the writer retries them (group-commit.ts) on a new thread.
      for (const w of this.waiting.values()) w.reject(error);
      this.waiting.clear();
    };
    worker.on("error", stopped);
    worker.on("exit", (code) => stopped(new Error(`commit thread exited (${code})`)));
    // The thread must not keep the process alive on its own; the writer's finalizer closes it.
    worker.unref();
    this.worker = worker;
    this.log.info("commit thread started", { thread: worker.threadId });
    return worker;
  }
}
