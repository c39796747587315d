// A team's stored language-model choice (table team_llm_settings, sql/004_goals_team_settings.sql). What applies
// without one (the environment, then the local provider) is decided in routes/team.ts.
import type pg from "pg";
import type { LlmProvider } from "../config.ts";

export interface StoredLlmChoice {
  provider: LlmProvider;
  /** null: the provider's default model. */
  model: string | null;
}

/** The team's stored choice, undefined when it never chose. */
export async function readLlmChoice(pool: pg.Pool, teamId: number): Promise<StoredLlmChoice | undefined> {
  const { rows } = await pool.query<StoredLlmChoice>("select provider, model from team_llm_settings where team_id = $1", [teamId]);
  return rows[0];
}

export async function saveLlmChoice(pool: pg.Pool, teamId: number, choice: StoredLlmChoice): Promise<void> {
  await pool.query(
    `insert into team_llm_settings (team_id, provider, model) values ($1, $2, $3)
     on conflict (team_id) do update set provider = excluded.provider, model = excluded.model, updated_at = now()`,
    [teamId, choice.provider, choice.model],
  );
}
