// The classifier's tables, loaded from core/data/*.json so they can be updated without touching code
// (core/scripts/build-tables.ts regenerates them from the corpus README and the upstream lists).
// Every file is checked once at load; a malformed edit fails at startup with the file and entry named,
// never later as a silent misclassification.
import aiAgentsJson from "../../data/ai-agents.json" with { type: "json" };
import aiCrawlersJson from "../../data/ai-crawlers.json" with { type: "json" };
import aiUtmSourcesJson from "../../data/ai-utm-sources.json" with { type: "json" };
import assistantReferrersJson from "../../data/assistant-referrers.json" with { type: "json" };
import automationMarkersJson from "../../data/automation-markers.json" with { type: "json" };
import isbotPatternsJson from "../../data/isbot-patterns.json" with { type: "json" };
import robotsJsonExclusionsJson from "../../data/robots-json-exclusions.json" with { type: "json" };
import sourcesJson from "../../data/sources.json" with { type: "json" };
import webviewsJson from "../../data/webviews.json" with { type: "json" };

/** A string found in User-Agent headers, the name it is shown under, who runs it, and where the entry comes from. */
export interface UaToken {
  readonly token: string;
  readonly name: string;
  readonly operator: string;
  /** A key of `dataSources`. */
  readonly source: string;
}

export type AssistantReferrerMatch = "host" | "host-path" | "android-app";

/**
 * One referrer that names an assistant. `host`: the referrer host equals `host` (after lowercasing, port
 * ignored, one `www.` stripped). `host-path`: same host and a path at or below `pathPrefix`.
 * `android-app`: an `android-app://<host>/` referrer (the Android app's package name).
 */
export interface AssistantReferrer {
  readonly match: AssistantReferrerMatch;
  readonly host: string;
  readonly pathPrefix?: string;
  readonly name: string;
  readonly operator: string;
  readonly source: string;
}

/** A normalised `utm_source` value naming an assistant, besides the assistant hosts themselves. */
export interface AiUtmSource {
  readonly value: string;
  readonly name: string;
  readonly source: string;
}

/** A robots.json entry deliberately not matched as an AI token, and why. */
export interface RobotsJsonExclusion {
  readonly token: string;
  readonly reason: string;
  readonly effect: string;
}

export interface DataSource {
  readonly title: string;
  readonly repository: string;
  readonly path: string;
  readonly commit: string;
  readonly license: string;
}

/** One assistant with every signal that names it, for listing. */
export interface Assistant {
  readonly name: string;
  readonly operator: string;
  /** Display forms: `chatgpt.com`, `x.com/i/grok`, `android-app://com.openai.chatgpt`. */
  readonly referrers: readonly string[];
  /** Every normalised `utm_source` value that names it (its hosts plus brand words). */
  readonly utmSources: readonly string[];
}

class TableError extends Error {
  constructor(file: string, detail: string) {
    super(`core/data/${file}: ${detail}`);
    this.name = "TableError";
  }
}

function record(file: string, value: unknown, index: number): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TableError(file, `entry ${index} is not an object`);
  }
  return value as Record<string, unknown>;
}

function text(file: string, entry: Record<string, unknown>, key: string, index: number, allowEmpty = false): string {
  const value = entry[key];
  if (typeof value !== "string" || (!allowEmpty && value.trim() === "")) {
    throw new TableError(file, `entry ${index} needs a non-empty string "${key}"`);
  }
  return value;
}

function list(file: string, value: unknown): readonly unknown[] {
  if (!Array.isArray(value) || value.length === 0) throw new TableError(file, "must be a non-empty JSON array");
  return value;
}

function loadSources(value: unknown): Readonly<Record<string, DataSource>> {
  const file = "sources.json";
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new TableError(file, "must be a JSON object");
  const out: Record<string, DataSource> = {};
  for (const [id, raw] of Object.entries(value)) {
    const entry = record(file, raw, 0);
    out[id] = Object.freeze({
      title: text(file, entry, "title", 0),
      repository: text(file, entry, "repository", 0, true),
      path: text(file, entry, "path", 0, true),
      commit: text(file, entry, "commit", 0, true),
      license: text(file, entry, "license", 0),
    });
  }
  return Object.freeze(out);
}

export const dataSources = loadSources(sourcesJson);

function knownSource(file: string, source: string, index: number): string {
  if (!Object.hasOwn(dataSources, source)) throw new TableError(file, `entry ${index} has unknown source "${source}"`);
  return source;
}

// Tokens are literal text; a character outside printable ASCII would never match a header value as intended.
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

function loadUaTokens(file: string, value: unknown): readonly UaToken[] {
  const seen = new Set<string>();
  return Object.freeze(
    list(file, value).map((raw, i) => {
      const entry = record(file, raw, i);
      const token = text(file, entry, "token", i);
      if (!PRINTABLE_ASCII.test(token) || token !== token.trim()) {
        throw new TableError(file, `entry ${i} token "${token}" must be printable ASCII without outer spaces`);
      }
      const key = token.toLowerCase();
      if (seen.has(key)) throw new TableError(file, `token "${token}" is listed twice (tokens match case-insensitively)`);
      seen.add(key);
      return Object.freeze({
        token,
        name: text(file, entry, "name", i),
        operator: text(file, entry, "operator", i),
        source: knownSource(file, text(file, entry, "source", i), i),
      });
    }),
  );
}

