// Configuration comes only from the environment, is read once at boot and validated as a whole:
// every bad value gets its own one-line message, so an operator fixes them all in one go.
import path from "node:path";
import { Config, ConfigProvider, Effect, Option, Result } from "effect";
import type { LogLevel } from "./log.ts";
import { AUTH_ENV_NAMES, AUTH_MODES, type AuthConfig, DEFAULT_TEAM_CLAIM, MIN_JWT_SECRET_LENGTH, resolveAuthConfig, SECRET_ENV_NAMES } from "./auth/auth-config.ts";

import { repoRoot } from "./repo-root.ts";

export interface GatewayConfig {
  readonly port: number;
  readonly host: string;
  readonly transport: "uws" | "node";
  readonly databaseUrl: string | null;
  readonly dataDir: string;
  /** Number of reverse-proxy hops whose X-Forwarded-For entries are trusted (0 = use the socket address). */
  readonly trustProxy: number;
  readonly geoipPath: string | null;
  readonly trackerPath: string;
  readonly logLevel: LogLevel;
  /** Messages one site's mailbox holds before ingest answers 503. */
  readonly mailboxSize: number;
  /** Rows per COPY batch before a flush is forced. */
  readonly batchMaxRows: number;
  /** How long an idle writer waits to fill a batch before committing. */
  readonly flushMs: number;
  /** Batch transactions in flight at once. */
  readonly writerInFlight: number;
  /** How often the counts of committed rows are written to the rollup tables. */
  readonly rollupFlushMs: number;
  /** A site actor that received no rows for this long is stopped and its visitor state released. */
  readonly actorIdleMs: number;
  readonly production: boolean;
  /** SVC_AUTH_MODE and its credentials; see gateway/README.md "Authentication". */
  readonly auth: AuthConfig;
  /** Language-model environment: the fallback choice for teams that stored none, and where each provider is reached. */
  readonly llm: LlmEnvironment;
}

export const LLM_PROVIDERS = ["local", "openai", "anthropic", "gemini", "none"] as const;
export type LlmProvider = (typeof LLM_PROVIDERS)[number];

export interface LlmEnvironment {
  /** SVC_LLM_PROVIDER; null when unset (the local provider is then the default). */
  readonly provider: LlmProvider | null;
  readonly model: string | null;
  readonly localHost: string;
  readonly openaiBaseUrl: string | null;
  readonly openaiApiKey: string | null;
  readonly anthropicApiKey: string | null;
  readonly geminiApiKey: string | null;
}

export class ConfigInvalid extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigInvalid";
  }
}

interface Entry<T> {
  readonly config: Config.Config<T>;
  readonly expected: string;
  readonly check?: (value: T) => boolean;
}

const entry = <T>(config: Config.Config<T>, expected: string, check?: (value: T) => boolean): Entry<T> =>
  check ? { config, expected, check } : { config, expected };

const optionalString = (name: string) => Config.String(name).pipe(Config.option, Config.map(Option.getOrNull));

