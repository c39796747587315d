import { describe, expect, it } from "vitest";
import { type LedgerSlot, RollupLedger } from "../../src/rollups/ledger.ts";
import type { RollupDelta } from "../../src/storage/rows.ts";
import { rollupDelta } from "../support/sample-rows.ts";
import { DAY_MS, HOUR_MS } from "@svc/core";

const H8 = Date.UTC(2026, 10, 21, 8);

const newSlot = (): LedgerSlot => ({ ledgerEntry: null, ledgerEpoch: -1 });
const from = (slot: LedgerSlot, overrides: Partial<RollupDelta> = {}): RollupDelta => ({ ...rollupDelta(overrides), slot });
const sums = (entries: readonly RollupDelta[]) =>
  entries.map((e) => ({ hour: e.hour, value: e.value, pageviews: e.pageviews, visitors_hour: e.visitors_hour, visitors_day: e.visitors_day }));

describe("RollupLedger", () => {
  it("sums the deltas of one counter and hour into one entry", () => {
    const ledger = new RollupLedger();
    const slot = newSlot();
    ledger.add([from(slot, { pageviews: 1, visitors_hour: 1, visitors_day: 1 })]);
    ledger.add([from(slot, { pageviews: 2, visitors_hour: 0, visitors_day: 0 }), from(slot, { pageviews: 1, visitors_hour: 1, visitors_day: 0 })]);
    expect(sums(ledger.take())).toEqual([{ hour: H8, value: "/pricing", pageviews: 4, visitors_hour: 2, visitors_day: 1 }]);
  });

  it.each([
    { label: "a new hour of the same counter", second: (slot: LedgerSlot) => from(slot, { hour: H8 + HOUR_MS }), entries: 2 },
    { label: "another counter", second: () => from(newSlot(), { value: "/other" }), entries: 2 },
    { label: "a delta without a counter (summed at write time)", second: () => rollupDelta(), entries: 2 },
  ])("opens a new entry for $label", ({ second, entries }) => {
    const ledger = new RollupLedger();
    const slot = newSlot();
    ledger.add([from(slot), second(slot)]);
    expect(ledger.take()).toHaveLength(entries);
  });

  it("never adds to an entry once it was taken", () => {
    const ledger = new RollupLedger();
    const slot = newSlot();
    ledger.add([from(slot, { pageviews: 1 })]);
    const first = ledger.take();
    ledger.add([from(slot, { pageviews: 5 })]);
    expect(sums(first)[0]!.pageviews).toBe(1);
    expect(sums(ledger.take())[0]!.pageviews).toBe(5);
    expect(ledger.size).toBe(0);
  });

  it("gives back a failed flush's entries summed by key, however often it fails", () => {
    const ledger = new RollupLedger();
    const slot = newSlot();
    for (let attempt = 0; attempt < 5; attempt++) {
      ledger.add([from(slot, { pageviews: 1, visitors_day: attempt === 0 ? 1 : 0 })]);
      ledger.restore(ledger.take());
      expect(ledger.size).toBe(1);
    }
    expect(sums(ledger.take())).toEqual([{ hour: H8, value: "/pricing", pageviews: 5, visitors_hour: 5, visitors_day: 1 }]);
  });

  it("forgets one site's day and nothing else, also among given-back entries", () => {
    const ledger = new RollupLedger();
    const day = H8 - (H8 % DAY_MS);
    ledger.add([rollupDelta({ site_id: 1, hour: day - HOUR_MS, value: "/yesterday" })]);
    ledger.restore(ledger.take());
    ledger.add([
      rollupDelta({ site_id: 1, hour: day, value: "/today-1" }),
      rollupDelta({ site_id: 1, hour: day + 23 * HOUR_MS, value: "/today-2" }),
      rollupDelta({ site_id: 2, hour: day, value: "/other-site" }),
      rollupDelta({ site_id: 1, hour: day + DAY_MS, value: "/tomorrow" }),
    ]);
    ledger.dropDay(1, day);
    expect(ledger.take().map((e) => e.value).sort()).toEqual(["/other-site", "/tomorrow", "/yesterday"]);
  });
});
