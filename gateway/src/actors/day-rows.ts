// Reads one site's raw rows of one UTC day back, in time order, to rebuild today's visitor state at
// boot or after a failed batch. A server-side cursor keeps memory flat however busy the day was.
import type pg from "pg";
import { withTransaction } from "../storage/transaction.ts";
import type { RollupRow } from "./rollup-state.ts";

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
