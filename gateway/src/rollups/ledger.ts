// The rollup counts of committed rows that are not yet in the rollup tables.
//
// Site lanes compute one delta per touched (actor, dimension, value) counter for every submission; the
// writer hands the deltas of each committed submission here. Deltas of the same counter and hour are
// summed into one entry through the counter itself (`LedgerSlot`), so adding costs a few additions and no
// key string; each flush takes the entries and starts a new epoch, which makes counters open new entries.
import { addDeltaCounts } from "./counts.ts";
import { rollupKey } from "./rollup-writes.ts";
import type { RollupDelta } from "../storage/rows.ts";
import { DAY_MS } from "@svc/core";


/** Where the rollup ledger keeps, on an actor's counter, the sum it is building for that counter. */
export interface LedgerSlot {
  ledgerEntry: RollupDelta | null;
  ledgerEpoch: number;
}

export class RollupLedger {
  private entries: RollupDelta[] = [];
  /** Entries of flushes that failed, summed by key so that repeated failures do not grow this list. */
  private carried: RollupDelta[] = [];
  private epoch = 0;

  get size(): number {
    return this.entries.length + this.carried.length;
  }

  add(deltas: Iterable<RollupDelta>): void {
    for (const d of deltas) {
      const slot = d.slot;
      let entry = slot?.ledgerEpoch === this.epoch ? slot.ledgerEntry : null;
      if (entry === null || entry.hour !== d.hour) {
        entry = { site_id: d.site_id, hour: d.hour, actor: d.actor, dim: d.dim, value: d.value, pageviews: 0, events: 0, hits: 0, visitors_hour: 0, visitors_day: 0 };
        this.entries.push(entry);
        if (slot) {
          slot.ledgerEntry = entry;
          slot.ledgerEpoch = this.epoch;
        }
      }
      addDeltaCounts(entry, d);
    }
  }

  /** Everything held; nothing taken is added to afterwards. */
  take(): RollupDelta[] {
    const out = this.carried.length === 0 ? this.entries : this.carried.concat(this.entries);
    this.entries = [];
    this.carried = [];
    this.epoch++;
    return out;
  }

  /** Gives back what a failed flush took; the next flush writes it. */
  restore(taken: readonly RollupDelta[]): void {
    this.carried = sumByKey(this.carried.concat(taken));
  }

  /** Forgets every entry of these sites: their owner session was lost, and whoever owns them next recounts them. */
  dropSites(sites: ReadonlySet<number>): void {
    const keep = (e: RollupDelta) => !sites.has(e.site_id);
    this.entries = this.entries.filter(keep);
    this.carried = this.carried.filter(keep);
    this.epoch++;
  }

  /** Forgets a site's entries for one UTC day, whose rollups are being recomputed from the raw rows. */
  dropDay(siteId: number, dayStart: number): void {
    const keep = (e: RollupDelta) => e.site_id !== siteId || e.hour < dayStart || e.hour >= dayStart + DAY_MS;
    this.entries = this.entries.filter(keep);
    this.carried = this.carried.filter(keep);
    this.epoch++;
  }
}

function sumByKey(deltas: readonly RollupDelta[]): RollupDelta[] {
  const byKey = new Map<string, RollupDelta>();
  for (const d of deltas) {
    const key = rollupKey(d.site_id, d.hour, d.actor, d.dim, d.value);
    const e = byKey.get(key);
    if (e === undefined) byKey.set(key, { site_id: d.site_id, hour: d.hour, actor: d.actor, dim: d.dim, value: d.value, pageviews: d.pageviews, events: d.events, hits: d.hits, visitors_hour: d.visitors_hour, visitors_day: d.visitors_day });
    else addDeltaCounts(e, d);
  }
  return [...byKey.values()];
}
