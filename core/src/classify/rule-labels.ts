// Why a row was not counted as human, in words: the `rule` breakdown of the read API. A rollup value is
// the classifier's rule, with the matched name after a colon when the rule names one
// (`ai_crawler_token:GPTBot`); `ruleLabel` turns it into "user agent token GPTBot (ai.robots.txt)".
import type { ClassifyRule } from "../types.ts";
import { type UaToken, aiAgents, aiCrawlers, automationMarkers, dataSources, webviews } from "./tables.ts";

/** The rule recorded on a script row whose actor comes from its visit's entry row, not from the row itself. */
export const VISIT_RULES = {
  /** The visit entered from an assistant: the row is `human_via_ai` with the entry's assistant. */
  assistantReferral: "visit:assistant-referral",
  /** The row named an assistant of its own, but its visit entered otherwise: it keeps the entry's `human`. */
  entry: "visit:entry",
} as const;
export type VisitRule = (typeof VISIT_RULES)[keyof typeof VISIT_RULES];

// The short name of a data source: its repository's name (ai.robots.txt, isbot…), else its title.
const sourceName = (id: string): string => {
  const source = dataSources[id];
  if (!source) return id;
  return source.repository === "" ? source.title : source.repository.replace(/\/+$/, "").split("/").pop()!;
};

const tokenSources = (tokens: readonly UaToken[]): ReadonlyMap<string, string> => new Map(tokens.map((t) => [t.name, sourceName(t.source)]));
const crawlerSources = tokenSources(aiCrawlers);
const agentSources = tokenSources(aiAgents);
const markerSources = tokenSources(automationMarkers);
const webviewSources = tokenSources(webviews);

const withSource = (text: string, sources: ReadonlyMap<string, string>, name: string): string => {
  const source = sources.get(name);
  return source === undefined ? text : `${text} (${source})`;
};

/** One entry per rule: its label, given the name the rule matched (null when it names none). */
const LABELS: Readonly<Record<ClassifyRule | VisitRule, (name: string | null) => string>> = {
  empty_ua: () => "no user agent",
  ai_crawler_token: (name) => withSource(`user agent token ${name ?? "?"}`, crawlerSources, name ?? ""),
  ai_agent_token: (name) => withSource(`user agent token ${name ?? "?"}`, agentSources, name ?? ""),
  generic_bot: () => `generic bot pattern (${sourceName("isbot")})`,
  headless_marker: (name) => withSource(`headless browser marker ${name ?? "?"}`, markerSources, name ?? ""),
  headless_service: () => "headless browser of a named service that is not an AI",
  non_browser_ua: () => "user agent is not a browser",
  assistant_referrer: (name) => `referrer of ${name ?? "an assistant"}`,
  assistant_utm: (name) => `utm_source of ${name ?? "an assistant"}`,
  assistant_webview: (name) => withSource(`in-app browser of ${name ?? "an assistant"}`, webviewSources, name ?? ""),
  default: () => "browser, no AI or bot signal",
  "visit:assistant-referral": (name) => `visit entered from ${name ?? "an assistant"}`,
  "visit:entry": () => "visit entered without an assistant",
};

// Values are interned: the rollups look them up per bot row, and a string built per row would be hashed anew.
const values = new Map<string, Map<string | null, string>>();

/** The `rule` rollup value of a classification: `rule`, or `rule:name` when the rule matched a name. */
export function ruleValue(rule: string, name: string | null): string {
  let byName = values.get(rule);
  if (byName === undefined) values.set(rule, (byName = new Map()));
  let value = byName.get(name);
  if (value === undefined) byName.set(name, (value = name === null ? rule : `${rule}:${name}`));
  return value;
}

/** A readable description of a `rule` rollup value; an unknown rule is shown as it is. */
export function ruleLabel(value: string): string {
  // Visit rules hold a colon of their own (`visit:assistant-referral`): the name comes after the next one.
  const colon = value.indexOf(":", value.startsWith("visit:") ? "visit:".length : 0);
  const rule = colon === -1 ? value : value.slice(0, colon);
  const name = colon === -1 ? null : value.slice(colon + 1);
  const label = (LABELS as Record<string, ((name: string | null) => string) | undefined>)[rule];
  return label === undefined ? value : label(name);
}
