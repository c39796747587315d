// Where the writer's commit cycle goes, from the gateway's own counters (/healthz → writer: batches, copyMs,
// answerMs), or the commit ceiling app's (the same sums, in its stop report): per commit, the time from taking a batch to PostgreSQL's reply (the COPY's encoding, the round trip,
// the flush to disk), the time from that reply to the commit slot's release (each request's 202, the counts handed
// to the rollup ledger), and the rest of the cycle, which at full load is the lanes' next turns before the next
// batch is taken. With one commit in flight a closed loop's rate is its rows a commit over this cycle; PostgreSQL
// works only in the first part (gateway/README.md "Seventeenth pass").

/** What the writer's counters hold (an older build's have neither sum: its split is unknown). */
export interface WriterCounters {
  readonly batches: number;
  readonly copyMs?: number;
  readonly answerMs?: number;
}

export interface WriterCycle {
  /** Wall ms per commit over the load. */
  readonly everyMs: number;
  readonly copyMs: number | null;
  readonly answerMs: number | null;
  readonly restMs: number | null;
  /** The two parts add up to more than the cycle: commits overlapped (SVC_WRITER_IN_FLIGHT above 1), so no rest. */
  readonly overlapping: boolean;
}

const ms = (n: number) => Math.round(n * 100) / 100;

/** The cycle of a load of `seconds` that committed `writer.batches` batches; null when none was committed. */
export function writerCycle(writer: WriterCounters, seconds: number): WriterCycle | null {
  if (writer.batches <= 0) return null;
  const everyMs = (1000 * seconds) / writer.batches;
  if (writer.copyMs === undefined || writer.answerMs === undefined) return { everyMs: ms(everyMs), copyMs: null, answerMs: null, restMs: null, overlapping: false };
  const copyMs = writer.copyMs / writer.batches;
  const answerMs = writer.answerMs / writer.batches;
  const rest = everyMs - copyMs - answerMs;
  return { everyMs: ms(everyMs), copyMs: ms(copyMs), answerMs: ms(answerMs), restMs: rest < 0 ? null : ms(rest), overlapping: rest < 0 };
}

/** What the two later parts of a cycle are, in the app whose cycle it is. */
export interface CycleParts {
  readonly answers: string;
  readonly rest: string;
}

/** The gateway's: its writer hands each commit's counts to the rollup ledger as it answers, and the lanes' turns make the next batch. */
export const GATEWAY_CYCLE: CycleParts = { answers: "the 202s and the ledger", rest: "the lanes' next turns" };
/** The commit ceiling app's (commit-ceiling-server.ts): it answers, then takes the rows already read as the next batch. */
export const COMMIT_CEILING_CYCLE: CycleParts = { answers: "the 202s", rest: "waiting for the next batch's rows" };

export function describeWriterCycle(cycle: WriterCycle | null, parts: CycleParts = GATEWAY_CYCLE): string {
  if (cycle === null) return "no commit";
  if (cycle.copyMs === null) return `one every ${cycle.everyMs} ms`;
  if (cycle.overlapping) return `one every ${cycle.everyMs} ms, each ${cycle.copyMs} encoding and PostgreSQL's round trip + ${cycle.answerMs} ${parts.answers} (commits overlap)`;
  return `one every ${cycle.everyMs} ms = ${cycle.copyMs} encoding and PostgreSQL's round trip + ${cycle.answerMs} ${parts.answers} + ${cycle.restMs} the rest (${parts.rest})`;
}
