// Reads one site's raw rows of one UTC day back, in time order, to rebuild that day's visitor state (at
// boot, at a day change, after a failed batch) and, when asked, that day's rollup counts (after a failed
// batch, and at boot after a gateway was killed). A server-side cursor keeps memory flat however busy the
// day was.
import type pg from "pg";
import type { RollupDelta } from "../storage/rows.ts";
import { withTransaction } from "../storage/transaction.ts";
import { type DeltaSink, type RollupRow, RollupState, newDeltaSink } from "./rollup-state.ts";

const DAY_MS = 86_400_000;

const FETCH_ROWS = 10_000;

const SELECT = `
  select 'event' as kind, ts, actor, page, source, channel, utm_source, utm_medium, utm_campaign,
         country, device, browser, os, ai_name, visitor_hash, name, null::smallint as status
    from events where site_id = $1 and ts >= $2 and ts < $3
  union all
  select 'hit', ts, actor, page, source, channel, utm_source, utm_medium, utm_campaign,
         country, device, browser, os, ai_name, visitor_hash, null, status
    from hits where site_id = $1 and ts >= $2 and ts < $3
  order by ts`;

export async function forEachDayRow(pool: pg.Pool, siteId: number, dayStart: number, dayEnd: number, onRow: (row: RollupRow) => void): Promise<number> {
  let count = 0;
  await withTransaction(pool, async (client) => {
    await client.query("set transaction read only");
    await client.query(`declare day_rows no scroll cursor for ${SELECT}`, [siteId, new Date(dayStart), new Date(dayEnd)]);
    while (true) {
      const { rows } = await client.query(`fetch ${FETCH_ROWS} from day_rows`);
      for (const r of rows) {
        r.ts = (r.ts as Date).getTime();
        onRow(r as RollupRow);
      }
      count += rows.length;
      if (rows.length < FETCH_ROWS) break;
    }
  });
  return count;
}

export interface DayRecount {
  readonly state: RollupState;
  readonly rows: number;
  /** The day's rollup counts, one delta per (actor, dimension, value, hour); empty unless asked for. */
  readonly counts: readonly RollupDelta[];
}

/**
 * Replays one site's rows of the UTC day starting at `dayStart` through a fresh visitor state. With
 * `counts`, the deltas of the whole day are kept (one per counter and hour, so their number is bounded
 * by the day's distinct values × 24, not by its rows); without, they are dropped as they come.
 */
export async function recountDay(pool: pg.Pool, siteId: number, dayStart: number, options: { counts: boolean }): Promise<DayRecount> {
  const state = new RollupState(siteId, dayStart);
  const kept = newDeltaSink();
  let sink: DeltaSink = options.counts ? kept : newDeltaSink();
  const rows = await forEachDayRow(pool, siteId, dayStart, dayStart + DAY_MS, (row) => {
    state.observe(row, sink);
    if (!options.counts && sink.deltas.length > 50_000) sink = newDeltaSink();
  });
  return { state, rows, counts: options.counts ? kept.deltas : [] };
}
