// Text in the form PostgreSQL stores it. A JS string may hold two things a `text` or `jsonb` value cannot:
// U+0000 (text refuses it; jsonb refuses the `\u0000` escape JSON.stringify writes for it) and unpaired UTF-16
// surrogates (UTF-8 encoding turns each into U+FFFD, so `"\ud800"` and `"\udc00"` become the same stored value;
// jsonb refuses the `\ud800` escape outright). Two distinct JS strings that store alike broke the rollup flush
// (one upsert touching one row twice) and a `"\ud800"` prop failed whole batches, so every string that becomes
// data is put in its stored form where it enters (core/README.md "Text that PostgreSQL can store").

declare global {
  // ES2024 (V8 11.1, Node 20); the repository's `lib` is ES2023.
  interface String {
    isWellFormed(): boolean;
    toWellFormed(): string;
  }
}

/** True when PostgreSQL stores `s` exactly as it is: no U+0000 and no unpaired surrogate. */
export function isStoredText(s: string): boolean {
  return s.indexOf("\0") === -1 && s.isWellFormed();
}

/**
 * `s` as PostgreSQL would store it: each unpaired surrogate replaced by U+FFFD (what UTF-8 encoding does anyway),
 * then every U+0000 removed. Replacement comes first so that removing a NUL can never join two halves
 * (`"\ud83d\0\ude00"`) into a character the client did not send.
 */
export function storedText(s: string): string {
  if (isStoredText(s)) return s;
  const wellFormed = s.toWellFormed();
  return wellFormed.indexOf("\0") === -1 ? wellFormed : wellFormed.replaceAll("\0", "");
}

export function storedNullableText(s: string | null): string | null {
  return s === null ? null : storedText(s);
}

/** The message of every field that must already be stored text (identifiers: a domain, a prop or goal name). */
export const STORED_TEXT_MESSAGE = "must not contain NUL (\\u0000) or unpaired surrogate (\\ud800-\\udfff) characters";
