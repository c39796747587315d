// Where the writer's commit cycle goes, from the gateway's own counters (/healthz → writer: batches, copyMs,
// answerMs): per commit, the time from taking a batch to PostgreSQL's reply (the COPY's encoding, the round trip,
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

export function describeWriterCycle(cycle: WriterCycle | null): string {
  if (cycle === null) return "no commit";
  if (cycle.copyMs === null) return `one every ${cycle.everyMs} ms`;
  if (cycle.overlapping) return `one every ${cycle.everyMs} ms, each ${cycle.copyMs} encoding and PostgreSQL's round trip + ${cycle.answerMs} the 202s and the ledger (commits overlap)`;
  return `one every ${cycle.everyMs} ms = ${cycle.copyMs} encoding and PostgreSQL's round trip + ${cycle.answerMs} the 202s and the ledger + ${cycle.restMs} the rest (the lanes' next turns)`;
}
