// The segments table (sql/020_segments.sql): a site's saved filters, each with a name unique per site.
import type pg from "pg";

export interface SegmentRow {
  id: number;
  site_id: number;
  name: string;
  filters: unknown[];
  created_at: Date;
}

// 23505 = unique_violation: the site already has a segment of that name.
const UNIQUE_VIOLATION = "23505";
const COLUMNS = "id, site_id, name, filters, created_at";

/** The new segment, or null when the site already has one named `name`. */
export async function insertSegment(pool: pg.Pool, siteId: number, name: string, filters: readonly unknown[]): Promise<SegmentRow | null> {
  try {
    const { rows } = await pool.query<SegmentRow>(`insert into segments (site_id, name, filters) values ($1, $2, $3) returning ${COLUMNS}`, [siteId, name, JSON.stringify(filters)]);
    return rows[0]!;
  } catch (error) {
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) return null;
    throw error;
  }
}

export async function listSegments(pool: pg.Pool, siteId: number): Promise<SegmentRow[]> {
  const { rows } = await pool.query<SegmentRow>(`select ${COLUMNS} from segments where site_id = $1 order by name, id`, [siteId]);
  return rows;
}

export async function countSegments(pool: pg.Pool, siteId: number): Promise<number> {
  const { rows } = await pool.query<{ n: number }>("select count(*)::int as n from segments where site_id = $1", [siteId]);
  return rows[0]!.n;
}

/** False when the site has no segment of that id. */
export async function deleteSegment(pool: pg.Pool, siteId: number, segmentId: number): Promise<boolean> {
  const { rowCount } = await pool.query("delete from segments where site_id = $1 and id = $2", [siteId, segmentId]);
  return rowCount !== 0;
}
