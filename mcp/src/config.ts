// The tool server's configuration comes only from the environment, is read once at start and validated as a
// whole: every bad or missing value gets its own line, so a user fixes them all in one go.
import { ConfigInvalid } from "@svc/core/config-invalid";

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

export { ConfigInvalid };

// 10 s: a read route answers in milliseconds (README benchmarks, p99 under 10 ms over 10M rows); ten seconds
// means the gateway is down or stuck, and an assistant waiting longer helps no one.
export const DEFAULT_TIMEOUT_MS = 10_000;

const HTTP_URL = /^https?:\/\/[^\s/]+/;
// A domain as sites store it, or a numeric id: no slash, query or space, which would change the route's path.
const SITE = /^[A-Za-z0-9.:[\]-]{1,253}$/;

/** One variable: its text (undefined when unset or empty) to a value, or null when it is not acceptable. */
interface Variable<T> {
  readonly expected: string;
  readonly parse: (raw: string | undefined) => T | null;
}

const INTEGER = /^\d{1,9}$/;

const VARIABLES = {
  SVC_API_URL: { expected: "the gateway's http(s) URL, e.g. http://localhost:8080", parse: (raw) => (raw === undefined ? "http://localhost:8080" : HTTP_URL.test(raw) ? raw.replace(/\/+$/, "") : null) },
  SVC_API_KEY: { expected: "an API key: log in to the gateway and create one with POST /api/keys (it starts with svc_live_)", parse: (raw) => (raw !== undefined && /^\S+$/.test(raw) ? raw : null) },
  SVC_SITE_ID: { expected: "the site's domain (example.com) or numeric id", parse: (raw) => (raw !== undefined && SITE.test(raw) ? raw : null) },
  SVC_MCP_TIMEOUT_MS: {
    expected: "an integer 100..120000 (milliseconds)",
    parse: (raw) => (raw === undefined ? DEFAULT_TIMEOUT_MS : INTEGER.test(raw.trim()) && Number(raw) >= 100 && Number(raw) <= 120_000 ? Number(raw) : null),
  },
} satisfies Record<string, Variable<string | number>>;

export function loadConfig(env: Record<string, string | undefined> = process.env): McpConfig {
  const problems: string[] = [];
  const values: Record<string, string | number> = {};
  for (const [name, variable] of Object.entries(VARIABLES) as Array<[string, Variable<string | number>]>) {
    const raw = env[name] === "" ? undefined : env[name];
    const value = variable.parse(raw);
    if (value !== null) {
      values[name] = value;
      continue;
    }
    // The key never reaches stderr, even a malformed one.
    const shown = raw === undefined ? `${name} is not set` : `${name}=${name === "SVC_API_KEY" ? "(hidden)" : JSON.stringify(raw)} is invalid`;
    problems.push(`${shown}: expected ${variable.expected}`);
  }
  if (problems.length > 0) throw new ConfigInvalid(problems);
  return {
    apiUrl: values["SVC_API_URL"] as string,
    apiKey: values["SVC_API_KEY"] as string,
    siteId: values["SVC_SITE_ID"] as string,
    timeoutMs: values["SVC_MCP_TIMEOUT_MS"] as number,
  };
}
