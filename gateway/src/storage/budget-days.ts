// The days a site's visitor counts are inferred, not exact: it went past its visitor budget
// (lanes/state-budget.ts, sql/012_visitor_budget_days.sql).
import type pg from "pg";
import type { DayRange } from "../read/window.ts";

/** Records that the site's day starting at `dayStart` (ms, 00:00 UTC) went past its visitor budget. */
export async function markVisitorBudgetDay(pool: pg.Pool, siteId: number, dayStart: number): Promise<void> {
  await pool.query("insert into visitor_budget_days (site_id, day) values ($1, $2::date) on conflict do nothing", [siteId, new Date(dayStart).toISOString().slice(0, 10)]);
}

/** The days of `range` (YYYY-MM-DD, ascending) whose visitor counts are inferred. */
export async function visitorBudgetDays(pool: pg.Pool, siteId: number, range: DayRange): Promise<string[]> {
  const { rows } = await pool.query<{ day: string }>({
    name: "svc_read_visitor_budget_days",
    text: "select day::text as day from visitor_budget_days where site_id = $1 and day between $2::date and $3::date order by day",
    values: [siteId, range.from, range.to],
  });
  return rows.map((r) => r.day);
}
