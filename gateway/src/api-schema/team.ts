// The team's language-model settings. Keys come only from the environment and are never returned.
import { Schema } from "effect";
import { LLM_PROVIDERS } from "../config.ts";
import { isNotBlank, isStorableName } from "./common.ts";

export const LlmProvider = Schema.Literals(LLM_PROVIDERS).annotate({
  identifier: "LlmProvider",
  message: `must be one of ${LLM_PROVIDERS.join(", ")}`,
  description: "local: a local model server (SVC_LLM_HOST); openai: any OpenAI-compatible endpoint; anthropic; gemini; none: insights off.",
});

export const PatchLlm = Schema.Struct({
  provider: LlmProvider,
  model: Schema.optionalKey(
    Schema.NullOr(
      Schema.String.check(
        isNotBlank,
        Schema.isMaxLength(200, { message: "must be at most 200 characters" }),
        isStorableName,
      ),
    ).annotate({ message: "must be a model name or null", description: "Omitted or null: the provider's default model." }),
  ),
}).annotate({ identifier: "PatchLlm", message: "must be a JSON object" });

const ProviderStatus = Schema.Struct({
  default_model: Schema.NullOr(Schema.String),
  endpoint: Schema.NullOr(Schema.String).annotate({ description: "Where requests would go (a URL, never a key)." }),
  key_configured: Schema.Boolean.annotate({ description: "Whether the gateway's environment holds a key for it; the key itself is never returned." }),
  usable: Schema.Boolean.annotate({ description: "Whether it can be selected with this environment." }),
});

export const LlmSettings = Schema.Struct({
  provider: LlmProvider,
  model: Schema.NullOr(Schema.String).annotate({ description: "null for provider none." }),
  source: Schema.Literals(["team", "environment", "default"]).annotate({ description: "team: saved by PATCH; environment: SVC_LLM_PROVIDER/SVC_LLM_MODEL; default: local." }),
  providers: Schema.Struct({
    local: ProviderStatus,
    openai: ProviderStatus,
    anthropic: ProviderStatus,
    gemini: ProviderStatus,
    none: ProviderStatus,
  }),
}).annotate({ identifier: "LlmSettings" });
