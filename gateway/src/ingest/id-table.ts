// A hash table of numeric ids (an address's `addressId`, a site id) held in one Float64Array: each slot is the
// id and its values side by side, found by linear probing from the id's low bits. The event limiter's buckets
// and the country cache were Maps keyed by `addressId`: a lookup followed the Map's chain to the key's heap
// number and then to the value's object, three cache misses among 10,000 clients, and a perf profile of the
// gateway's main thread put the two lookups at ~2 % of it (README, "Fifth pass"). Here the id and its values
// share one cache line, and an entry is no object to allocate, promote or sweep.
//
// Ids must be integers in [0, 2^53 − 1] (`addressId` is 53 bits of a SipHash). A slot holds id + 1, so 0 marks an
// empty one. The table keeps at most half its slots filled (a probe sequence is ~1.5 slots on a hit), starts
// small and doubles up to what `maxEntries` needs, and removes without tombstones (the entries after a removed
// one in its run move back), so lookups never slow down as entries come and go.

const MIN_SLOTS = 1024;

export class IdTable {
  /** Slot i is data[i * stride] (id + 1, or 0 when empty) and its stride − 1 values after it. */
  data: Float64Array;
  /** Slots − 1 (a power of two − 1). */
  private mask: number;
  private filled = 0;
  private readonly maxSlots: number;

  constructor(
    readonly stride: number,
    /** Entries the table may hold: `add` refuses more (the caller evicts or clears first). */
    readonly maxEntries: number,
  ) {
    if (!Number.isInteger(stride) || stride < 1) throw new RangeError("stride must be a positive integer");
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError("maxEntries must be a positive integer");
    this.maxSlots = slotsFor(maxEntries);
    const slots = Math.min(MIN_SLOTS, this.maxSlots);
    this.data = new Float64Array(slots * stride);
    this.mask = slots - 1;
  }

  get size(): number {
    return this.filled;
  }

  get slots(): number {
    return this.mask + 1;
  }

  /** The offset in `data` of the id's slot, or −1. */
  find(id: number): number {
    const data = this.data;
    const stride = this.stride;
    const mask = this.mask;
    const stored = id + 1;
    // `&` takes the low 32 bits of the id, which for `addressId` are hash bits.
    for (let i = id & mask; ; i = (i + 1) & mask) {
      const at = i * stride;
      const key = data[at]!;
      if (key === stored) return at;
      if (key === 0) return -1;
    }
  }

  /**
   * Files an id that is not in the table and returns the offset of its slot, whose values are 0. Throws when the
   * table holds `maxEntries` already. The table may grow: offsets and `data` read before are stale after it.
   */
  add(id: number): number {
    if (this.filled >= this.maxEntries) throw new RangeError(`the table holds its ${this.maxEntries} entries`);
    if (!Number.isInteger(id) || id < 0 || id > Number.MAX_SAFE_INTEGER - 1) throw new RangeError(`not an id: ${id}`);
    if (2 * (this.filled + 1) > this.mask + 1 && this.mask + 1 < this.maxSlots) this.grow();
    const at = this.emptySlotFor(id);
    this.data[at] = id + 1;
    this.filled++;
    return at;
  }

  /** The id at a filled slot's offset. */
  idAt(at: number): number {
    return this.data[at]! - 1;
  }

  /** Whether slot `index` (0 … slots − 1) is filled. */
  filledAt(index: number): boolean {
    return this.data[index * this.stride] !== 0;
  }

  /**
   * Removes the entry at `at`. The entries after it in its run that may move back do (backward-shift deletion,
   * Knuth's algorithm R), so no probe sequence is cut and no tombstone is left: every offset read before is stale.
   */
  remove(at: number): void {
    const data = this.data;
    const stride = this.stride;
    const mask = this.mask;
    let hole = at / stride;
    for (let i = (hole + 1) & mask; ; i = (i + 1) & mask) {
      const from = i * stride;
      const key = data[from]!;
      if (key === 0) break;
      const home = (key - 1) & mask;
      // The entry at i may fill the hole unless its home lies cyclically in (hole, i]: then it must stay after it.
      const stays = hole <= i ? hole < home && home <= i : hole < home || home <= i;
      if (stays) continue;
      data.copyWithin(hole * stride, from, from + stride);
      hole = i;
    }
    data.fill(0, hole * stride, hole * stride + stride);
    this.filled--;
  }

  /** Forgets every entry (keeps the slots it grew to). */
  clear(): void {
    this.data.fill(0);
    this.filled = 0;
  }

  private emptySlotFor(id: number): number {
    const data = this.data;
    const stride = this.stride;
    const mask = this.mask;
    for (let i = id & mask; ; i = (i + 1) & mask) {
      const at = i * stride;
      if (data[at] === 0) return at;
    }
  }

  private grow(): void {
    const old = this.data;
    const stride = this.stride;
    const slots = (this.mask + 1) * 2;
    this.data = new Float64Array(slots * stride);
    this.mask = slots - 1;
    for (let at = 0; at < old.length; at += stride) {
      const key = old[at]!;
      if (key === 0) continue;
      const to = this.emptySlotFor(key - 1);
      this.data.set(old.subarray(at, at + stride), to);
    }
  }
}

/** The slots that hold `entries` at most half full: a power of two. */
function slotsFor(entries: number): number {
  let slots = MIN_SLOTS;
  while (slots < 2 * entries) slots *= 2;
  return slots;
}
