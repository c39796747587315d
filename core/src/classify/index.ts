// The actor classifier: one label per received row (decision procedure in core/README.md "Actor classifier").
//
// Steps 1–6 and the webview check depend on the User-Agent alone, so their verdict is memoised per UA string;
// the gateway sees a few thousand distinct UAs a day against millions of rows, and the uncached path (isbot's
// ~200 patterns on every browser UA) costs several microseconds. Results are shared frozen objects, so a
// warm call allocates nothing but the referrer host string.
import type { Classification, ClassifyInput, ClassifyRule } from "../types.ts";
import { assistantFromReferrer, assistantFromUtmSource } from "./assistant-signals.ts";
import { aiAgents, aiCrawlers, assistants, automationMarkers, browserShapes, genericBotPatterns, webviews } from "./tables.ts";
import { compileTokenMatcher, productPart } from "./token-matcher.ts";
import { Generations } from "../generations.ts";

export { assistantFromReferrer, assistantFromUtmSource } from "./assistant-signals.ts";
export { parseCorpusLine } from "./corpus-line.ts";
export type { CorpusLine, CorpusLineResult } from "./corpus-line.ts";
export { productPart } from "./token-matcher.ts";
export {
  aiAgents,
  aiCrawlers,
  aiUtmValues,
  assistants,
  automationMarkers,
  browserShapes,
  CLASSIFIER_DATA_VERSION,
  dataSources,
  genericBotPatterns,
  reviewedUpstream,
  robotsJsonExclusions,
  webviews,
} from "./tables.ts";
export type {
  Assistant,
  AssistantPath,
  AssistantQuery,
  BrowserShape,
  DataSource,
  ReviewedUpstream,
  RobotsJsonExclusion,
  UaToken,
} from "./tables.ts";

type TokenKind = "crawler" | "agent" | "marker" | "webview";
const tokens = compileTokenMatcher<TokenKind>([
  { kind: "crawler", entries: aiCrawlers },
  { kind: "agent", entries: aiAgents },
  { kind: "marker", entries: automationMarkers },
  { kind: "webview", entries: webviews },
]);
// isbot joins its list the same way (`list.join("|")`, flag i).
const genericBot = new RegExp(genericBotPatterns.join("|"), "i");
// The text of every known browser shape that trips a generic pattern (`WebAppManager`, `Process/tools`).
const browserShapeText = new RegExp(browserShapes.map((s) => `(?:${s.pattern})`).join("|"), "gi");
// Step 6: `Mozilla/4.0|5.0 (platform…)` with a layout engine, or an `Opera/…` UA.
const mozillaPrefix = /^Mozilla\/[45]\.0 ?\(/;
const layoutEngine = /AppleWebKit|Gecko|Trident|MSIE|Presto|KHTML/;
const operaPrefix = /^Opera\//;

const result = (actor: Classification["actor"], name: string | null, rule: ClassifyRule): Classification =>
  Object.freeze({ actor, name, rule });

const EMPTY_UA = result("bot", null, "empty_ua");
const GENERIC_BOT = result("bot", null, "generic_bot");
const HEADLESS_SERVICE = result("bot", null, "headless_service");
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
const assistantNames = assistants.map((a) => a.name);
const referrerResults = resultsByName(assistantNames, "human_via_ai", "assistant_referrer");
const utmResults = resultsByName(assistantNames, "human_via_ai", "assistant_utm");

function hasBrowserShape(ua: string): boolean {
  browserShapeText.lastIndex = 0;
  return browserShapeText.test(ua);
}

/** Step 6: a browser's UA shape, or a known real browser whose UA does not have that shape (data/browser-shapes.json). */
function isBrowserLike(ua: string): boolean {
  return (mozillaPrefix.test(ua) && layoutEngine.test(ua)) || operaPrefix.test(ua) || hasBrowserShape(ua);
}

/**
 * Step 4: a generic bot pattern decides, except against a known browser shape whose own text is what the
 * pattern matched: then the patterns are re-checked without that text, so a WeChat in-app browser
 * (`Process/tools`) stays a person while `… Process/tools … wechatdevtools` is still a bot, and an SQL
 * injection appended to a TV's UA is still caught.
 */
function isGenericBot(ua: string): boolean {
  if (!genericBot.test(ua)) return false;
  return !hasBrowserShape(ua) || genericBot.test(ua.replace(browserShapeText, " "));
}

// The products of an ordinary browser UA: anything else beside an automation marker names a service.
const BROWSER_PRODUCT =
  /^(?:mozilla|applewebkit|chrome|chromium|safari|version|mobile|firefox|gecko|edg|edge|opr|electron|like|khtml|ubuntu|fedora|debian|raspbian|linux|x11)$/i;
const COMMENT = /\([^)]*\)/g;
const COMPATIBLE_NAME = /compatible;\s*([^;)]+)/gi;

