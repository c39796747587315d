// A bounded cache in two generations, for values worth keeping per User-Agent string (the classifier's verdict,
// the device parse): a hit in the young generation is one Map lookup; a hit in the old one is promoted; when the
// young one is full it becomes the old one and the previous old one is dropped. It approximates an LRU without
// per-hit bookkeeping: an exact LRU (a Map re-inserting every hit at its end) cost a lookup, a delete and an insert
// on every event, ~0.13 µs more a hit for the device cache (gateway/README.md "Fourth pass").

export class Generations<V> {
  private young = new Map<string, V>();
  private old = new Map<string, V>();

  /** `generation` entries each; `keepsOld` false keeps the young generation alone (a capacity of one). */
  constructor(
    private readonly generation: number,
    private readonly keepsOld = true,
  ) {}

  /** The value for `key`: cached, or made by `make` and cached when `keep` says so. */
  get(key: string, make: (key: string) => V, keep = true): V {
    const hit = this.young.get(key);
    if (hit !== undefined) return hit;
    const value = this.old.get(key) ?? make(key);
    if (keep) {
      if (this.young.size >= this.generation) {
        this.old = this.keepsOld ? this.young : new Map();
        this.young = new Map();
      }
      this.young.set(key, value);
    }
    return value;
  }
}
