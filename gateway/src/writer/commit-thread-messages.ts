// What the main thread and the commit thread (commit-thread.ts, commit-thread-worker.ts) say to each other.
import type { PoolLimits } from "../storage/pool-limits.ts";
import type { CopyPart } from "./copy-batch.ts";

export interface CommitThreadData {
  readonly url: string;
  readonly inFlight: number;
  readonly limits: PoolLimits;
}

export type CommitRequest =
  | { readonly close?: false; readonly id: number; readonly parts: CopyPart[] }
  | { readonly close: true };

/** The parts of an error the writer reads: its message (logs, connection errors) and SQLSTATE or errno code (refused data, outages). */
export interface ErrorFields {
  readonly name: string;
  readonly message: string;
  readonly code: string | undefined;
}

export type CommitReply = { readonly id: number; readonly error: ErrorFields | null; readonly log?: undefined } | { readonly log: string };

export function errorFields(error: unknown): ErrorFields {
  if (!(error instanceof Error)) return { name: "Error", message: String(error), code: undefined };
  const code = (error as { code?: unknown }).code;
  return { name: error.name, message: error.message, code: typeof code === "string" ? code : undefined };
}

/** The error again on the main thread, with the fields isRefusedData and isConnectionError read. */
export function errorFromFields(fields: ErrorFields): Error {
  const error = new Error(fields.message) as Error & { code?: string };
  error.name = fields.name;
  if (fields.code !== undefined) error.code = fields.code;
  return error;
}
