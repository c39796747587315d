// Visitors of the last minutes per actor from the raw rows, for a live snapshot on a gateway that does not own
// the site (SVC_CLUSTER): the owner's lane holds them in memory, this one does not. A visitor counts under the
// actor of its latest row, as in the lane (rollups/rollup-state.ts `recentVisitors`). The BRIN index on `ts`
// (sql/003) keeps this to the last minutes' blocks.
import type pg from "pg";

export async function recentVisitorsFromRows(pool: pg.Pool, siteId: number, since: number): Promise<Record<string, number>> {
  const { rows } = await pool.query<{ actor: string; n: number }>(
    `select actor, count(*)::int as n from (
       select distinct on (visitor_hash) actor from (
         select visitor_hash, actor, ts from events where site_id = $1 and ts >= $2
         union all
         select visitor_hash, actor, ts from hits where site_id = $1 and ts >= $2
       ) r order by visitor_hash, ts desc
     ) v group by actor`,
    [siteId, new Date(since)],
  );
  return Object.fromEntries(rows.map((r) => [r.actor, r.n]));
}