function loadAssistantReferrers(value: unknown): readonly AssistantReferrer[] {
  const file = "assistant-referrers.json";
  const seen = new Set<string>();
  return Object.freeze(
    list(file, value).map((raw, i) => {
      const entry = record(file, raw, i);
      const match = text(file, entry, "match", i);
      if (match !== "host" && match !== "host-path" && match !== "android-app") {
        throw new TableError(file, `entry ${i} has match "${match}"; expected host, host-path or android-app`);
      }
      const host = text(file, entry, "host", i);
      if (host !== host.toLowerCase() || host.startsWith("www.") || !/^[a-z0-9.-]+$/.test(host)) {
        throw new TableError(file, `entry ${i} host "${host}" must be a lowercase host name without "www."`);
      }
      const pathPrefix = match === "host-path" ? text(file, entry, "pathPrefix", i) : undefined;
      if (pathPrefix !== undefined && (!pathPrefix.startsWith("/") || pathPrefix.endsWith("/"))) {
        throw new TableError(file, `entry ${i} pathPrefix "${pathPrefix}" must start with "/" and not end with one`);
      }
      const key = `${match} ${host}`;
      if (seen.has(key)) throw new TableError(file, `${match} "${host}" is listed twice`);
      seen.add(key);
      const base = {
        match,
        host,
        name: text(file, entry, "name", i),
        operator: text(file, entry, "operator", i),
        source: knownSource(file, text(file, entry, "source", i), i),
      } as const;
      return Object.freeze(pathPrefix === undefined ? base : { ...base, pathPrefix });
    }),
  );
}

function loadAiUtmSources(value: unknown, assistantNames: ReadonlySet<string>): readonly AiUtmSource[] {
  const file = "ai-utm-sources.json";
  return Object.freeze(
    list(file, value).map((raw, i) => {
      const entry = record(file, raw, i);
      const utm = text(file, entry, "value", i);
      if (utm !== utm.trim().toLowerCase() || utm.startsWith("www.")) {
        throw new TableError(file, `entry ${i} value "${utm}" must be normalised (trimmed, lowercase, no "www.")`);
      }
      const name = text(file, entry, "name", i);
      if (!assistantNames.has(name)) throw new TableError(file, `entry ${i} names "${name}", which is no assistant`);
      return Object.freeze({ value: utm, name, source: knownSource(file, text(file, entry, "source", i), i) });
    }),
  );
}

function loadExclusions(value: unknown): readonly RobotsJsonExclusion[] {
  const file = "robots-json-exclusions.json";
  return Object.freeze(
    list(file, value).map((raw, i) => {
      const entry = record(file, raw, i);
      return Object.freeze({
        token: text(file, entry, "token", i),
        reason: text(file, entry, "reason", i),
        effect: text(file, entry, "effect", i),
      });
    }),
  );
}

function loadPatterns(value: unknown): readonly string[] {
  const file = "isbot-patterns.json";
  return Object.freeze(
    list(file, value).map((pattern, i) => {
      if (typeof pattern !== "string" || pattern === "") throw new TableError(file, `entry ${i} must be a non-empty string`);
      try {
        new RegExp(pattern, "i");
      } catch (error) {
        throw new TableError(file, `entry ${i} is not a valid regular expression: ${(error as Error).message}`);
      }
      return pattern;
    }),
  );
}

/** AI training and AI-search crawlers (→ `ai_crawler`), from ai.robots.txt minus agents and exclusions. */
export const aiCrawlers = loadUaTokens("ai-crawlers.json", aiCrawlersJson);
/** User-triggered AI fetchers, agentic browsers and coding agents (→ `ai_agent`). */
export const aiAgents = loadUaTokens("ai-agents.json", aiAgentsJson);
/** Headless / browser-automation markers (→ `ai_agent`, unless a generic bot identity is also present). */
export const automationMarkers = loadUaTokens("automation-markers.json", automationMarkersJson);
/** In-app webview tokens of assistant apps (→ `human_via_ai` on a browser UA). */
export const webviews = loadUaTokens("webviews.json", webviewsJson);
export const assistantReferrers = loadAssistantReferrers(assistantReferrersJson);
const assistantNames = new Set(assistantReferrers.map((r) => r.name));
export const aiUtmSources = loadAiUtmSources(aiUtmSourcesJson, assistantNames);
export const robotsJsonExclusions = loadExclusions(robotsJsonExclusionsJson);
/** isbot's generic bot patterns (regular expression sources, matched case-insensitively). */
export const genericBotPatterns = loadPatterns(isbotPatternsJson);

for (const w of webviews) {
  if (!assistantNames.has(w.name)) throw new TableError("webviews.json", `token "${w.token}" names "${w.name}", which is no assistant`);
}

/** Display form of a referrer entry, as the dashboard lists it. */
export function assistantReferrerLabel(r: AssistantReferrer): string {
  if (r.match === "android-app") return `android-app://${r.host}`;
  return r.pathPrefix === undefined ? r.host : `${r.host}${r.pathPrefix}`;
}

/**
 * The normalised utm_source values that name an assistant: every plain assistant host (a `host-path` host
 * such as x.com is a social network in its own right, so it is not one), then the brand words.
 */
export const aiUtmValues: ReadonlyMap<string, string> = (() => {
  const values = new Map<string, string>();
  for (const r of assistantReferrers) if (r.match === "host") values.set(r.host, r.name);
  for (const u of aiUtmSources) {
    const existing = values.get(u.value);
    if (existing !== undefined && existing !== u.name) {
      throw new TableError("ai-utm-sources.json", `value "${u.value}" names ${u.name} but is already ${existing}`);
    }
    values.set(u.value, u.name);
  }
  return values;
})();

export const assistants: readonly Assistant[] = Object.freeze(
  [...assistantNames].map((name) => {
    const refs = assistantReferrers.filter((r) => r.name === name);
    return Object.freeze({
      name,
      operator: refs[0]!.operator,
      referrers: Object.freeze(refs.map(assistantReferrerLabel)),
      utmSources: Object.freeze([...aiUtmValues].filter(([, n]) => n === name).map(([value]) => value)),
    });
  }),
);
