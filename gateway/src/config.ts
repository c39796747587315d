// Configuration comes only from the environment, is read once at boot and validated as a whole:
// every bad value gets its own one-line message, so an operator fixes them all in one go.
import os from "node:os";
import path from "node:path";
import { Config, ConfigProvider, Effect, Option, Result } from "effect";
import type { LogLevel } from "./log.ts";
import { AUTH_ENV_NAMES, AUTH_MODES, type AuthConfig, DEFAULT_TEAM_CLAIM, MIN_JWT_SECRET_LENGTH, resolveAuthConfig, SECRET_ENV_NAMES } from "./auth/auth-config.ts";

import { parseTrustProxy, type TrustProxy } from "./ingest/client-ip.ts";
import { DEFAULT_EVENT_RATE_PER_CLIENT, DEFAULT_HIT_RATE_PER_SITE } from "./ingest/rate-limits.ts";
import { repoRoot } from "./repo-root.ts";
import { FAILED_CREDENTIALS_PER_WINDOW } from "./auth/failed-credentials.ts";
import { DEFAULT_ACQUIRE_TIMEOUT_MS, DEFAULT_STATEMENT_TIMEOUT_MS, DEFAULT_WRITE_STATEMENT_TIMEOUT_MS, type PoolLimits } from "./storage/pool-limits.ts";
import { DEFAULT_VALUE_BUDGET, DEFAULT_VISITOR_BUDGET, type StateBudget } from "./lanes/state-budget.ts";
import { REPLAY_BATCH_ROWS } from "./rollups/day-rows.ts";
import { redactUrlPasswords } from "./outbound/redact.ts";
import { ConfigInvalid } from "@svc/core";
import { type AdmissionLimits, QUERY_QUEUED, QUERY_RUNNING, QUERY_WAIT_MS } from "./query/admission.ts";

/** Where `npm run build:adapters` (adapters/scripts/pack.mjs) writes the packed middleware package. */
const ADAPTERS_PACKAGE = "adapters/pack/svc-adapters.tgz";

export { ConfigInvalid, redactUrlPasswords };

export interface GatewayConfig {
  readonly port: number;
  /** Where to listen: SVC_HOST, else 0.0.0.0, or 127.0.0.1 while a placeholder secret is in use. */
  readonly host: string;
  /** Why `host` is what it is, for the boot log line. */
  readonly hostReason: "explicit" | "default" | "placeholder secret";
  readonly transport: "uws" | "node";
  readonly databaseUrl: string | null;
  readonly dataDir: string;
  /** Reverse proxies whose X-Forwarded-* headers are believed: a hop count or networks (see ingest/client-ip.ts). */
  readonly trustProxy: TrustProxy;
  /** Origins besides the gateway's own that cookie-authenticated writes may come from (SVC_ALLOWED_ORIGINS). */
  readonly allowedOrigins: readonly string[];
  /** Concurrent live streams one credential may hold (SVC_LIVE_STREAMS_PER_CREDENTIAL). */
  readonly liveStreamsPerCredential: number;
  /** Sustained /api/event requests per second per client; 0 = unlimited (SVC_EVENT_RATE_PER_CLIENT). */
  readonly eventRatePerClient: number;
  /** Sustained /api/hit rows per second per site; 0 = unlimited (SVC_HIT_RATE_PER_SITE). */
  readonly hitRatePerSite: number;
  readonly geoipPath: string | null;
  readonly trackerPath: string;
  /** The middleware package as `npm run build:adapters` packed it, served at /adapters.tgz. */
  readonly adaptersPackagePath: string;
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
  /** A site lane that received no rows for this long is stopped and its visitor state released. */
  readonly laneIdleMs: number;
  /** Rows of a day's replay (a rebuild, a takeover's recount) between two turns of the event loop (rollups/day-rows.ts). */
  readonly replayBatchRows: number;
  /** The query engine's admission queue (query/admission.ts): queries running on DuckDB at once, waiting at most, and for how long. */
  readonly queryAdmission: AdmissionLimits;
  /** Several gateways on one database (SVC_CLUSTER): site ownership by advisory lock, see cluster/ownership.ts; null = one gateway. */
  readonly cluster: ClusterConfig | null;
  /** Visitors (SVC_VISITOR_BUDGET) and values per dimension (SVC_VALUE_BUDGET) of one site's day held exactly. */
  readonly stateBudget: StateBudget;
  /** Failed credential checks per client a minute before 429; 0 = unlimited (SVC_FAILED_CREDENTIALS_PER_CLIENT). */
  readonly failedCredentialsPerMinute: number;
  /** Timeouts of the shared pool and of the writer's own (storage/pool-limits.ts). */
  readonly databasePools: { readonly shared: PoolLimits; readonly write: PoolLimits };
  readonly production: boolean;
  /** SVC_AUTH_MODE and its credentials; see gateway/README.md "Authentication". */
  readonly auth: AuthConfig;
  /** The dashboard's public address (SVC_PUBLIC_URL), for links the gateway hands out: shared links, e-mails. */
  readonly publicUrl: string | null;
  /** Outbound e-mail (reports, alerts): SVC_SMTP_URL and SVC_MAIL_FROM; null when SVC_SMTP_URL is unset. */
  readonly mail: MailConfig | null;
  /** Language-model environment: the fallback choice for teams that stored none, and where each provider is reached. */
  readonly llm: LlmEnvironment;
  /** Every configured secret value (SECRET_ENV_NAMES, the passwords of DATABASE_URL and SVC_SMTP_URL): outbound/redact.ts replaces them in errors. */
  readonly secrets: readonly string[];
}

