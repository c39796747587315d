// The typed-array hash table of the event limiter and the country cache (src/ingest/id-table.ts): ids that
// share a home slot, runs that wrap round the end, removal without tombstones, growth, its bounds, and a long
// random sequence of operations against a Map.
import { describe, expect, it } from "vitest";
import { IdTable } from "../src/ingest/id-table.ts";
import { addressId } from "../src/ingest/siphash.ts";

const TWO_32 = 2 ** 32;

/** Files ids with `value` = id / 7 in slot value 1; answers what `find` says of each. */
function filled(ids: readonly number[], maxEntries = 1000): IdTable {
  const table = new IdTable(2, maxEntries);
  for (const id of ids) {
    const at = table.add(id); // before reading `data`: adding may grow it
    table.data[at + 1] = id / 7;
  }
  return table;
}
const valueOf = (table: IdTable, id: number): number | null => {
  const at = table.find(id);
  return at < 0 ? null : table.data[at + 1]!;
};

describe("IdTable", () => {
  // Ids that differ only above their low 32 bits share a home slot at every table size.
  const sameHome = (base: number, n: number) => Array.from({ length: n }, (_, k) => base + k * TWO_32);

  it.each([
    { name: "ids sharing one home slot", ids: sameHome(5, 6) },
    { name: "a run that wraps round the table's end", ids: sameHome(1022, 5) },
    { name: "two runs that merge", ids: [...sameHome(10, 3), ...sameHome(11, 3), ...sameHome(12, 2)] },
    { name: "id 0 and the largest id", ids: [0, Number.MAX_SAFE_INTEGER - 1, TWO_32] },
  ])("finds every entry of $name, and each of them once any other is removed", ({ ids }) => {
    const table = filled(ids);
    for (const id of ids) expect(valueOf(table, id)).toBe(id / 7);
    expect(valueOf(table, ids[0]! + 3 * TWO_32 + 1)).toBeNull();
    for (const gone of ids) {
      const t = filled(ids);
      t.remove(t.find(gone));
      expect(t.size).toBe(ids.length - 1);
      for (const id of ids) expect(valueOf(t, id)).toBe(id === gone ? null : id / 7);
      // Its slot is free again: filing it anew works and finds it.
      const at = t.add(gone);
      t.data[at + 1] = 1;
      expect(valueOf(t, gone)).toBe(1);
    }
  });

  it("grows as it fills, up to twice its entries in slots, keeping every entry", () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => addressId(`10.0.${i >> 8}.${i & 255}`));
    const table = new IdTable(3, 10_000);
    expect(table.slots).toBe(1024);
    for (const id of ids) {
      const at = table.add(id);
      table.data[at + 1] = id % 1000;
      table.data[at + 2] = 1;
    }
    expect(table.size).toBe(10_000);
    expect(table.slots).toBe(32_768);
    for (const id of ids) {
      const at = table.find(id);
      expect(table.idAt(at)).toBe(id);
      expect([table.data[at + 1], table.data[at + 2]]).toEqual([id % 1000, 1]);
    }
  });

  it.each([
    { what: "a negative id", id: -1 },
    { what: "a fraction", id: 1.5 },
    { what: "an id past 2^53 − 2", id: Number.MAX_SAFE_INTEGER },
    { what: "NaN", id: Number.NaN },
  ])("refuses $what", ({ id }) => {
    expect(() => new IdTable(1, 10).add(id)).toThrow(RangeError);
  });

  it("refuses an entry past maxEntries, and takes entries again once cleared", () => {
    const table = filled([1, 2, 3], 3);
    expect(() => table.add(4)).toThrow(RangeError);
    table.clear();
    expect(table.size).toBe(0);
    expect(valueOf(table, 1)).toBeNull();
    table.add(4);
    expect(table.find(4)).toBeGreaterThanOrEqual(0);
  });

  it("agrees with a Map over 200,000 random adds, removes and finds among colliding ids", () => {
    let seed = 12345;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / TWO_32);
    // 3,000 ids over 600 home slots: long runs, many of them wrapping, removals inside them.
    const pool = Array.from({ length: 3000 }, (_, i) => (i % 600) + 424 + Math.floor(i / 600) * TWO_32 * 3 + (i % 7) * TWO_32);
    const table = new IdTable(2, 2000);
    const model = new Map<number, number>();
    for (let step = 0; step < 200_000; step++) {
      const id = pool[Math.floor(rand() * pool.length)]!;
      const at = table.find(id);
      expect(at >= 0).toBe(model.has(id));
      if (at >= 0) {
        expect(table.data[at + 1]).toBe(model.get(id));
        if (rand() < 0.5) {
          table.remove(at);
          model.delete(id);
        }
      } else if (table.size < table.maxEntries) {
        const added = table.add(id);
        table.data[added + 1] = step;
        model.set(id, step);
      }
      expect(table.size).toBe(model.size);
    }
    for (const [id, value] of model) expect(valueOf(table, id)).toBe(value);
  });
});
