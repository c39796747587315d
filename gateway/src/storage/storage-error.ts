// Errors the storage layer expects callers to show to a person (the CLI, later the sites API): a kind to
// branch on and a one-line message. Anything else thrown by this folder is a bug or an outage.
export type StorageErrorKind = "invalid_domain" | "domain_taken" | "invalid_retention" | "invalid_name" | "invalid_time_zone" | "not_found";

export class StorageError extends Error {
  override readonly name = "StorageError";
  constructor(
    readonly kind: StorageErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export function isStorageError(error: unknown): error is StorageError {
  return error instanceof StorageError;
}