export interface MailConfig {
  /** smtp://user:password@host:port (STARTTLS when offered) or smtps:// (TLS from the start). A secret. */
  readonly smtpUrl: string;
  /** The From of every mail: `reports@example.com` or `svc <reports@example.com>`. */
  readonly from: string;
}

export interface ClusterConfig {
  /** SVC_GATEWAY_NAME: names this gateway's owner session (`svc-owner:<name>` in pg_stat_activity). */
  readonly name: string;
  /** SVC_OWNER_TIMEOUT_MS: how long the locks of a silent (paused, dead) gateway outlive it. */
  readonly ownerTimeoutMs: number;
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
  /** Base URLs of the hosted providers, overridable for proxies and tests. */
  readonly anthropicBaseUrl: string;
  readonly geminiBaseUrl: string;
  /** How long one provider request may take before it is abandoned. */
  readonly timeoutMs: number;
  /** Hours between scheduled insights runs of a site; 0 = no schedule (runs only on request). */
  readonly insightsEveryHours: number;
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
  SVC_HOST: entry(optionalString("SVC_HOST"), "a host or address to bind", (h) => h === null || h.trim() !== ""),
  SVC_HTTP: entry(Config.Literals(["uws", "node"], "SVC_HTTP").pipe(Config.withDefault("uws" as const)), `"uws" or "node"`),
  DATABASE_URL: entry(optionalString("DATABASE_URL"), "a postgres:// URL", (u) => u === null || /^postgres(ql)?:\/\/\S+$/.test(u)),
  SVC_DATA_DIR: entry(Config.NonEmptyString("SVC_DATA_DIR").pipe(Config.withDefault("./.svc-data")), "a directory path"),
  SVC_TRUST_PROXY: entry(
    Config.String("SVC_TRUST_PROXY").pipe(Config.withDefault("0")),
    "false, true (= 1), the number of trusted proxy hops 0..10, or comma-separated proxy addresses/CIDRs (10.0.0.0/8,fd00::/8)",
    (v) => parseTrustProxy(v) !== null,
  ),
  SVC_ALLOWED_ORIGINS: entry(
    Config.String("SVC_ALLOWED_ORIGINS").pipe(Config.withDefault("")),
    "comma-separated origins such as https://stats.example.com (scheme, host and port only)",
    (v) => splitList(v).every((o) => canonicalOrigin(o) === o.toLowerCase()),
  ),
  // 20: a person with a few dashboard tabs open and a wall display; 429 beyond, so one leaked credential
  // cannot hold thousands of sockets.
  SVC_LIVE_STREAMS_PER_CREDENTIAL: entry(Config.Int("SVC_LIVE_STREAMS_PER_CREDENTIAL").pipe(Config.withDefault(20)), "an integer 1..10000", (n) => n >= 1 && n <= 10_000),
  // See ingest/rate-limits.ts for why these numbers.
  SVC_EVENT_RATE_PER_CLIENT: entry(Config.Int("SVC_EVENT_RATE_PER_CLIENT").pipe(Config.withDefault(DEFAULT_EVENT_RATE_PER_CLIENT)), "an integer 0..1000000 (requests per second; 0 = unlimited)", (n) => n >= 0 && n <= 1_000_000),
  SVC_HIT_RATE_PER_SITE: entry(Config.Int("SVC_HIT_RATE_PER_SITE").pipe(Config.withDefault(DEFAULT_HIT_RATE_PER_SITE)), "an integer 0..10000000 (hits per second; 0 = unlimited)", (n) => n >= 0 && n <= 10_000_000),
  SVC_GEOIP_PATH: entry(optionalString("SVC_GEOIP_PATH"), "a path to a .mmdb country database"),
  SVC_TRACKER_PATH: entry(optionalString("SVC_TRACKER_PATH"), "a path to the built svc.js"),
  SVC_ADAPTERS_PACKAGE_PATH: entry(optionalString("SVC_ADAPTERS_PACKAGE_PATH"), "a path to the packed middleware package (.tgz)"),
  SVC_LOG_LEVEL: entry(Config.Literals(["debug", "info", "warn", "error"], "SVC_LOG_LEVEL").pipe(Config.withDefault("info" as const)), "debug, info, warn or error"),
  SVC_MAILBOX_SIZE: entry(Config.Int("SVC_MAILBOX_SIZE").pipe(Config.withDefault(4096)), "an integer 16..1000000", (n) => n >= 16 && n <= 1_000_000),
  SVC_BATCH_MAX_ROWS: entry(Config.Int("SVC_BATCH_MAX_ROWS").pipe(Config.withDefault(5000)), "an integer 1..100000", (n) => n >= 1 && n <= 100_000),
  SVC_FLUSH_MS: entry(Config.Int("SVC_FLUSH_MS").pipe(Config.withDefault(4)), "an integer 0..1000 (milliseconds)", (n) => n >= 0 && n <= 1000),
  SVC_WRITER_IN_FLIGHT: entry(Config.Int("SVC_WRITER_IN_FLIGHT").pipe(Config.withDefault(1)), "an integer 1..8", (n) => n >= 1 && n <= 8),
  SVC_ROLLUP_FLUSH_MS: entry(Config.Int("SVC_ROLLUP_FLUSH_MS").pipe(Config.withDefault(1000)), "an integer 10..60000 (milliseconds)", (n) => n >= 10 && n <= 60_000),
  // 1 minute .. 7 days; default a day: a site quiet for a whole day holds a day-old visitor state it will
  // rebuild at its next row anyway (the day changed), so keeping it only costs memory.
  SVC_LANE_IDLE_MS: entry(Config.Int("SVC_LANE_IDLE_MS").pipe(Config.withDefault(86_400_000)), "an integer 60000..604800000 (milliseconds)", (n) => n >= 60_000 && n <= 604_800_000),
  SVC_REPLAY_BATCH_ROWS: entry(Config.Int("SVC_REPLAY_BATCH_ROWS").pipe(Config.withDefault(REPLAY_BATCH_ROWS)), "an integer 100..1000000 (rows)", (n) => n >= 100 && n <= 1_000_000),
  // See query/admission.ts for why these numbers.
  SVC_QUERY_RUNNING: entry(Config.Int("SVC_QUERY_RUNNING").pipe(Config.withDefault(QUERY_RUNNING)), "an integer 1..16 (queries running on the query engine at once)", (n) => n >= 1 && n <= 16),
  SVC_QUERY_QUEUE: entry(Config.Int("SVC_QUERY_QUEUE").pipe(Config.withDefault(QUERY_QUEUED)), "an integer 0..10000 (queries waiting for the query engine)", (n) => n >= 0 && n <= 10_000),
  SVC_QUERY_WAIT_MS: entry(Config.Int("SVC_QUERY_WAIT_MS").pipe(Config.withDefault(QUERY_WAIT_MS)), "an integer 100..600000 (milliseconds)", (n) => n >= 100 && n <= 600_000),
  SVC_CLUSTER: entry(Config.Boolean("SVC_CLUSTER").pipe(Config.withDefault(false)), "true or false (on/off, 1/0)"),
  SVC_GATEWAY_NAME: entry(optionalString("SVC_GATEWAY_NAME"), "1..40 letters, digits, '.', '_' or '-'", (n) => n === null || /^[\w.-]{1,40}$/.test(n)),
  // 5 s: a paused or dead gateway's sites move after about 5 s, while a live one heartbeats every 1.7 s. At 3 s
  // a gateway on this 2-core box at load average 20 lost its session while rebuilding a 100,000-row day (its
  // event loop held for ~4 s), and then rebuilt it again; below 1 s a GC pause would cost a healthy one its sites.
  SVC_OWNER_TIMEOUT_MS: entry(Config.Int("SVC_OWNER_TIMEOUT_MS").pipe(Config.withDefault(5000)), "an integer 1000..60000 (milliseconds)", (n) => n >= 1000 && n <= 60_000),
  // See lanes/state-budget.ts for why these numbers and what a site past them looks like.
  SVC_VISITOR_BUDGET: entry(Config.Int("SVC_VISITOR_BUDGET").pipe(Config.withDefault(DEFAULT_VISITOR_BUDGET)), "an integer 1..100000000 (visitors of one site's day)", (n) => n >= 1 && n <= 100_000_000),
  SVC_VALUE_BUDGET: entry(Config.Int("SVC_VALUE_BUDGET").pipe(Config.withDefault(DEFAULT_VALUE_BUDGET)), "an integer 1..10000000 (distinct values of one dimension of one site's day)", (n) => n >= 1 && n <= 10_000_000),
  // See auth/failed-credentials.ts for why 30.
  SVC_FAILED_CREDENTIALS_PER_CLIENT: entry(Config.Int("SVC_FAILED_CREDENTIALS_PER_CLIENT").pipe(Config.withDefault(FAILED_CREDENTIALS_PER_WINDOW)), "an integer 0..100000 (failed credential checks a minute; 0 = unlimited)", (n) => n >= 0 && n <= 100_000),
  // See storage/pool-limits.ts for why these numbers.
  SVC_DB_ACQUIRE_TIMEOUT_MS: entry(Config.Int("SVC_DB_ACQUIRE_TIMEOUT_MS").pipe(Config.withDefault(DEFAULT_ACQUIRE_TIMEOUT_MS)), "an integer 100..600000 (milliseconds)", (n) => n >= 100 && n <= 600_000),
  SVC_DB_STATEMENT_TIMEOUT_MS: entry(Config.Int("SVC_DB_STATEMENT_TIMEOUT_MS").pipe(Config.withDefault(DEFAULT_STATEMENT_TIMEOUT_MS)), "an integer 0..3600000 (milliseconds; 0 = none)", (n) => n >= 0 && n <= 3_600_000),
  SVC_DB_WRITE_STATEMENT_TIMEOUT_MS: entry(Config.Int("SVC_DB_WRITE_STATEMENT_TIMEOUT_MS").pipe(Config.withDefault(DEFAULT_WRITE_STATEMENT_TIMEOUT_MS)), "an integer 0..3600000 (milliseconds; 0 = none)", (n) => n >= 0 && n <= 3_600_000),
  SVC_PUBLIC_URL: entry(optionalString("SVC_PUBLIC_URL"), "the dashboard's public origin such as https://stats.example.com", (u) => u === null || canonicalOrigin(u) === u.toLowerCase().replace(/\/$/, "")),
  SVC_SMTP_URL: entry(optionalString("SVC_SMTP_URL"), "an smtp:// or smtps:// URL such as smtps://user:password@smtp.example.com:465", (u) => u === null || isSmtpUrl(u)),
  SVC_MAIL_FROM: entry(optionalString("SVC_MAIL_FROM"), "an e-mail address, or a name and one: svc <reports@example.com>", (f) => f === null || MAIL_FROM.test(f.trim())),
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
  SVC_ANTHROPIC_BASE_URL: entry(Config.String("SVC_ANTHROPIC_BASE_URL").pipe(Config.withDefault("https://api.anthropic.com")), "an http(s) URL", (u) => /^https?:\/\/[^\s/]+/.test(u)),
  SVC_GEMINI_BASE_URL: entry(Config.String("SVC_GEMINI_BASE_URL").pipe(Config.withDefault("https://generativelanguage.googleapis.com")), "an http(s) URL", (u) => /^https?:\/\/[^\s/]+/.test(u)),
  // 60 s: hosted models answer five findings in a few seconds, a 3B model on a laptop CPU in 30–90 s (a slow
  // machine raises it). A POST answers 202 after 5 s whatever this is (routes/insights.ts); this bounds how long
  // a hung provider holds the site's run slot (a timeout is not retried). It was 120 s.
  SVC_LLM_TIMEOUT_MS: entry(Config.Int("SVC_LLM_TIMEOUT_MS").pipe(Config.withDefault(60_000)), "an integer 100..600000 (milliseconds)", (n) => n >= 100 && n <= 600_000),
  // 168 hours: weekly, matching the aggregate's 7-day period and week-over-week change.
  SVC_INSIGHTS_EVERY_HOURS: entry(Config.Int("SVC_INSIGHTS_EVERY_HOURS").pipe(Config.withDefault(168)), "an integer 0..8784 (hours; 0 = only on request)", (n) => n >= 0 && n <= 8784),
} as const;

