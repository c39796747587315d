// The goals table (sql/004_goals_team_settings.sql): a goal is an event name matched exactly, unique per site. Its
// conversions are read from the rollups (read/reports.ts), not from here.
import type pg from "pg";

export interface GoalRow {
  id: number;
  site_id: number;
  name: string;
  created_at: Date;
}

// 23505 = unique_violation: the site already has a goal of that name.
const UNIQUE_VIOLATION = "23505";

/** The new goal, or null when the site already has a goal named `name`. */
export async function insertGoal(pool: pg.Pool, siteId: number, name: string): Promise<GoalRow | null> {
  try {
    const { rows } = await pool.query<GoalRow>("insert into goals (site_id, name) values ($1, $2) returning id, site_id, name, created_at", [siteId, name]);
    return rows[0]!;
  } catch (error) {
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) return null;
    throw error;
  }
}

export async function listGoals(pool: pg.Pool, siteId: number): Promise<GoalRow[]> {
  const { rows } = await pool.query<GoalRow>("select id, site_id, name, created_at from goals where site_id = $1 order by id", [siteId]);
  return rows;
}

/** False when the site has no goal of that id. */
export async function deleteGoal(pool: pg.Pool, siteId: number, goalId: number): Promise<boolean> {
  const { rowCount } = await pool.query("delete from goals where site_id = $1 and id = $2", [siteId, goalId]);
  return rowCount !== 0;
}
