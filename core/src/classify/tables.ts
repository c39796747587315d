// The classifier's tables, loaded from core/data/*.json: the committed source of truth, each entry with its
// source (core/scripts/refresh-tables.ts only reports what upstream lists added or changed, for review).
// Every file is checked once at load; a malformed edit fails at startup with the file and entry named,
// never later as a silent misclassification.
import aiAgentsJson from "../../data/ai-agents.json" with { type: "json" };
import aiCrawlersJson from "../../data/ai-crawlers.json" with { type: "json" };
import assistantsJson from "../../data/assistants.json" with { type: "json" };
import automationMarkersJson from "../../data/automation-markers.json" with { type: "json" };
import browserShapesJson from "../../data/browser-shapes.json" with { type: "json" };
import isbotPatternsJson from "../../data/isbot-patterns.json" with { type: "json" };
import reviewedUpstreamJson from "../../data/reviewed-upstream.json" with { type: "json" };
import robotsJsonExclusionsJson from "../../data/robots-json-exclusions.json" with { type: "json" };
import sourcesJson from "../../data/sources.json" with { type: "json" };

/** A string found in User-Agent headers, the name it is shown under, who runs it, and where the entry comes from. */
export interface UaToken {
  readonly token: string;
  readonly name: string;
  readonly operator: string;
  /** A key of `dataSources`. */
  readonly source: string;
}

/** A referrer rule: the host (after lowercasing, port ignored, one `www.` stripped) and a path at or below `prefix`. */
export interface AssistantPath {
  readonly host: string;
  readonly prefix: string;
}

/**
 * A referrer rule on the query string: `param=value` on the host. The host `<brand>.*` stands for the brand's
 * country hosts (`google.com`, `google.de`, `google.co.uk`, `google.com.br`).
 */
export interface AssistantQuery {
  readonly host: string;
  readonly param: string;
  readonly value: string;
}

/**
 * One assistant (or AI answer mode of a search engine) with every signal that names it: web hosts (exact,
 * including legacy, regional and enterprise hosts that serve the assistant; docs, help, status and marketing
 * hosts are deliberately absent), path-qualified hosts, query rules, Android package ids (`android-app://`
 * referrers), in-app webview UA tokens and bare `utm_source` brand words. Host-form utm values and
 * `android-app://` referrers are derived from the same entry, so adding an assistant adds all its signals.
 */
export interface Assistant {
  readonly name: string;
  readonly operator: string;
  /** `assistant`, or `search-mode`: an AI answer mode of a search engine, recognised only by its path or query. */
  readonly kind: "assistant" | "search-mode";
  readonly hosts: readonly string[];
  readonly paths: readonly AssistantPath[];
  readonly queries: readonly AssistantQuery[];
  readonly androidApps: readonly string[];
  readonly webviewTokens: readonly string[];
  /** Bare brand words (`chatgpt`); the hosts count as utm values too (see `aiUtmValues`). */
  readonly utmSources: readonly string[];
  /** Keys of `dataSources` covering the entry's signals. */
  readonly sources: readonly string[];
  /** Display forms of every referrer signal: `chatgpt.com`, `x.com/i/grok`, `android-app://com.openai.chatgpt`. */
  readonly referrers: readonly string[];
}

/**
 * A real browser or in-app browser whose own UA text trips a generic bot pattern. `pattern` matches exactly
 * that text (`WebAppManager` of LG's webOS TV browser); the generic patterns are re-checked without it.
 */
export interface BrowserShape {
  readonly name: string;
  readonly kind: string;
  readonly pattern: string;
  readonly example: string;
  readonly why: string;
  readonly source: string;
}

/** An entry of another upstream list (crawler-user-agents, Device Detector) a person reviewed, and the decision. */
export interface ReviewedUpstream {
  readonly list: "crawler-user-agents" | "device-detector";
  /** The list's key: a crawler-user-agents `pattern`, a Device Detector `name`. */
  readonly entry: string;
  readonly reason: string;
  readonly effect: string;
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
  /** The operator's page, for sources that are not repositories. */
  readonly url: string;
  readonly license: string;
  /** `YYYY-MM-DD`: the upstream snapshot's commit date, or the day a page was read. */
  readonly date: string;
}