// A renamed variable still set would otherwise be ignored without a word, its value quietly replaced by the default.
const RENAMED_VARIABLES: Readonly<Record<string, string>> = { SVC_ACTOR_IDLE_MS: "SVC_LANE_IDLE_MS" };

/** Every variable the gateway reads (.env.example and the README list them all; a test checks). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(ENTRIES);

type Values = { [K in keyof typeof ENTRIES]: (typeof ENTRIES)[K] extends Entry<infer T> ? T : never };

export function loadConfig(rawEnv: Record<string, string | undefined> = process.env): GatewayConfig {
  // An empty variable counts as unset: docker-compose.yml passes optional settings as `${NAME:-}`.
  const env = Object.fromEntries(Object.entries(rawEnv).filter(([, value]) => value !== undefined && value !== ""));
  const provider = ConfigProvider.fromEnvRecord(env);
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [name, e] of Object.entries(ENTRIES) as Array<[string, Entry<unknown>]>) {
    const result = Effect.runSync(Effect.result(e.config.parse(provider)));
    if (Result.isFailure(result) || (e.check && !e.check(result.success))) {
      // A secret never reaches the boot log, even a malformed one; nor does a password inside a URL.
      const shown = SECRET_ENV_NAMES.has(name) ? "(hidden)" : JSON.stringify(redactUrlPasswords(env[name] ?? ""));
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
  // A placeholder secret means anyone who can reach the port can sign in: such a gateway listens on loopback
  // only, and an explicit non-loopback SVC_HOST is refused rather than quietly narrowed.
  const placeholders = auth && auth.config.mode === "admin" ? auth.config.placeholders : [];
  if ("SVC_HOST" in values && v.SVC_HOST !== null && placeholders.length > 0 && !isLoopbackHost(v.SVC_HOST)) {
    problems.push(`SVC_HOST=${JSON.stringify(v.SVC_HOST)} exposes the gateway beyond this machine while ${placeholders.join(" and ")} ${placeholders.length > 1 ? "are" : "is"} the shipped placeholder: set ${placeholders.length > 1 ? "them" : "it"} first (or unset SVC_HOST to listen on 127.0.0.1 only)`);
  }
  // Mail needs all three: where to send through, whom it is from, and where its links (confirm, unsubscribe) point.
  if ("SVC_SMTP_URL" in values && v.SVC_SMTP_URL !== null) {
    if (v.SVC_MAIL_FROM === null) problems.push("SVC_SMTP_URL is set but SVC_MAIL_FROM is not: e-mails need a From address");
    if (v.SVC_PUBLIC_URL === null) problems.push("SVC_SMTP_URL is set but SVC_PUBLIC_URL is not: e-mails link to the dashboard (confirm, unsubscribe) and need its public address");
  }
  for (const [was, now] of Object.entries(RENAMED_VARIABLES)) {
    if (was in env) problems.push(`${was} was renamed ${now}: set ${now} instead`);
  }
  // One owner session runs every commit and holds every lock (cluster/ownership.ts): one transaction in flight.
  if (v.SVC_CLUSTER === true && "SVC_WRITER_IN_FLIGHT" in values && v.SVC_WRITER_IN_FLIGHT !== 1) {
    problems.push(`SVC_WRITER_IN_FLIGHT=${v.SVC_WRITER_IN_FLIGHT} is invalid with SVC_CLUSTER: expected 1 (the owner session that holds the site locks runs every commit)`);
  }
  if (problems.length > 0 || !auth) throw new ConfigInvalid(problems);
  const host = v.SVC_HOST !== null ? v.SVC_HOST : placeholders.length > 0 ? "127.0.0.1" : "0.0.0.0";
  return {
    port: v.SVC_PORT,
    host,
    hostReason: v.SVC_HOST !== null ? "explicit" : placeholders.length > 0 ? "placeholder secret" : "default",
    transport: v.SVC_HTTP,
    databaseUrl: v.DATABASE_URL,
    dataDir: path.resolve(v.SVC_DATA_DIR),
    trustProxy: parseTrustProxy(v.SVC_TRUST_PROXY)!,
    allowedOrigins: splitList(v.SVC_ALLOWED_ORIGINS).map((o) => o.toLowerCase()),
    liveStreamsPerCredential: v.SVC_LIVE_STREAMS_PER_CREDENTIAL,
    eventRatePerClient: v.SVC_EVENT_RATE_PER_CLIENT,
    hitRatePerSite: v.SVC_HIT_RATE_PER_SITE,
    geoipPath: v.SVC_GEOIP_PATH,
    trackerPath: v.SVC_TRACKER_PATH ?? path.join(repoRoot, "tracker/dist/svc.js"),
    adaptersPackagePath: v.SVC_ADAPTERS_PACKAGE_PATH ?? path.join(repoRoot, ADAPTERS_PACKAGE),
    logLevel: v.SVC_LOG_LEVEL,
    mailboxSize: v.SVC_MAILBOX_SIZE,
    batchMaxRows: v.SVC_BATCH_MAX_ROWS,
    flushMs: v.SVC_FLUSH_MS,
    writerInFlight: v.SVC_WRITER_IN_FLIGHT,
    rollupFlushMs: v.SVC_ROLLUP_FLUSH_MS,
    laneIdleMs: v.SVC_LANE_IDLE_MS,
    replayBatchRows: v.SVC_REPLAY_BATCH_ROWS,
    queryAdmission: { running: v.SVC_QUERY_RUNNING, queued: v.SVC_QUERY_QUEUE, waitMs: v.SVC_QUERY_WAIT_MS },
    cluster: v.SVC_CLUSTER ? { name: v.SVC_GATEWAY_NAME ?? `${os.hostname()}-${process.pid}`, ownerTimeoutMs: v.SVC_OWNER_TIMEOUT_MS } : null,
    stateBudget: { visitors: v.SVC_VISITOR_BUDGET, values: v.SVC_VALUE_BUDGET },
    failedCredentialsPerMinute: v.SVC_FAILED_CREDENTIALS_PER_CLIENT,
    databasePools: {
      shared: { acquireTimeoutMs: v.SVC_DB_ACQUIRE_TIMEOUT_MS, statementTimeoutMs: v.SVC_DB_STATEMENT_TIMEOUT_MS },
      write: { acquireTimeoutMs: v.SVC_DB_ACQUIRE_TIMEOUT_MS, statementTimeoutMs: v.SVC_DB_WRITE_STATEMENT_TIMEOUT_MS },
    },
    production: v.NODE_ENV === "production",
    publicUrl: v.SVC_PUBLIC_URL === null ? null : canonicalOrigin(v.SVC_PUBLIC_URL),
    mail: v.SVC_SMTP_URL === null || v.SVC_MAIL_FROM === null ? null : { smtpUrl: v.SVC_SMTP_URL, from: v.SVC_MAIL_FROM.trim() },
    auth: auth.config,
    llm: {
      provider: v.SVC_LLM_PROVIDER,
      model: v.SVC_LLM_MODEL,
      localHost: v.SVC_LLM_HOST,
      openaiBaseUrl: v.SVC_OPENAI_BASE_URL,
      openaiApiKey: v.SVC_OPENAI_API_KEY,
      anthropicApiKey: v.SVC_ANTHROPIC_API_KEY,
      geminiApiKey: v.SVC_GEMINI_API_KEY,
      anthropicBaseUrl: v.SVC_ANTHROPIC_BASE_URL,
      geminiBaseUrl: v.SVC_GEMINI_BASE_URL,
      timeoutMs: v.SVC_LLM_TIMEOUT_MS,
      insightsEveryHours: v.SVC_INSIGHTS_EVERY_HOURS,
    },
    secrets: [...[...SECRET_ENV_NAMES].map((name) => env[name]), passwordOf(v.DATABASE_URL), passwordOf(v.SVC_SMTP_URL)].filter((x): x is string => typeof x === "string" && x !== ""),
  };
}

/** The password of a connection URL (decoded), or null. */
function passwordOf(url: string | null): string | null {
  try {
    return url === null ? null : decodeURIComponent(new URL(url).password) || null;
  } catch {
    return null;
  }
}

const MAIL_FROM = /^([^<>\r\n]{0,100}<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/;

function isSmtpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "smtp:" || url.protocol === "smtps:") && url.hostname !== "";
  } catch {
    return false;
  }
}

const splitList = (v: string): string[] => v.split(",").map((s) => s.trim()).filter(Boolean);

/** `scheme://host[:port]` of an http(s) URL, lower-case, default port dropped; null when it is not one. */
export function canonicalOrigin(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    return url.origin.toLowerCase();
  } catch {
    return null;
  }
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);
const isLoopbackHost = (host: string): boolean => LOOPBACK_HOSTS.has(host.trim().toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(host.trim());

