// The daily retention job: per site, raw rows and rollups older than its retention_days go; a whole monthly
// partition is dropped once no site keeps any day of it (cheaper than deleting its rows one by one).
import type pg from "pg";
import { withTransaction } from "./transaction.ts";
import { listMonthlyPartitions } from "./partitions.ts";
import { DEFAULT_RETENTION_DAYS } from "../sites/site-fields.ts";
import { DAY_MS } from "@svc/core";


/**
 * The first instant a site still keeps: 00:00 UTC of the day `retentionDays` days before today's. So a site
 * keeps today plus its last `retentionDays` full days, and whole days go at once.
 */
export function retentionCutoffMs(nowMs: number, retentionDays: number): number {
  const today = nowMs - (((nowMs % DAY_MS) + DAY_MS) % DAY_MS);
  return today - retentionDays * DAY_MS;
}

export async function applyRetention(pool: pg.Pool, nowMs: number): Promise<{ deletedRows: number; droppedPartitions: string[] }> {
  const sites = await pool.query<{ id: number; retention_days: number }>("select id, retention_days from sites order by id");
  // With no site at all, keep what the default retention would: nothing says the data is unwanted.
  const longest = sites.rows.reduce((max, site) => Math.max(max, site.retention_days), sites.rows.length === 0 ? DEFAULT_RETENTION_DAYS : 0);
  const keepFrom = retentionCutoffMs(nowMs, longest);

  // Partitions first: the deletes below then have fewer rows to look at.
  const droppedPartitions: string[] = [];
  for (const partition of await listMonthlyPartitions(pool)) {
    if (partition.toMs <= keepFrom) {
      await pool.query(`drop table if exists ${partition.name}`);
      droppedPartitions.push(partition.name);
    }
  }

  let deletedRows = 0;
  for (const site of sites.rows) {
    const cutoff = new Date(retentionCutoffMs(nowMs, site.retention_days)).toISOString();
    const day = cutoff.slice(0, 10);
    // One transaction per site: its raw rows and its rollups go together.
    deletedRows += await withTransaction(pool, async (client) => {
      let deleted = 0;
      for (const statement of [
        { text: "delete from events where site_id = $1 and ts < $2", values: [site.id, cutoff] },
        { text: "delete from hits where site_id = $1 and ts < $2", values: [site.id, cutoff] },
        { text: "delete from rollup_hourly where site_id = $1 and bucket < $2", values: [site.id, cutoff] },
        { text: "delete from rollup_daily where site_id = $1 and bucket < $2", values: [site.id, day] },
      ]) {
        deleted += (await client.query(statement)).rowCount ?? 0;
      }
      return deleted;
    });
  }
  return { deletedRows, droppedPartitions };
}