class TableError extends Error {
  constructor(file: string, detail: string) {
    super(`core/data/${file}: ${detail}`);
    this.name = "TableError";
  }
}

function record(file: string, value: unknown, index: number | string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TableError(file, `entry ${index} is not an object`);
  }
  return value as Record<string, unknown>;
}

function text(file: string, entry: Record<string, unknown>, key: string, index: number | string, allowEmpty = false): string {
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

/** An optional array field of an entry (absent = empty). */
function field(file: string, entry: Record<string, unknown>, key: string, index: number | string): readonly unknown[] {
  const value = entry[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new TableError(file, `entry ${index} "${key}" must be an array`);
  return value;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function loadSources(value: unknown): Readonly<Record<string, DataSource>> {
  const file = "sources.json";
  const out: Record<string, DataSource> = {};
  for (const [id, raw] of Object.entries(record(file, value, "root"))) {
    const entry = record(file, raw, id);
    const date = text(file, entry, "date", id);
    if (!ISO_DATE.test(date)) throw new TableError(file, `entry ${id} date "${date}" must be YYYY-MM-DD`);
    const source = Object.freeze({
      title: text(file, entry, "title", id),
      repository: text(file, entry, "repository", id, true),
      path: text(file, entry, "path", id, true),
      commit: text(file, entry, "commit", id, true),
      url: text(file, entry, "url", id, true),
      license: text(file, entry, "license", id),
      date,
    });
    if (source.repository === "" && source.url === "" && source.path === "") {
      throw new TableError(file, `entry ${id} needs a repository, a url or a path`);
    }
    out[id] = source;
  }
  return Object.freeze(out);
}

export const dataSources = loadSources(sourcesJson);

/**
 * The classifier data version: the date of the newest source the tables draw on, so a user can tell how fresh
 * the labels are (shown in the collection manifest and on /healthz).
 */
export const CLASSIFIER_DATA_VERSION: string = Object.values(dataSources)
  .map((s) => s.date)
  .reduce((a, b) => (a > b ? a : b));

function knownSource(file: string, source: unknown, index: number | string): string {
  if (typeof source !== "string" || !Object.hasOwn(dataSources, source)) {
    throw new TableError(file, `entry ${index} has unknown source ${JSON.stringify(source)}`);
  }
  return source;
}

// Tokens are literal text; a character outside printable ASCII would never match a header value as intended.
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

function uaTokenText(file: string, token: unknown, index: number | string): string {
  if (typeof token !== "string" || !PRINTABLE_ASCII.test(token) || token !== token.trim()) {
    throw new TableError(file, `entry ${index} token ${JSON.stringify(token)} must be printable ASCII without outer spaces`);
  }
  return token;
}

function loadUaTokens(file: string, value: unknown): readonly UaToken[] {
  const seen = new Set<string>();
  return Object.freeze(
    list(file, value).map((raw, i) => {
      const entry = record(file, raw, i);
      const token = uaTokenText(file, entry.token, i);
      const key = token.toLowerCase();
      if (seen.has(key)) throw new TableError(file, `token "${token}" is listed twice (tokens match case-insensitively)`);
      seen.add(key);
      return Object.freeze({
        token,
        name: text(file, entry, "name", i),
        operator: text(file, entry, "operator", i),
        source: knownSource(file, entry.source, i),
      });
    }),
  );
}

const HOST = /^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/;
// `<brand>.*`: the brand's country hosts, for query rules on search engines.
const BRAND_HOST = /^[a-z0-9-]+\.\*$/;
const PACKAGE_ID = /^[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+$/;

function hostText(file: string, value: unknown, where: string, allowBrand = false): string {
  const host = typeof value === "string" ? value : "";
  if (host.startsWith("www.") || !(HOST.test(host) || (allowBrand && BRAND_HOST.test(host)))) {
    throw new TableError(file, `${where}: host ${JSON.stringify(value)} must be a lowercase host name without "www."`);
  }
  return host;
}

function loadAssistants(value: unknown): readonly Assistant[] {
  const file = "assistants.json";
  const names = new Set<string>();
  // One owner per signal: a host, path, package id, token or utm value naming two assistants is a data error.
  const owners = new Map<string, string>();
  const claim = (signal: string, name: string): void => {
    const owner = owners.get(signal);
    if (owner !== undefined) throw new TableError(file, `${signal} is listed for both ${owner} and ${name}`);
    owners.set(signal, name);
  };
  return Object.freeze(
    list(file, value).map((raw, i) => {
      const entry = record(file, raw, i);
      const name = text(file, entry, "name", i);
      if (names.has(name)) throw new TableError(file, `assistant "${name}" is listed twice`);
      names.add(name);
      const where = `entry ${i} (${name})`;
      const kind = entry.kind ?? "assistant";
      if (kind !== "assistant" && kind !== "search-mode") throw new TableError(file, `${where}: kind must be assistant or search-mode`);
      const hosts = field(file, entry, "hosts", where).map((h) => hostText(file, h, where));
      const paths = field(file, entry, "paths", where).map((raw) => {
        const p = record(file, raw, where);
        const prefix = text(file, p, "prefix", where);
        if (!prefix.startsWith("/") || prefix.endsWith("/") || prefix !== prefix.toLowerCase()) {
          throw new TableError(file, `${where}: path prefix "${prefix}" must be lowercase, start with "/" and not end with one`);
        }
        return Object.freeze({ host: hostText(file, p.host, where), prefix });
      });
      const queries = field(file, entry, "queries", where).map((raw) => {
        const q = record(file, raw, where);
        return Object.freeze({ host: hostText(file, q.host, where, true), param: text(file, q, "param", where), value: text(file, q, "value", where) });
      });
      const androidApps = field(file, entry, "androidApps", where).map((a) => {
        if (typeof a !== "string" || !PACKAGE_ID.test(a)) throw new TableError(file, `${where}: ${JSON.stringify(a)} is not an Android package id`);
        return a;
      });
      const webviewTokens = field(file, entry, "webviewTokens", where).map((t) => uaTokenText(file, t, where));
      const utmSources = field(file, entry, "utmSources", where).map((u) => {
        if (typeof u !== "string" || u === "" || u !== u.trim().toLowerCase() || u.startsWith("www.")) {
          throw new TableError(file, `${where}: utm value ${JSON.stringify(u)} must be normalised (trimmed, lowercase, no "www.")`);
        }
        return u;
      });
      const sources = list(file, entry.sources).map((s) => knownSource(file, s, where));
      if (kind === "search-mode" && hosts.length > 0) {
        // A plain search referrer stays human: a search mode is recognised only by its path or query.
        throw new TableError(file, `${where}: a search-mode entry has only paths and queries, no plain hosts`);
      }
      if (hosts.length + paths.length + queries.length + androidApps.length + webviewTokens.length === 0) {
        throw new TableError(file, `${where}: no signal names this assistant`);
      }
      for (const h of hosts) claim(`host ${h}`, name);
      for (const p of paths) claim(`path ${p.host}${p.prefix}`, name);
      for (const q of queries) claim(`query ${q.host}?${q.param}=${q.value}`, name);
      for (const a of androidApps) claim(`android-app ${a}`, name);
      for (const t of webviewTokens) claim(`webview ${t.toLowerCase()}`, name);
      for (const u of utmSources) claim(`utm ${u}`, name);
      const referrers = [
        ...hosts,
        ...paths.map((p) => `${p.host}${p.prefix}`),
        ...queries.map((q) => `${q.host}/?${q.param}=${q.value}`),
        ...androidApps.map((a) => `android-app://${a}`),
      ];
      return Object.freeze({
        name,
        operator: text(file, entry, "operator", i),
        kind,
        hosts: Object.freeze(hosts),
        paths: Object.freeze(paths),
        queries: Object.freeze(queries),
        androidApps: Object.freeze(androidApps),
        webviewTokens: Object.freeze(webviewTokens),
        utmSources: Object.freeze(utmSources),
        sources: Object.freeze(sources),
        referrers: Object.freeze(referrers),
      });
    }),
  );
}

function loadBrowserShapes(value: unknown): readonly BrowserShape[] {
  const file = "browser-shapes.json";
  return Object.freeze(
    list(file, value).map((raw, i) => {
      const entry = record(file, raw, i);
      const pattern = text(file, entry, "pattern", i);
      try {
        new RegExp(pattern, "i");
      } catch (error) {
        throw new TableError(file, `entry ${i} is not a valid regular expression: ${(error as Error).message}`);
      }
      return Object.freeze({
        name: text(file, entry, "name", i),
        kind: text(file, entry, "kind", i),
        pattern,
        example: text(file, entry, "example", i),
        why: text(file, entry, "why", i),
        source: knownSource(file, entry.source, i),
      });
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

function loadReviewed(value: unknown): readonly ReviewedUpstream[] {
  const file = "reviewed-upstream.json";
  return Object.freeze(
    list(file, value).map((raw, i) => {
      const entry = record(file, raw, i);
      const from = text(file, entry, "list", i);
      if (from !== "crawler-user-agents" && from !== "device-detector") {
        throw new TableError(file, `entry ${i} list must be crawler-user-agents or device-detector`);
      }
      return Object.freeze({ list: from, entry: text(file, entry, "entry", i), reason: text(file, entry, "reason", i), effect: text(file, entry, "effect", i) });
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

/** AI training and AI-search crawlers (→ `ai_crawler`). */
export const aiCrawlers = loadUaTokens("ai-crawlers.json", aiCrawlersJson);
/** User-triggered AI fetchers, agentic browsers and coding agents (→ `ai_agent`). */
export const aiAgents = loadUaTokens("ai-agents.json", aiAgentsJson);
/** Headless / browser-automation markers (→ `ai_agent`, unless another identity stands beside them). */
export const automationMarkers = loadUaTokens("automation-markers.json", automationMarkersJson);
/** Every assistant and AI search mode with all its signals. */
export const assistants = loadAssistants(assistantsJson);
/** Real browser shapes whose own text trips a generic bot pattern. */
export const browserShapes = loadBrowserShapes(browserShapesJson);
export const robotsJsonExclusions = loadExclusions(robotsJsonExclusionsJson);
export const reviewedUpstream = loadReviewed(reviewedUpstreamJson);
/** isbot's generic bot patterns (regular expression sources, matched case-insensitively). */
export const genericBotPatterns = loadPatterns(isbotPatternsJson);

{
  const seen = new Map<string, string>();
  for (const [file, table] of [
    ["ai-crawlers.json", aiCrawlers],
    ["ai-agents.json", aiAgents],
    ["automation-markers.json", automationMarkers],
  ] as const) {
    for (const t of table) {
      const other = seen.get(t.token.toLowerCase());
      if (other !== undefined) throw new TableError(file, `token "${t.token}" is also in ${other}`);
      seen.set(t.token.toLowerCase(), file);
    }
  }
}

/** In-app webview tokens of assistant apps (→ `human_via_ai` on a browser UA), derived from `assistants`. */
export const webviews: readonly UaToken[] = Object.freeze(
  assistants.flatMap((a) => a.webviewTokens.map((token) => Object.freeze({ token, name: a.name, operator: a.operator, source: a.sources[0]! }))),
);

/**
 * The normalised utm_source values that name an assistant: every plain assistant host (a path-qualified host
 * such as x.com is a social network in its own right, so it is not one), then the brand words.
 */
export const aiUtmValues: ReadonlyMap<string, string> = (() => {
  const values = new Map<string, string>();
  for (const a of assistants) for (const h of a.hosts) values.set(h, a.name);
  for (const a of assistants) {
    for (const u of a.utmSources) {
      const existing = values.get(u);
      if (existing !== undefined && existing !== a.name) {
        throw new TableError("assistants.json", `utm value "${u}" names ${a.name} but is already a host of ${existing}`);
      }
      values.set(u, a.name);
    }
  }
  return values;
})();
