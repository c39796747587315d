// The commit ceiling of `npm run bench -- --commit-ceiling`: the ceiling app (ceiling-server.ts) plus the one thing a
// 202 of svc promises, that the rows are committed. Each body is parsed, each of its rows kept as its JSON text
// with a time stamp, and the 202s wait for a group commit of those rows: one COPY a batch into a table with no
// index, sent as one socket write (the gateway's own `copyBatch`), `COMMIT_CEILING_IN_FLIGHT` commits at a time.
// Nothing else: no address, no classification, no visitor, no rollup. An app answering after a durable commit on
// this stack can hardly do less an event, so what the load driver gets from it bounds what the gateway can reach,
// and the gateway's rate over it says how much of what durability leaves its own work takes.
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import uWS from "uWebSockets.js";
import pg from "pg";
import { copyBatch } from "../../gateway/src/writer/copy-batch.ts";
import { answerAccepted, COMMIT_CEILING_TABLE, listenOnFreePort } from "./ceiling-app.ts";

const inFlightMax = Number(process.env.COMMIT_CEILING_IN_FLIGHT ?? "1");
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: inFlightMax });
await pool.query(`create table if not exists ${COMMIT_CEILING_TABLE} (ts timestamptz not null, body text not null)`);

interface Waiter {
  readonly res: uWS.HttpResponse;
  readonly cors: boolean;
  aborted: boolean;
}

let waiting: Waiter[] = [];
let rows: string[] = [];
let inFlight = 0;
let commits = 0;
let committedRows = 0;
// Where its commit cycle goes, summed as the gateway's writer sums it (group-commit.ts `copyMs`, `answerMs`): from
// taking a batch to PostgreSQL's reply, and from that reply to the last 202 sent. What is left of its cycle is the
// wait for the next batch's first row; `npm run bench -- --commit-ceiling` prints the three per commit beside the
// gateway's, so the part of the gateway's cycle that this app does not have is read off one run.
let copyMs = 0;
let answerMs = 0;

function commit(): void {
  if (inFlight >= inFlightMax || waiting.length === 0) return;
  const batch = rows;
  const waiters = waiting;
  rows = [];
  waiting = [];
  inFlight++;
  const ts = Date.now();
  const taken = performance.now();
  copyBatch(pool, [{
    statement: `copy ${COMMIT_CEILING_TABLE} (ts, body) from stdin with (format binary)`,
    rows: batch.length,
    encode: (out) => {
      for (const body of batch) {
        out.fields(2);
        out.timestamp(ts);
        out.text(body);
      }
    },
  }]).then(
    () => {
      const replied = performance.now();
      inFlight--;
      commits++;
      committedRows += batch.length;
      for (const w of waiters) if (!w.aborted) answerAccepted(w.res, w.cors);
      copyMs += replied - taken;
      answerMs += performance.now() - replied;
      commit();
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}

const app = uWS.App();
app.any("/*", (res, req) => {
  const w: Waiter = { res, cors: req.getUrl() === "/api/event", aborted: false };
  res.onAborted(() => {
    w.aborted = true;
  });
  res.onData((chunk, isLast) => {
    if (!isLast || w.aborted) return;
    const body = Buffer.from(chunk).toString("utf8");
    const parsed = JSON.parse(body) as unknown;
    if (Array.isArray(parsed)) for (const row of parsed) rows.push(JSON.stringify(row));
    else rows.push(body);
    waiting.push(w);
    // The rows read in this turn of the event loop join one batch.
    if (inFlight < inFlightMax && waiting.length === 1) queueMicrotask(commit);
  });
});
listenOnFreePort(app, "commit ceiling");
process.on("SIGTERM", () => {
  // Written at once: a console.log to a pipe may still be queued when the process exits.
  fs.writeSync(1, `${JSON.stringify({ msg: "commit ceiling stopped", commits, rows: committedRows, copyMs, answerMs })}\n`);
  process.exit(0);
});
