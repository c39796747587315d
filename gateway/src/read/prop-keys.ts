// The custom property names (`props` keys) of a site's rows in a window: what the dashboard's Properties card
// offers to pick, so a person chooses among the keys the tracker really sent instead of guessing one. The
// rollups keep no props; the raw rows in PostgreSQL do (every row of the retention, where the query engine's
// day files come from), so this reads them: the window's rows of the site that carry props.
import type pg from "pg";
import { MAX_PROP_KEYS } from "../api-schema/read.ts";
import type { ReadWindow } from "./window.ts";

export interface PropKey {
  readonly key: string;
  readonly events: number;
}

/** The window's property names, the most used first (then by name), at most MAX_PROP_KEYS. */
export async function propKeys(pool: pg.Pool, siteId: number, window: ReadWindow, nowMs: number): Promise<PropKey[]> {
  const { rows } = await pool.query<{ key: string; events: string }>(
    `select key, count(*) as events
       from events e, jsonb_object_keys(e.props) as key
      where e.site_id = $1 and e.ts >= $2 and e.ts <= $3 and e.props is not null and jsonb_typeof(e.props) = 'object'
      group by key
      order by count(*) desc, key
      limit $4`,
    [siteId, new Date(window.startMs), new Date(nowMs), MAX_PROP_KEYS],
  );
  return rows.map((r) => ({ key: r.key, events: Number(r.events) }));
}
