// A deliberately small matcher: the gateway does the real classification. It only has to answer "would the
// browser script already count this visitor?", so that `humans: false` does not count a person twice.
// Erring towards "not a plain browser" costs one extra hit; erring the other way loses a crawler, so the
// exclusion list is broad.

/** The corpus rule for a browser-like UA: `Mozilla/4.0|5.0 (platform…)` plus an engine token, or `Opera/…`. */
const BROWSER_LIKE = /^(?:Mozilla\/[45]\.0 \(.*(?:AppleWebKit|Gecko|Trident|MSIE|Presto|KHTML)|Opera\/)/;

/**
 * Anything automated: generic bot words, automation markers, a URL (browsers never carry one), and the AI
 * crawler/agent tokens from ai.robots.txt that contain none of the generic words (ChatGPT-User, Claude-User,
 * meta-externalagent, anthropic-ai, cohere-ai, Perplexity-User, NotebookLM, Cursor, Devin, NovaAct …), Electron
 * shells (coding agents such as Trae run in one), and quotes or brackets, which only injection payloads carry.
 */
const AUTOMATED =
  /bot|crawl|spider|slurp|scrap|fetch|preview|headless|phantomjs|puppeteer|playwright|selenium|lightpanda|https?:\/\/|-user\b|agent|anthropic|claude|chatgpt|openai|perplexity|cohere|notebooklm|gemini-|cursor\/|devin|novaact|google-|meta-external|meta-webindexer|amazon-|amzn-|facebookexternalhit|img2dataset|laion|omgili|newsai|trae\/|electron\/|inspector|lighthouse|pagespeed|prerender|["'`<>{}\\]/i;

/** True for the user agent of an ordinary browser, which runs the tracker script and is counted there. */
export function isPlainBrowser(userAgent: string | null | undefined): boolean {
  if (!userAgent) return false;
  return BROWSER_LIKE.test(userAgent) && !AUTOMATED.test(userAgent);
}
