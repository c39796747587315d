// The goals table (sql/004_goals_team_settings.sql, sql/015_goal_page_paths.sql): a goal is an event name matched
// exactly, or a page path with Plausible's wildcards (named `Visit <path>`); names are unique per site.
import type pg from "pg";

export interface GoalRow {
  id: number;
  site_id: number;
  name: string;
  /** The page pattern of a page-path goal; null for an event-name goal. */
  page_path: string | null;
  created_at: Date;
}

// 23505 = unique_violation: the site already has a goal of that name.
const UNIQUE_VIOLATION = "23505";

/** The new goal, or null when the site already has a goal named `name`. */
export async function insertGoal(pool: pg.Pool, siteId: number, name: string, pagePath: string | null = null): Promise<GoalRow | null> {
  try {
    const { rows } = await pool.query<GoalRow>(
      "insert into goals (site_id, name, page_path) values ($1, $2, $3) returning id, site_id, name, page_path, created_at",
      [siteId, name, pagePath],
    );
    return rows[0]!;
  } catch (error) {
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) return null;
    throw error;
  }
}

export async function listGoals(pool: pg.Pool, siteId: number): Promise<GoalRow[]> {
  const { rows } = await pool.query<GoalRow>("select id, site_id, name, page_path, created_at from goals where site_id = $1 order by id", [siteId]);
  return rows;
}

/** False when the site has no goal of that id. */
export async function deleteGoal(pool: pg.Pool, siteId: number, goalId: number): Promise<boolean> {
  const { rowCount } = await pool.query("delete from goals where site_id = $1 and id = $2", [siteId, goalId]);
  return rowCount !== 0;
}
