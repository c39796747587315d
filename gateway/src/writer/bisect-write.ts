// Finding the items the database refuses in a write of many. A COPY or an upsert fails as a whole when one of
// its rows is refused, so one bad row would fail everyone's rows with it, and fail again on every retry. The
// write is tried again in halves until each refused item stands alone; every other item is written.
//
// Halving costs about 2·log2(n) writes per refused item (a batch of 500 submissions with one bad one: ~18),
// against n for one-by-one, and nothing on the path where the first write succeeds.

/**
 * True for errors about the data of the statement, which the same data will always meet again: SQLSTATE class
 * 21 (cardinality: an upsert touching one row twice), 22 (data exception: bad encoding, overflow, a jsonb
 * escape), 23 (integrity constraint) and 54 (program limit: a value too large for an index entry).
 * Anything else (a lost connection, a restarting server) may pass on retry and says nothing about one item.
 */
export function isRefusedData(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.length === 5 && /^(?:21|22|23|54)/.test(code);
}

export interface Refused<T> {
  readonly item: T;
  readonly error: unknown;
}

export interface BisectResult<T> {
  /** Items in writes that succeeded. */
  readonly written: T[];
  /** Items the database refused when written alone. */
  readonly refused: Refused<T>[];
  /** When another kind of error stopped the search: it, and every item not yet written or refused. */
  readonly unfinished: { readonly items: T[]; readonly error: unknown } | null;
}

/**
 * Writes `items` with `write`, splitting a part the database refuses (isRefusedData) in halves until each refused
 * item is alone. `firstError`: the whole was already tried and failed with it, so the search starts by splitting.
 * Parts are written in order, first half first. Each `write` must be atomic (all of its part or nothing).
 */
export async function bisectWrite<T>(items: readonly T[], write: (part: readonly T[]) => Promise<void>, firstError?: unknown): Promise<BisectResult<T>> {
  const written: T[] = [];
  const refused: Refused<T>[] = [];
  let unfinished: { items: T[]; error: unknown } | null = null;
  // A stack of parts still to write, the next on top; each entry also says whether it already failed once.
  const stack: Array<{ part: readonly T[]; failed: unknown }> = [{ part: items, failed: firstError }];
  while (stack.length > 0) {
    const { part, failed } = stack.pop()!;
    if (part.length === 0) continue;
    if (unfinished !== null) {
      unfinished.items.push(...part);
      continue;
    }
    let error = failed;
    if (error === undefined) {
      try {
        await write(part);
        written.push(...part);
        continue;
      } catch (e) {
        error = e;
      }
    }
    if (!isRefusedData(error)) unfinished = { items: [...part], error };
    else if (part.length === 1) refused.push({ item: part[0]!, error });
    else {
      const mid = Math.ceil(part.length / 2);
      stack.push({ part: part.slice(mid), failed: undefined }, { part: part.slice(0, mid), failed: undefined });
    }
  }
  return { written, refused, unfinished };
}
