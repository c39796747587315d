// GET/PATCH /api/team/llm: which language model writes the team's insights. Stored per team; without a stored
// choice the environment (SVC_LLM_PROVIDER, SVC_LLM_MODEL) applies, else the local provider. Keys live only in
// the environment and are reported as configured or not, never returned. Settings need a session: an API key
// (a script or the MCP server) may read aggregates but not change what the team pays a provider for.
import type pg from "pg";
import type { LlmSettings } from "../api-schema/team.ts";
import type { LlmEnvironment, LlmProvider } from "../config.ts";
import { ApiError } from "../errors.ts";
import { readLlmChoice, saveLlmChoice } from "../storage/team-llm-settings.ts";
import { jsonResponse } from "./json-response.ts";
import type { OperationRoutes } from "./operation-routes.ts";

export interface TeamRouteDeps {
  readonly pool: pg.Pool;
  readonly llm: LlmEnvironment;
}

// A small model each provider serves today, used when the team names none. llama3.2 (3B) runs on a laptop CPU.
export const DEFAULT_MODELS: Record<LlmProvider, string | null> = {
  local: "llama3.2",
  openai: "gpt-4o-mini",
  anthropic: "claude-3-5-haiku-latest",
  gemini: "gemini-2.0-flash",
  none: null,
};

type ProviderStatus = (typeof LlmSettings.Type)["providers"]["local"];

function providerStatus(llm: LlmEnvironment): Record<LlmProvider, ProviderStatus> {
  const status = (provider: LlmProvider, endpoint: string | null, key: string | null, usable: boolean): ProviderStatus => ({
    default_model: DEFAULT_MODELS[provider],
    endpoint,
    key_configured: key !== null && key !== "",
    usable,
  });
  return {
    local: status("local", llm.localHost, null, true),
    // An OpenAI-compatible server on the operator's own network may need no key, only its base URL.
    openai: status("openai", llm.openaiBaseUrl, llm.openaiApiKey, Boolean(llm.openaiApiKey) || llm.openaiBaseUrl !== null),
    anthropic: status("anthropic", null, llm.anthropicApiKey, Boolean(llm.anthropicApiKey)),
    gemini: status("gemini", null, llm.geminiApiKey, Boolean(llm.geminiApiKey)),
    none: status("none", null, null, true),
  };
}

const MISSING_ENV: Record<LlmProvider, string> = {
  local: "",
  openai: "SVC_OPENAI_API_KEY or SVC_OPENAI_BASE_URL",
  anthropic: "SVC_ANTHROPIC_API_KEY",
  gemini: "SVC_GEMINI_API_KEY",
  none: "",
};

export async function currentSettings(pool: pg.Pool, llm: LlmEnvironment, teamId: number): Promise<typeof LlmSettings.Type> {
  const stored = await readLlmChoice(pool, teamId);
  const providers = providerStatus(llm);
  if (stored) return { provider: stored.provider, model: stored.model ?? DEFAULT_MODELS[stored.provider], source: "team", providers };
  const provider = llm.provider ?? "local";
  const fromEnv = llm.provider !== null || llm.model !== null;
  return { provider, model: provider === "none" ? null : (llm.model ?? DEFAULT_MODELS[provider]), source: fromEnv ? "environment" : "default", providers };
}

export function teamRoutes(routes: OperationRoutes, deps: TeamRouteDeps): void {
  const { pool, llm } = deps;
  routes
    .on("GET /api/team/llm", async ({ principal }) => jsonResponse(200, await currentSettings(pool, llm, principal.teamId)))
    .on("PATCH /api/team/llm", async ({ principal, body: decode }) => {
      const body = decode();
      const model = body.model === undefined || body.model === null ? null : body.model.trim();
      if (body.provider === "none" && model !== null) {
        throw new ApiError("invalid_body", "invalid body", [{ path: "model", message: "must be omitted or null when provider is none" }]);
      }
      if (!providerStatus(llm)[body.provider].usable) {
        throw new ApiError("invalid_body", "invalid body", [{ path: "provider", message: `${body.provider} needs ${MISSING_ENV[body.provider]} in the gateway's environment` }]);
      }
      await saveLlmChoice(pool, principal.teamId, { provider: body.provider, model });
      return jsonResponse(200, await currentSettings(pool, llm, principal.teamId));
    });
}
