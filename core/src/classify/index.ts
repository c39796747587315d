// The actor classifier: one label per received row, following corpus/README.md ("Decision procedure").
//
// Steps 1–6 and the webview check depend on the User-Agent alone, so their verdict is memoised per UA string;
// the gateway sees a few thousand distinct UAs a day against millions of rows, and the uncached path (isbot's
// ~200 patterns on every browser UA) costs several microseconds. Results are shared frozen objects, so a
// warm call allocates nothing but the referrer host string.
import type { Classification, ClassifyInput, ClassifyRule } from "../types.ts";
import { assistantFromReferrer, assistantFromUtmSource } from "./assistant-signals.ts";
import { aiAgents, aiCrawlers, assistantReferrers, automationMarkers, genericBotPatterns, webviews } from "./tables.ts";
import { compileTokenMatcher } from "./token-matcher.ts";

export { assistantFromReferrer, assistantFromUtmSource } from "./assistant-signals.ts";
export { parseCorpusLine } from "./corpus-line.ts";
export type { CorpusLine, CorpusLineResult } from "./corpus-line.ts";
export {
  aiAgents,
  aiCrawlers,
  aiUtmSources,
  aiUtmValues,
  assistantReferrerLabel,
  assistantReferrers,
  assistants,
  automationMarkers,
  dataSources,
  genericBotPatterns,
  robotsJsonExclusions,
  webviews,
} from "./tables.ts";
export type {
  AiUtmSource,
  Assistant,
  AssistantReferrer,
  AssistantReferrerMatch,
  DataSource,
  RobotsJsonExclusion,
  UaToken,
} from "./tables.ts";

const crawlerTokens = compileTokenMatcher(aiCrawlers);
const agentTokens = compileTokenMatcher(aiAgents);
const markerTokens = compileTokenMatcher(automationMarkers);
const webviewTokens = compileTokenMatcher(webviews);
// isbot joins its list the same way (`list.join("|")`, flag i).
const genericBot = new RegExp(genericBotPatterns.join("|"), "i");
// Step 6: `Mozilla/4.0|5.0 (platform…)` with a layout engine, or an `Opera/…` UA.
const mozillaPrefix = /^Mozilla\/[45]\.0 ?\(/;
const layoutEngine = /AppleWebKit|Gecko|Trident|MSIE|Presto|KHTML/;
const operaPrefix = /^Opera\//;

const result = (actor: Classification["actor"], name: string | null, rule: ClassifyRule): Classification =>
  Object.freeze({ actor, name, rule });

const EMPTY_UA = result("bot", null, "empty_ua");
const GENERIC_BOT = result("bot", null, "generic_bot");
const NON_BROWSER = result("bot", null, "non_browser_ua");
const HUMAN = result("human", null, "default");

/** One frozen result per (actor, name, rule): the tables are small, so every named result is made once. */
function resultsByName(names: Iterable<string>, actor: Classification["actor"], rule: ClassifyRule): ReadonlyMap<string, Classification> {
  return new Map([...names].map((n) => [n, result(actor, n, rule)]));
}
const crawlerResults = resultsByName(aiCrawlers.map((t) => t.name), "ai_crawler", "ai_crawler_token");
const agentResults = resultsByName(aiAgents.map((t) => t.name), "ai_agent", "ai_agent_token");
const markerResults = resultsByName(automationMarkers.map((t) => t.name), "ai_agent", "headless_marker");
const webviewResults = resultsByName(webviews.map((t) => t.name), "human_via_ai", "assistant_webview");
const assistantNames = new Set(assistantReferrers.map((r) => r.name));
const referrerResults = resultsByName(assistantNames, "human_via_ai", "assistant_referrer");
const utmResults = resultsByName(assistantNames, "human_via_ai", "assistant_utm");

function isBrowserLike(ua: string): boolean {
  return (mozillaPrefix.test(ua) && layoutEngine.test(ua)) || operaPrefix.test(ua);
}

/**
 * Steps 1–6 of the decision procedure plus the webview token of step 7c: the classification a UA gets when
 * neither the referrer nor utm_source names an assistant. `default` and `assistant_webview` results mean a
 * browser UA, for which the referrer and utm_source are checked next.
 */
export function classifyUserAgent(rawUa: string): Classification {
  const ua = rawUa.trim();
  if (ua === "") return EMPTY_UA;
  const crawler = crawlerTokens.find(ua);
  if (crawler !== null) return crawlerResults.get(crawler.name)!;
  const agent = agentTokens.find(ua);
  if (agent !== null) return agentResults.get(agent.name)!;
  const marker = markerTokens.find(ua);
  // Step 4 ignores the markers themselves, so that only another bot identity beside them makes a bot.
  if (genericBot.test(marker === null ? ua : markerTokens.remove(ua))) return GENERIC_BOT;
  if (marker !== null) return markerResults.get(marker.name)!;
  if (!isBrowserLike(ua)) return NON_BROWSER;
  const webview = webviewTokens.find(ua);
  return webview === null ? HUMAN : webviewResults.get(webview.name)!;
}

// Two generations approximate an LRU without per-hit bookkeeping: hits in the old generation are promoted,
// and when the young one fills up the old one is dropped. 2 × 8,192 entries of typical ~150-char UAs is a few MB.
const GENERATION_SIZE = 8192;
// Longer UAs are almost always junk or attacks (real browsers stay under ~400 chars); not worth keeping.
const MAX_CACHED_UA_LENGTH = 512;
let young = new Map<string, Classification>();
let old = new Map<string, Classification>();

function cachedUserAgentVerdict(ua: string): Classification {
  let verdict = young.get(ua);
  if (verdict !== undefined) return verdict;
  verdict = old.get(ua) ?? classifyUserAgent(ua);
  if (ua.length <= MAX_CACHED_UA_LENGTH) {
    if (young.size >= GENERATION_SIZE) {
      old = young;
      young = new Map();
    }
    young.set(ua, verdict);
  }
  return verdict;
}

/**
 * Labels one row with exactly one actor, the canonical AI name for the three AI actors, and the rule that
 * decided. `js` is part of the input for the ledger but never changes the actor (corpus README).
 */
export function classify(input: ClassifyInput): Classification {
  // A non-string UA from an untyped caller is treated like a missing header (step 1), not a crash.
  const byUa = typeof input.ua === "string" ? cachedUserAgentVerdict(input.ua) : EMPTY_UA;
  if (byUa !== HUMAN && byUa.rule !== "assistant_webview") return byUa;
  const fromReferrer = assistantFromReferrer(input.referrer);
  if (fromReferrer !== null) return referrerResults.get(fromReferrer)!;
  const fromUtm = assistantFromUtmSource(input.utm_source);
  if (fromUtm !== null) return utmResults.get(fromUtm)!;
  return byUa;
}