const ENTRIES = {
  SVC_PORT: entry(Config.Int("SVC_PORT").pipe(Config.withDefault(8080)), "an integer port 0..65535", (p) => p >= 0 && p <= 65535),
  SVC_HOST: entry(Config.NonEmptyString("SVC_HOST").pipe(Config.withDefault("0.0.0.0")), "a host or address to bind"),
  SVC_HTTP: entry(Config.Literals(["uws", "node"], "SVC_HTTP").pipe(Config.withDefault("uws" as const)), `"uws" or "node"`),
  DATABASE_URL: entry(optionalString("DATABASE_URL"), "a postgres:// URL", (u) => u === null || /^postgres(ql)?:\/\//.test(u)),
  SVC_DATA_DIR: entry(Config.NonEmptyString("SVC_DATA_DIR").pipe(Config.withDefault("./.svc-data")), "a directory path"),
  SVC_TRUST_PROXY: entry(
    Config.String("SVC_TRUST_PROXY").pipe(Config.withDefault("0")),
    "false, true (= 1) or the number of trusted proxy hops 0..10",
    (v) => /^(false|true|\d+)$/.test(v) && (v === "false" || v === "true" || Number(v) <= 10),
  ),
  SVC_GEOIP_PATH: entry(optionalString("SVC_GEOIP_PATH"), "a path to a .mmdb country database"),
  SVC_TRACKER_PATH: entry(optionalString("SVC_TRACKER_PATH"), "a path to the built svc.js"),
  SVC_LOG_LEVEL: entry(Config.Literals(["debug", "info", "warn", "error"], "SVC_LOG_LEVEL").pipe(Config.withDefault("info" as const)), "debug, info, warn or error"),
  SVC_MAILBOX_SIZE: entry(Config.Int("SVC_MAILBOX_SIZE").pipe(Config.withDefault(4096)), "an integer 16..1000000", (n) => n >= 16 && n <= 1_000_000),
  SVC_BATCH_MAX_ROWS: entry(Config.Int("SVC_BATCH_MAX_ROWS").pipe(Config.withDefault(5000)), "an integer 1..100000", (n) => n >= 1 && n <= 100_000),
  SVC_FLUSH_MS: entry(Config.Int("SVC_FLUSH_MS").pipe(Config.withDefault(4)), "an integer 0..1000 (milliseconds)", (n) => n >= 0 && n <= 1000),
  SVC_WRITER_IN_FLIGHT: entry(Config.Int("SVC_WRITER_IN_FLIGHT").pipe(Config.withDefault(1)), "an integer 1..8", (n) => n >= 1 && n <= 8),
  SVC_ROLLUP_FLUSH_MS: entry(Config.Int("SVC_ROLLUP_FLUSH_MS").pipe(Config.withDefault(1000)), "an integer 10..60000 (milliseconds)", (n) => n >= 10 && n <= 60_000),
  // 1 minute .. 7 days; default a day: a site quiet for a whole day holds a day-old visitor state it will
  // rebuild at its next row anyway (the day changed), so keeping it only costs memory.
  SVC_ACTOR_IDLE_MS: entry(Config.Int("SVC_ACTOR_IDLE_MS").pipe(Config.withDefault(86_400_000)), "an integer 60000..604800000 (milliseconds)", (n) => n >= 60_000 && n <= 604_800_000),
  NODE_ENV: entry(optionalString("NODE_ENV"), "a string"),
  SVC_AUTH_MODE: entry(Config.Literals(AUTH_MODES, "SVC_AUTH_MODE").pipe(Config.withDefault("admin" as const)), `"admin" or "jwt"`),
  SVC_ADMIN_EMAIL: entry(Config.String("SVC_ADMIN_EMAIL").pipe(Config.withDefault("admin@localhost")), "an e-mail address", (e) => /^[^\s@]+@[^\s@]+$/.test(e.trim())),
  // 8 characters: the minimum NIST SP 800-63B sets for a memorised secret.
  SVC_ADMIN_PASSWORD: entry(optionalString("SVC_ADMIN_PASSWORD"), "a password of at least 8 characters", (p) => p === null || p.length >= 8),
  SVC_JWT_SECRET: entry(optionalString("SVC_JWT_SECRET"), `a secret of at least ${MIN_JWT_SECRET_LENGTH} characters`, (s) => s === null || s.length >= MIN_JWT_SECRET_LENGTH),
  SVC_JWT_JWKS_URL: entry(optionalString("SVC_JWT_JWKS_URL"), "an http(s) URL of the identity provider's JWKS", (u) => u === null || /^https?:\/\/[^\s/]+/.test(u)),
  SVC_JWT_ISSUER: entry(optionalString("SVC_JWT_ISSUER"), "a non-empty issuer", (s) => s === null || s.trim() !== ""),
  SVC_JWT_AUDIENCE: entry(optionalString("SVC_JWT_AUDIENCE"), "a non-empty audience", (s) => s === null || s.trim() !== ""),
  SVC_JWT_TEAM_CLAIM: entry(Config.String("SVC_JWT_TEAM_CLAIM").pipe(Config.withDefault(DEFAULT_TEAM_CLAIM)), "a claim name without spaces", (c) => /^\S{1,200}$/.test(c)),
  SVC_LLM_PROVIDER: entry(
    Config.Literals(LLM_PROVIDERS, "SVC_LLM_PROVIDER").pipe(Config.option, Config.map(Option.getOrNull)),
    LLM_PROVIDERS.join(", "),
  ),
  SVC_LLM_MODEL: entry(optionalString("SVC_LLM_MODEL"), "a model name of at most 200 characters", (m) => m === null || (m.trim() !== "" && m.length <= 200)),
  SVC_LLM_HOST: entry(Config.String("SVC_LLM_HOST").pipe(Config.withDefault("http://127.0.0.1:11434")), "an http(s) URL", (u) => /^https?:\/\/[^\s/]+/.test(u)),
  SVC_OPENAI_BASE_URL: entry(optionalString("SVC_OPENAI_BASE_URL"), "an http(s) URL", (u) => u === null || /^https?:\/\/[^\s/]+/.test(u)),
  SVC_OPENAI_API_KEY: entry(optionalString("SVC_OPENAI_API_KEY"), "a string"),
  SVC_ANTHROPIC_API_KEY: entry(optionalString("SVC_ANTHROPIC_API_KEY"), "a string"),
  SVC_GEMINI_API_KEY: entry(optionalString("SVC_GEMINI_API_KEY"), "a string"),
} as const;

type Values = { [K in keyof typeof ENTRIES]: (typeof ENTRIES)[K] extends Entry<infer T> ? T : never };

export function loadConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  const provider = ConfigProvider.fromEnvRecord(env);
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [name, e] of Object.entries(ENTRIES) as Array<[string, Entry<unknown>]>) {
    const result = Effect.runSync(Effect.result(e.config.parse(provider)));
    if (Result.isFailure(result) || (e.check && !e.check(result.success))) {
      // A secret never reaches the boot log, even a malformed one.
      const shown = SECRET_ENV_NAMES.has(name) ? "(hidden)" : JSON.stringify(env[name] ?? "");
      problems.push(`${name}=${shown} is invalid: expected ${e.expected}`);
      continue;
    }
    values[name] = result.success;
  }
  const v = values as Values;
  // The cross-variable auth rules only make sense once each auth variable parsed on its own.
  const auth = AUTH_ENV_NAMES.every((name) => name in values)
    ? resolveAuthConfig({
        mode: v.SVC_AUTH_MODE, adminEmail: v.SVC_ADMIN_EMAIL, adminPassword: v.SVC_ADMIN_PASSWORD, jwtSecret: v.SVC_JWT_SECRET,
        jwksUrl: v.SVC_JWT_JWKS_URL, issuer: v.SVC_JWT_ISSUER, audience: v.SVC_JWT_AUDIENCE, teamClaim: v.SVC_JWT_TEAM_CLAIM,
        production: v.NODE_ENV === "production",
      })
    : null;
  if (auth) problems.push(...auth.problems);
  if (problems.length > 0 || !auth) throw new ConfigInvalid(problems);
  const trust = v.SVC_TRUST_PROXY === "false" ? 0 : v.SVC_TRUST_PROXY === "true" ? 1 : Number(v.SVC_TRUST_PROXY);
  return {
    port: v.SVC_PORT,
    host: v.SVC_HOST,
    transport: v.SVC_HTTP,
    databaseUrl: v.DATABASE_URL,
    dataDir: path.resolve(v.SVC_DATA_DIR),
    trustProxy: trust,
    geoipPath: v.SVC_GEOIP_PATH,
    trackerPath: v.SVC_TRACKER_PATH ?? path.join(repoRoot, "tracker/dist/svc.js"),
    logLevel: v.SVC_LOG_LEVEL,
    mailboxSize: v.SVC_MAILBOX_SIZE,
    batchMaxRows: v.SVC_BATCH_MAX_ROWS,
    flushMs: v.SVC_FLUSH_MS,
    writerInFlight: v.SVC_WRITER_IN_FLIGHT,
    rollupFlushMs: v.SVC_ROLLUP_FLUSH_MS,
    actorIdleMs: v.SVC_ACTOR_IDLE_MS,
    production: v.NODE_ENV === "production",
    auth: auth.config,
    llm: {
      provider: v.SVC_LLM_PROVIDER,
      model: v.SVC_LLM_MODEL,
      localHost: v.SVC_LLM_HOST,
      openaiBaseUrl: v.SVC_OPENAI_BASE_URL,
      openaiApiKey: v.SVC_OPENAI_API_KEY,
      anthropicApiKey: v.SVC_ANTHROPIC_API_KEY,
      geminiApiKey: v.SVC_GEMINI_API_KEY,
    },
  };
}
