// The funnels table (sql/021_funnels.sql): a site's named, ordered steps, each a page-path pattern or a goal's
// name; names are unique per site.
import type pg from "pg";

export type FunnelStep = { readonly page_path: string } | { readonly goal: string };

export interface FunnelRow {
  id: number;
  site_id: number;
  name: string;
  steps: FunnelStep[];
  created_at: Date;
  updated_at: Date;
}

// 23505 = unique_violation: the site already has a funnel of that name.
const UNIQUE_VIOLATION = "23505";
const COLUMNS = "id, site_id, name, steps, created_at, updated_at";

/** `run` with a duplicate name answered null instead of thrown. */
async function unlessDuplicate<T>(run: () => Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch (error) {
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) return null;
    throw error;
  }
}

/** The new funnel, or null when the site already has a funnel named `name`. */
export function insertFunnel(pool: pg.Pool, siteId: number, name: string, steps: readonly FunnelStep[]): Promise<FunnelRow | null> {
  return unlessDuplicate(async () => (await pool.query<FunnelRow>(
    `insert into funnels (site_id, name, steps) values ($1, $2, $3::jsonb) returning ${COLUMNS}`,
    [siteId, name, JSON.stringify(steps)],
  )).rows[0]!);
}

export async function listFunnels(pool: pg.Pool, siteId: number): Promise<FunnelRow[]> {
  return (await pool.query<FunnelRow>(`select ${COLUMNS} from funnels where site_id = $1 order by id`, [siteId])).rows;
}

export async function findFunnel(pool: pg.Pool, siteId: number, funnelId: number): Promise<FunnelRow | null> {
  return (await pool.query<FunnelRow>(`select ${COLUMNS} from funnels where site_id = $1 and id = $2`, [siteId, funnelId])).rows[0] ?? null;
}

/**
 * The funnel with `name` and/or `steps` replaced: undefined when the site has no funnel of that id, null when
 * another of its funnels is named `name`.
 */
export async function updateFunnel(pool: pg.Pool, siteId: number, funnelId: number, change: { name?: string; steps?: readonly FunnelStep[] }): Promise<FunnelRow | null | undefined> {
  return unlessDuplicate(async () => (await pool.query<FunnelRow>(
    `update funnels set name = coalesce($3, name), steps = coalesce($4::jsonb, steps), updated_at = now() where site_id = $1 and id = $2 returning ${COLUMNS}`,
    [siteId, funnelId, change.name ?? null, change.steps === undefined ? null : JSON.stringify(change.steps)],
  )).rows[0]);
}

/** False when the site has no funnel of that id. */
export async function deleteFunnel(pool: pg.Pool, siteId: number, funnelId: number): Promise<boolean> {
  const { rowCount } = await pool.query("delete from funnels where site_id = $1 and id = $2", [siteId, funnelId]);
  return rowCount !== 0;
}
