// The tool server's configuration comes only from the environment, is read once at start and validated as a
// whole: every bad or missing value gets its own line, so a user fixes them all in one go.
// Module paths, not the "effect" barrel: the barrel loads every module (~3 s of a cold start on this box
// against ~1 s), and the server starts each time a client opens a session.
import * as Config from "effect/Config";
import * as ConfigProvider from "effect/ConfigProvider";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import * as Result from "effect/Result";

export interface McpConfig {
  /** Base URL of the gateway, without a trailing slash. */
  readonly apiUrl: string;
  /** A `svc_live_…` API key (or any bearer credential the read routes accept). */
  readonly apiKey: string;
  /** The site's domain or numeric id, as the read routes' `{id}` accepts it. */
  readonly siteId: string;
  /** How long one upstream request may take before the tool answers with a timeout error. */
  readonly timeoutMs: number;
}

export class ConfigInvalid extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigInvalid";
  }
}

// 10 s: a read route answers in milliseconds (README benchmarks, p99 under 10 ms over 10M rows); ten seconds
// means the gateway is down or stuck, and an assistant waiting longer helps no one.
export const DEFAULT_TIMEOUT_MS = 10_000;

const HTTP_URL = /^https?:\/\/[^\s/]+/;
// A domain as sites store it, or a numeric id: no slash, query or space, which would change the route's path.
const SITE = /^[A-Za-z0-9.:[\]-]{1,253}$/;

interface Entry<T> {
  readonly config: Config.Config<T>;
  readonly expected: string;
  readonly check?: (value: T) => boolean;
}

const entry = <T>(config: Config.Config<T>, expected: string, check?: (value: T) => boolean): Entry<T> =>
  check ? { config, expected, check } : { config, expected };

const required = (name: string) => Config.String(name).pipe(Config.option, Config.map(Option.getOrNull));

const ENTRIES = {
  SVC_API_URL: entry(Config.String("SVC_API_URL").pipe(Config.withDefault("http://localhost:8080")), "the gateway's http(s) URL, e.g. http://localhost:8080", (u) => HTTP_URL.test(u)),
  SVC_API_KEY: entry(required("SVC_API_KEY"), "an API key: log in to the gateway and create one with POST /api/keys (it starts with svc_live_)", (k) => k !== null && /^\S+$/.test(k)),
  SVC_SITE_ID: entry(required("SVC_SITE_ID"), "the site's domain (example.com) or numeric id", (s) => s !== null && SITE.test(s)),
  SVC_MCP_TIMEOUT_MS: entry(Config.Int("SVC_MCP_TIMEOUT_MS").pipe(Config.withDefault(DEFAULT_TIMEOUT_MS)), "an integer 100..120000 (milliseconds)", (n) => n >= 100 && n <= 120_000),
} as const;

type Values = { [K in keyof typeof ENTRIES]: (typeof ENTRIES)[K] extends Entry<infer T> ? T : never };

export function loadConfig(env: Record<string, string | undefined> = process.env): McpConfig {
  const provider = ConfigProvider.fromEnvRecord(env);
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [name, e] of Object.entries(ENTRIES) as Array<[string, Entry<unknown>]>) {
    const result = Effect.runSync(Effect.result(e.config.parse(provider)));
    if (Result.isFailure(result) || (e.check && !e.check(result.success))) {
      const raw = env[name];
      // The key never reaches stderr, even a malformed one.
      const shown = raw === undefined || raw === "" ? `${name} is not set` : `${name}=${name === "SVC_API_KEY" ? "(hidden)" : JSON.stringify(raw)} is invalid`;
      problems.push(`${shown}: expected ${e.expected}`);
      continue;
    }
    values[name] = result.success;
  }
  if (problems.length > 0) throw new ConfigInvalid(problems);
  const v = values as Values;
  return { apiUrl: v.SVC_API_URL.replace(/\/+$/, ""), apiKey: v.SVC_API_KEY!, siteId: v.SVC_SITE_ID!, timeoutMs: v.SVC_MCP_TIMEOUT_MS };
}