/**
 * The first product beside the automation markers that is not part of an ordinary browser UA: the name of the
 * service running the headless browser (`… HeadlessChrome/120 … SiteAuditor/2.1`), or null.
 */
function namedService(ua: string): string | null {
  const products = tokens.remove(productPart(ua), "marker");
  const names = [...products.replace(COMMENT, " ").split(/[\s;,]+/), ...[...products.matchAll(COMPATIBLE_NAME)].map((m) => m[1]!)];
  for (const word of names) {
    const name = word.split("/")[0]!.replace(/[^A-Za-z0-9._-]/g, "");
    if (/[A-Za-z]{2}/.test(name) && !BROWSER_PRODUCT.test(name)) return name;
  }
  return null;
}

/**
 * Steps 1–6 of the decision procedure plus the webview token of step 7c: the classification a UA gets when
 * neither the referrer nor utm_source names an assistant. `default` and `assistant_webview` results mean a
 * browser UA, for which the referrer and utm_source are checked next.
 */
export function classifyUserAgent(rawUa: string): Classification {
  const ua = rawUa.trim();
  if (ua === "") return EMPTY_UA;
  const hits = tokens.findAll(productPart(ua));
  const crawler = hits.find((h) => h.kind === "crawler");
  if (crawler !== undefined) return crawlerResults.get(crawler.entry.name)!;
  const agent = hits.find((h) => h.kind === "agent");
  if (agent !== undefined) return agentResults.get(agent.entry.name)!;
  const marker = hits.find((h) => h.kind === "marker");
  // Step 4 ignores the markers themselves, so that only another bot identity beside them makes a bot.
  if (isGenericBot(marker === undefined ? ua : tokens.remove(ua, "marker"))) return GENERIC_BOT;
  if (marker !== undefined) {
    // A headless browser run by a named service that is not an AI (a monitoring or accessibility checker).
    return namedService(ua) === null ? markerResults.get(marker.entry.name)! : HEADLESS_SERVICE;
  }
  if (!isBrowserLike(ua)) return NON_BROWSER;
  const webview = hits.find((h) => h.kind === "webview");
  return webview === undefined ? HUMAN : webviewResults.get(webview.entry.name)!;
}

// Two generations (generations.ts): 2 × 8,192 entries of typical ~150-char UAs is a few MB.
const GENERATION_SIZE = 8192;
// Longer UAs are almost always junk or attacks (real browsers stay under ~400 chars); not worth keeping.
const MAX_CACHED_UA_LENGTH = 512;
const verdicts = new Generations<Classification>(GENERATION_SIZE);

function cachedUserAgentVerdict(ua: string): Classification {
  return verdicts.get(ua, classifyUserAgent, ua.length <= MAX_CACHED_UA_LENGTH);
}

/**
 * Labels one row with exactly one actor, the canonical AI name for the three AI actors, and the rule that
 * decided. `js` is part of the input for the ledger but never changes the actor.
 */
export function classify(input: ClassifyInput): Classification {
  // A non-string UA from an untyped caller is treated like a missing header (step 1), not a crash.
  const byUa = typeof input.ua === "string" ? cachedUserAgentVerdict(input.ua) : EMPTY_UA;
  if (byUa !== HUMAN && byUa.rule !== "assistant_webview") return byUa;
  return assistantOr(byUa, input.referrer, input.utm_source);
}

/** Steps 7a/7b: the assistant a browser row's referrer or utm_source names, else the UA's own verdict. */
function assistantOr(byUa: Classification, referrer: string | null, utmSource: string | null): Classification {
  const fromReferrer = assistantFromReferrer(referrer);
  if (fromReferrer !== null) return referrerResults.get(fromReferrer)!;
  const fromUtm = assistantFromUtmSource(utmSource);
  if (fromUtm !== null) return utmResults.get(fromUtm)!;
  return byUa;
}

/**
 * A browser row whose user agent is not known (history imported from another tool): a person (`default`),
 * or `human_via_ai` when its referrer or utm_source names an assistant — steps 7a/7b of `classify`.
 */
export function classifyWithoutUserAgent(referrer: string | null, utmSource: string | null): Classification {
  return assistantOr(HUMAN, referrer, utmSource);
}
