// The last insights runs per site (sql/010_insight_runs.sql, 014): the last successful one and, while the latest
// run failed, that failed one beside it; and which sites are due for a scheduled run.
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

const toRun = (r: RunRow): InsightRun => ({
  siteId: r.site_id, status: r.status, provider: r.provider, model: r.model, generatedAt: r.generated_at,
  findings: r.findings, input: r.input, instructions: r.instructions, error: r.error,
});

/** The site's stored runs: the last good one and the last failed one (only while it is newer), each or both null. */
export async function lastInsightRuns(pool: pg.Pool, siteId: number): Promise<{ ok: InsightRun | null; failed: InsightRun | null }> {
  const { rows } = await pool.query<RunRow>(
    "select site_id, status, provider, model, generated_at, findings, input, instructions, error from insight_runs where site_id = $1",
    [siteId],
  );
  const ok = rows.find((r) => r.status === "ok");
  const failed = rows.find((r) => r.status === "error");
  return { ok: ok ? toRun(ok) : null, failed: failed && (!ok || failed.generated_at >= ok.generated_at) ? toRun(failed) : null };
}

/** Stores a run: a good one replaces the last good one and clears a failure; a failed one replaces the last failure only. */
export async function saveInsightRun(pool: pg.Pool, run: InsightRun): Promise<void> {
  await pool.query(
    `with saved as (
       insert into insight_runs (site_id, status, provider, model, generated_at, findings, input, instructions, error)
       values ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9)
       on conflict (site_id, status) do update set provider = excluded.provider, model = excluded.model,
         generated_at = excluded.generated_at, findings = excluded.findings, input = excluded.input,
         instructions = excluded.instructions, error = excluded.error
       returning site_id)
     delete from insight_runs where $2 = 'ok' and site_id = $1 and status = 'error'`,
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
    `select s.id, s.team_id from sites s
       left join (select site_id, max(generated_at) as last from insight_runs group by site_id) r on r.site_id = s.id
      where r.last is null or r.last < $1
      order by r.last nulls first, s.id`,
    [before],
  );
  return rows.map((r) => ({ id: r.id, teamId: r.team_id }));
}
