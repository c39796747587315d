// The last insights run per site (sql/010_insight_runs.sql), and which sites are due for a scheduled run.
import type pg from "pg";
import type { LlmProvider } from "../config.ts";

export type RunProvider = Exclude<LlmProvider, "none">;

export interface InsightRun {
  readonly siteId: number;
  readonly status: "ok" | "error";
  readonly provider: RunProvider;
  readonly model: string;
  readonly generatedAt: Date;
  readonly findings: readonly string[];
  /** The user message exactly as sent (JSON text), null when nothing was sent. */
  readonly input: string | null;
  readonly instructions: string | null;
  readonly error: string | null;
}

interface RunRow {
  site_id: number;
  status: "ok" | "error";
  provider: RunProvider;
  model: string;
  generated_at: Date;
  findings: string[];
  input: string | null;
  instructions: string | null;
  error: string | null;
}

export async function lastInsightRun(pool: pg.Pool, siteId: number): Promise<InsightRun | null> {
  const { rows } = await pool.query<RunRow>(
    "select site_id, status, provider, model, generated_at, findings, input, instructions, error from insight_runs where site_id = $1",
    [siteId],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    siteId: r.site_id, status: r.status, provider: r.provider, model: r.model, generatedAt: r.generated_at,
    findings: r.findings, input: r.input, instructions: r.instructions, error: r.error,
  };
}

/** Replaces the site's stored run. */
export async function saveInsightRun(pool: pg.Pool, run: InsightRun): Promise<void> {
  await pool.query(
    `insert into insight_runs (site_id, status, provider, model, generated_at, findings, input, instructions, error)
     values ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9)
     on conflict (site_id) do update set status = excluded.status, provider = excluded.provider, model = excluded.model,
       generated_at = excluded.generated_at, findings = excluded.findings, input = excluded.input,
       instructions = excluded.instructions, error = excluded.error`,
    [run.siteId, run.status, run.provider, run.model, run.generatedAt, JSON.stringify(run.findings), run.input, run.instructions, run.error],
  );
}

export interface DueSite {
  readonly id: number;
  readonly teamId: number;
}

/** Sites whose last run (ok or failed) is older than `before`, or that never ran; oldest first. */
export async function sitesDueForInsights(pool: pg.Pool, before: Date): Promise<DueSite[]> {
  const { rows } = await pool.query<{ id: number; team_id: number }>(
    `select s.id, s.team_id from sites s left join insight_runs r on r.site_id = s.id
      where r.generated_at is null or r.generated_at < $1
      order by r.generated_at nulls first, s.id`,
    [before],
  );
  return rows.map((r) => ({ id: r.id, teamId: r.team_id }));
}
