// The group commit's answer to a batch the database refuses on its data (bisect-write.ts): retrying the
// same batch fails the same way, and failing it fails every site in it. Instead the batch's submissions are
// committed in halves until each refused one stands alone; a refused submission is then committed request by
// request, so only the request holding the bad row is refused. Everything else commits.
import type { CommitFn, Submission, SubmissionRequest } from "./group-commit.ts";
import type { Connections } from "./connection-hold.ts";
import { bisectWrite, type Refused } from "./bisect-write.ts";
import type { EventRow, HitRow, WriteBatch } from "../storage/rows.ts";

export interface RefusedSubmission {
  readonly submission: Submission;
  /** Its requests whose rows are committed. */
  readonly committed: readonly SubmissionRequest[];
  /** Its requests whose rows the database refused, with the error. */
  readonly refused: readonly Refused<SubmissionRequest>[];
  /** Its requests not committed when another kind of error (a lost connection) stopped the search, with it. */
  readonly unfinished: { readonly requests: readonly SubmissionRequest[]; readonly error: unknown } | null;
}

export interface Isolation {
  /** Submissions committed whole: their rollup counts are exact. */
  readonly committed: readonly Submission[];
  /** Submissions with at least one refused request: their counts assumed rows that are not stored. */
  readonly refused: readonly RefusedSubmission[];
  /** Submissions not yet committed when another kind of error (a lost connection) stopped the search. */
  readonly unfinished: { readonly submissions: readonly Submission[]; readonly error: unknown } | null;
}

function batchOf(parts: ReadonlyArray<{ readonly events: readonly EventRow[]; readonly hits: readonly HitRow[] }>): WriteBatch {
  const batch: WriteBatch = { events: [], hits: [] };
  for (const p of parts) {
    for (const e of p.events) batch.events.push(e);
    for (const h of p.hits) batch.hits.push(h);
  }
  return batch;
}

/**
 * Commits `submissions`, whose batch already failed with `error` (a refused-data error), leaving out only the
 * requests whose rows the database refuses. Each commit is its own transaction.
 */
export async function commitAroundRefusedRows(connections: Connections, commit: CommitFn, submissions: readonly Submission[], error: unknown): Promise<Isolation> {
  const whole = await bisectWrite(submissions, (part) => commit(connections, batchOf(part)), error);
  const refused: RefusedSubmission[] = [];
  const unfinished = whole.unfinished === null ? null : { submissions: whole.unfinished.items, error: whole.unfinished.error };
  let stopped: { submissions: Submission[]; error: unknown } | null = unfinished;
  for (const { item: submission, error: submissionError } of whole.refused) {
    if (stopped !== null) {
      stopped.submissions.push(submission);
      continue;
    }
    const requests = submission.requests();
    // One request alone already failed as the whole submission: no need to write it again.
    const split = await bisectWrite(requests, (part) => commit(connections, batchOf(part)), requests.length === 1 ? submissionError : undefined);
    const left = split.unfinished === null ? null : { requests: split.unfinished.items, error: split.unfinished.error };
    refused.push({ submission, committed: split.written, refused: split.refused, unfinished: left });
    if (left !== null) stopped = { submissions: [], error: left.error };
  }
  return { committed: whole.written, refused, unfinished: stopped };
}
