import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { assistantFromReferrer, assistantFromUtmSource, classify, classifyUserAgent, parseCorpusLine } from "../src/classify/index.ts";
import type { Actor, ClassifyRule } from "../src/types.ts";

const fixture = (name: string): string => new URL(`./fixtures/${name}`, import.meta.url).pathname;

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const GEMINI_IOS =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 26_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 GoogleWv/1.0 (WKWebView) GeminiiOS/1.2026.2270600";
const HEADLESS = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36";
const GPTBOT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";
const CHATGPT_USER = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

interface Case {
  readonly why: string;
  readonly ua: string;
  readonly referrer?: string | null;
  readonly utm_source?: string | null;
  readonly js?: boolean;
  readonly actor: Actor;
  readonly name?: string | null;
  readonly rule: ClassifyRule;
}

function check(c: Case): void {
  const got = classify({ ua: c.ua, referrer: c.referrer ?? null, utm_source: c.utm_source ?? null, js: c.js ?? true });
  expect({ actor: got.actor, name: got.name, rule: got.rule }).toEqual({ actor: c.actor, name: c.name ?? null, rule: c.rule });
}

describe("dev corpus (corpus/README.md, 610 labelled lines)", () => {
  const lines = readFileSync(fixture("actors.jsonl"), "utf8").trimEnd().split("\n");

  it("holds the 610 lines the corpus README describes", () => {
    expect(lines).toHaveLength(610);
  });

  it.each(lines.map((text, i) => [i + 1, text] as const))("line %i", (_lineNo, text) => {
    const parsed = parseCorpusLine(text);
    if (!parsed.ok) throw new Error(parsed.error);
    const got = classify(parsed.line.input);
    expect({ actor: got.actor, name: got.name }).toEqual({ actor: parsed.line.expected, name: parsed.line.name });
  });

  // CI checks out ../shared beside the repository; the copy in fixtures/ must not drift from it.
  const shared = new URL("../../../shared/corpus/actors.jsonl", import.meta.url).pathname;
  it.runIf(existsSync(shared))("fixture copy equals ../shared/corpus/actors.jsonl", () => {
    expect(readFileSync(fixture("actors.jsonl"), "utf8")).toBe(readFileSync(shared, "utf8"));
  });
});

describe("precedence (decision procedure steps 1–8)", () => {
  it.each<Case>([
    // 1. empty UA
    { why: "empty UA", ua: "", actor: "bot", rule: "empty_ua" },
    { why: "whitespace-only UA", ua: " \t ", actor: "bot", rule: "empty_ua" },
    { why: "empty UA beats an AI referrer and js", ua: "", referrer: "https://chatgpt.com/", utm_source: "chatgpt.com", js: true, actor: "bot", rule: "empty_ua" },
    // 2. AI crawler token
    { why: "crawler token", ua: GPTBOT, actor: "ai_crawler", name: "GPTBot", rule: "ai_crawler_token" },
    { why: "crawler beats an AI referrer, utm and js", ua: GPTBOT, referrer: "https://chatgpt.com/", utm_source: "chatgpt.com", js: true, actor: "ai_crawler", name: "GPTBot", rule: "ai_crawler_token" },
    { why: "crawler beats an agent token later in the UA", ua: "ClaudeBot/1.0 Claude-User/1.0", actor: "ai_crawler", name: "ClaudeBot", rule: "ai_crawler_token" },
    { why: "crawler beats an agent token earlier in the UA (class precedence, not position)", ua: "Claude-User/1.0 ClaudeBot/1.0", actor: "ai_crawler", name: "ClaudeBot", rule: "ai_crawler_token" },
    { why: "crawler inside a browser-looking wrapper", ua: `${CHROME} (compatible; Bytespider; spider-feedback@bytedance.com)`, actor: "ai_crawler", name: "Bytespider", rule: "ai_crawler_token" },
    { why: "crawler beats a headless marker", ua: `${HEADLESS} PerplexityBot/1.0`, actor: "ai_crawler", name: "PerplexityBot", rule: "ai_crawler_token" },
    // 3. AI agent token
    { why: "agent token", ua: CHATGPT_USER, actor: "ai_agent", name: "ChatGPT-User", rule: "ai_agent_token" },
    { why: "agent beats an AI referrer and utm", ua: CHATGPT_USER, referrer: "https://chatgpt.com/", utm_source: "chatgpt.com", actor: "ai_agent", name: "ChatGPT-User", rule: "ai_agent_token" },
    { why: "agent beats the generic bot patterns (isbot flags Claude-Code)", ua: "claude-code/1.0.44", actor: "ai_agent", name: "Claude-Code", rule: "ai_agent_token" },
    { why: "agent Electron app that isbot calls a browser", ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Trae/1.107.1 Chrome/142.0.7444.235 Electron/39.2.7 Safari/537.36", actor: "ai_agent", name: "Trae", rule: "ai_agent_token" },
    // 4. generic bot
    { why: "search engine", ua: GOOGLEBOT, actor: "bot", rule: "generic_bot" },
    { why: "search engine running the script stays a bot", ua: GOOGLEBOT, js: true, referrer: "https://chatgpt.com/", actor: "bot", rule: "generic_bot" },
    { why: "HTTP library", ua: "python-requests/2.31.0", actor: "bot", rule: "generic_bot" },
    { why: "headless marker next to another bot identity", ua: `${HEADLESS} Prerender (+https://github.com/prerender/prerender)`, actor: "bot", rule: "generic_bot" },
    { why: "bot identity before the marker", ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; AccessibleWebBot/1.0; +https://accessibleweb.com/bot/) HeadlessChrome/W.X.Y.Z Safari/537.36", actor: "bot", rule: "generic_bot" },
    { why: "Chrome-Lighthouse carries no marker", ua: "Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36 Chrome-Lighthouse", actor: "bot", rule: "generic_bot" },
    { why: "Exabot is Exalead's search crawler, not ExaBot", ua: "Mozilla/5.0 (compatible; Exabot/3.0; +http://www.exabot.com/go/robot)", actor: "bot", rule: "generic_bot" },
    { why: "bare Mozilla/5.0 (isbot flags it before step 6)", ua: "Mozilla/5.0", referrer: "https://chatgpt.com/", actor: "bot", rule: "generic_bot" },
    { why: "facebookexternalhit is a link previewer", ua: "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", actor: "bot", rule: "generic_bot" },
    { why: "GoogleOther is not declared AI", ua: "Mozilla/5.0 (compatible; GoogleOther)", actor: "bot", rule: "generic_bot" },
    { why: "plain SemrushBot is SEO", ua: "Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)", actor: "bot", rule: "generic_bot" },
    { why: "SQL injection appended to a browser UA", ua: `${CHROME}' AND 1=1--|`, actor: "bot", rule: "generic_bot" },
    // 5. headless / automation marker
    { why: "HeadlessChrome", ua: HEADLESS, actor: "ai_agent", name: "HeadlessChrome", rule: "headless_marker" },
    { why: "marker beats an AI referrer", ua: HEADLESS, referrer: "https://chatgpt.com/", actor: "ai_agent", name: "HeadlessChrome", rule: "headless_marker" },
    { why: "first marker names it", ua: `${HEADLESS} Puppeteer`, actor: "ai_agent", name: "HeadlessChrome", rule: "headless_marker" },
    { why: "Playwright", ua: `${CHROME} Playwright/1.40.0`, actor: "ai_agent", name: "Playwright", rule: "headless_marker" },
    { why: "Selenium", ua: `${CHROME}; Selenium`, actor: "ai_agent", name: "Selenium", rule: "headless_marker" },
    { why: "PhantomJS", ua: "Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/538.1", actor: "ai_agent", name: "PhantomJS", rule: "headless_marker" },
    { why: "Lightpanda", ua: "Lightpanda/1.0", actor: "ai_agent", name: "Lightpanda", rule: "headless_marker" },
    { why: "marker matched case-insensitively, canonical spelling returned", ua: `${CHROME} puppeteer`, actor: "ai_agent", name: "Puppeteer", rule: "headless_marker" },
    // 6. not browser-like
    { why: "Mozilla/5.0 (compatible) is caught by the generic patterns first", ua: "Mozilla/5.0 (compatible)", actor: "bot", rule: "generic_bot" },
    { why: "platform but no layout engine", ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/120.0 Safari/537.36", actor: "bot", rule: "non_browser_ua" },
    { why: "native app client", ua: "Snapchat/10.29 (iPhone; iOS 17.1; Scale/3.00)", actor: "bot", rule: "generic_bot" },
    { why: "native app client without a bot word", ua: "Viber/12.8.0.1 CFNetwork/1121.2.2 Darwin/19.3.0", referrer: "https://chatgpt.com/", actor: "bot", rule: "non_browser_ua" },
    { why: "Mozilla/6.0 is not a browser prefix", ua: "Mozilla/6.0 (Macintosh; U; Amiga-AWeb) Safari 3.1", actor: "bot", rule: "non_browser_ua" },
    { why: "engine without the Mozilla prefix", ua: "AmigaOS 4.0 AppleWebKit/537.36 (KHTML, like Gecko) Chrome/94 Tablet Safari/537.36)", actor: "bot", rule: "non_browser_ua" },
    { why: "Lynx text browser", ua: "Lynx/2.8.9rel.1 libwww-FM/2.14 SSL-MM/1.4.1 GNUTLS/3.6.5", actor: "bot", rule: "non_browser_ua" },
    // browser-like UAs of every listed engine are humans
    { why: "Gecko", ua: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", actor: "human", rule: "default" },
    { why: "Trident / MSIE on Mozilla/4.0", ua: "Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 5.1; Trident/4.0)", actor: "human", rule: "default" },
    { why: "Opera/ with Presto", ua: "Opera/9.80 (Android; Opera Mini/12.0.1987/37.7327; U; pl) Presto/2.12.423 Version/12.16", actor: "human", rule: "default" },
    // 7. browser from an assistant
    { why: "a. assistant referrer", ua: CHROME, referrer: "https://chatgpt.com/", actor: "human_via_ai", name: "ChatGPT", rule: "assistant_referrer" },
    { why: "a. referrer on the server path (js=false)", ua: CHROME, referrer: "https://claude.ai/chat/1", js: false, actor: "human_via_ai", name: "Claude", rule: "assistant_referrer" },
    { why: "a. referrer decides the name over a different assistant's utm", ua: CHROME, referrer: "https://www.perplexity.ai/search", utm_source: "chatgpt.com", actor: "human_via_ai", name: "Perplexity", rule: "assistant_referrer" },
    { why: "a. AI referrer with a non-AI utm", ua: CHROME, referrer: "https://gemini.google.com/app", utm_source: "newsletter", actor: "human_via_ai", name: "Gemini", rule: "assistant_referrer" },
    { why: "b. non-AI referrer with an AI utm", ua: CHROME, referrer: "https://www.google.com/", utm_source: "chatgpt.com", actor: "human_via_ai", name: "ChatGPT", rule: "assistant_utm" },
    { why: "b. utm alone", ua: IPHONE, utm_source: "perplexity", actor: "human_via_ai", name: "Perplexity", rule: "assistant_utm" },
    { why: "c. Gemini iOS webview without referrer", ua: GEMINI_IOS, actor: "human_via_ai", name: "Gemini", rule: "assistant_webview" },
    { why: "c. webview loses to a referrer naming another assistant", ua: GEMINI_IOS, referrer: "https://chatgpt.com/", actor: "human_via_ai", name: "ChatGPT", rule: "assistant_referrer" },
    { why: "c. webview loses to an AI utm", ua: GEMINI_IOS, utm_source: "claude.ai", actor: "human_via_ai", name: "Claude", rule: "assistant_utm" },
    { why: "c. webview with a non-AI referrer", ua: GEMINI_IOS, referrer: "https://www.google.com/", actor: "human_via_ai", name: "Gemini", rule: "assistant_webview" },
    // 8. default
    { why: "browser, no signals", ua: CHROME, actor: "human", rule: "default" },
    { why: "browser on the server path", ua: CHROME, js: false, actor: "human", rule: "default" },
    { why: "browser with a search referrer", ua: IPHONE, referrer: "https://www.google.com/search?q=gemini", actor: "human", rule: "default" },
    { why: "TikTok webview: Bytedance is not Bytespider", ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 BytedanceWebview/d8a21c6 trill_34.9.0 JsSdk/2.0", actor: "human", rule: "default" },
    { why: "UA with surrounding spaces is trimmed first", ua: `  ${CHROME}  `, referrer: "https://chatgpt.com/", actor: "human_via_ai", name: "ChatGPT", rule: "assistant_referrer" },
  ])("$why", check);
});

describe("token matching at ASCII-alphanumeric boundaries", () => {
  it.each<Case>([
    { why: "ShowyouBot is not YouBot", ua: "ShowyouBot (http://showyou.com/crawler)", actor: "bot", rule: "generic_bot" },
    { why: "YouBot on its own", ua: "Mozilla/5.0 (compatible; YouBot/1.0; +https://about.you.com/youbot/)", actor: "ai_crawler", name: "YouBot", rule: "ai_crawler_token" },
    { why: "BaiduImagespider is not imageSpider", ua: "BaiduImagespider ( http://help.baidu.jp/system/05.html)", actor: "bot", rule: "generic_bot" },
    { why: "imageSpider on its own", ua: "imageSpider/1.0", actor: "ai_crawler", name: "imageSpider", rule: "ai_crawler_token" },
    { why: "SLCC2 in old IE is not LCC", ua: "Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1; WOW64; Trident/5.0; SLCC2; Media Center PC 6.0)", actor: "human", rule: "default" },
    { why: "LCC on its own", ua: "LCC (+http://corpora.informatik.uni-leipzig.de/crawler_faq.html)", actor: "ai_crawler", name: "LCC", rule: "ai_crawler_token" },
    { why: "Alexabot is not an AI token", ua: "Mozilla/5.0 (compatible; Alexabot/1.0; +http://www.alexa.com/help/certifyscan; certifyscan@alexa.com)", actor: "bot", rule: "generic_bot" },
    { why: "token followed by a digit does not match", ua: "Mozilla/5.0 (compatible; GPTBot2/1.0)", actor: "bot", rule: "generic_bot" },
    { why: "token preceded by a letter does not match", ua: "Mozilla/5.0 (compatible; XCCBot/1.0)", actor: "bot", rule: "generic_bot" },
    { why: "underscore is a boundary", ua: "Mozilla/5.0 (compatible; x_CCBot_y)", actor: "ai_crawler", name: "CCBot", rule: "ai_crawler_token" },
    { why: "case-insensitive match, canonical name returned", ua: "Mozilla/5.0 (compatible; gptbot/1.1)", actor: "ai_crawler", name: "GPTBot", rule: "ai_crawler_token" },
    // Issue 15: tokens count only in the product part; a URL or e-mail address in a comment names a site or a contact.
    { why: "token inside a URL is not the client", ua: "Mozilla/5.0 (compatible; +https://panscient.com/bot)", actor: "bot", rule: "generic_bot" },
    { why: "token inside an e-mail address is not the client", ua: "Mozilla/5.0 (compatible; crawler; contact claudebot@anthropic.com)", actor: "bot", rule: "generic_bot" },
    { why: "a bare host-form token outside a URL still counts", ua: "panscient.com", actor: "ai_crawler", name: "Panscient", rule: "ai_crawler_token" },
    { why: "the product token wins over another token in the comment's URL", ua: "Mozilla/5.0 (compatible; Google-CloudVertexBot; +https://example.com/why-not-gptbot)", actor: "ai_crawler", name: "Google-CloudVertexBot", rule: "ai_crawler_token" },
    { why: "token at the very start and end of the UA", ua: "Bytespider", actor: "ai_crawler", name: "Bytespider", rule: "ai_crawler_token" },
    { why: "multi-word token", ua: "Mozilla/5.0 (compatible; netEstate Imprint Crawler; +http://www.netestate.de)", actor: "ai_crawler", name: "netEstate Imprint Crawler", rule: "ai_crawler_token" },
    { why: "multi-word token needs its exact spacing", ua: "Mozilla/5.0 (compatible; Linguee  Bot)", actor: "bot", rule: "generic_bot" },
    { why: "token with a dot", ua: "Mozilla/5.0 (compatible; bigsur.ai crawler)", actor: "ai_crawler", name: "bigsur.ai", rule: "ai_crawler_token" },
    { why: "the dot in bigsur.ai is literal", ua: "Mozilla/5.0 (compatible; bigsurxai crawler)", actor: "bot", rule: "generic_bot" },
    { why: "Spider alone is excluded (too generic)", ua: "Mozilla/5.0 (compatible; Spider; +https://www.spider.com/)", actor: "bot", rule: "generic_bot" },
    { why: "Code alone is excluded (VS Code)", ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Code/1.115.0 Chrome/142.0.7444.265 Electron/39.8.5 Safari/537.36", actor: "human", rule: "default" },
    { why: "OpenAI alone is excluded (the SDK)", ua: "OpenAI/Python 1.51.0", actor: "bot", rule: "generic_bot" },
    { why: "iaskspider is excluded", ua: "iaskspider/2.0", actor: "bot", rule: "generic_bot" },
    { why: "Google-Extended is never a UA token", ua: "Mozilla/5.0 (compatible; Google-Extended/1.0; +http://www.google.com/bot.html)", actor: "bot", rule: "generic_bot" },
    { why: "marker needs boundaries too", ua: `${CHROME} Puppeteers`, actor: "human", rule: "default" },
  ])("$why", check);
});

describe("naming: earliest start, then longest; aliases to canonical names", () => {
  it.each<Case>([
    { why: "Ai2Bot-Dolma, not AI2Bot", ua: "Mozilla/5.0 (compatible) Ai2Bot-Dolma (+https://www.allenai.org/crawler)", actor: "ai_crawler", name: "Ai2Bot-Dolma", rule: "ai_crawler_token" },
    { why: "AI2Bot-DeepResearchEval, not AI2Bot", ua: "Mozilla/5.0 (compatible; AI2Bot-DeepResearchEval/1.0)", actor: "ai_crawler", name: "AI2Bot-DeepResearchEval", rule: "ai_crawler_token" },
    { why: "AI2Bot when followed by a slash", ua: "Mozilla/5.0 (compatible; AI2Bot/1.0; +https://www.allenai.org/crawler)", actor: "ai_crawler", name: "AI2Bot", rule: "ai_crawler_token" },
    { why: "Claude-User before claude-code", ua: "Claude-User (claude-code/2.1.86; +https://support.anthropic.com/)", actor: "ai_agent", name: "Claude-User", rule: "ai_agent_token" },
    { why: "claude-code before Claude-User", ua: "claude-code/2.1.86 (Claude-User)", actor: "ai_agent", name: "Claude-Code", rule: "ai_agent_token" },
    { why: "Google-CloudVertexBot, not CloudVertexBot", ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Google-CloudVertexBot; +https://cloud.google.com/enterprise-search)", actor: "ai_crawler", name: "Google-CloudVertexBot", rule: "ai_crawler_token" },
    { why: "CloudVertexBot alias", ua: "Mozilla/5.0 (compatible; CloudVertexBot/1.0)", actor: "ai_crawler", name: "Google-CloudVertexBot", rule: "ai_crawler_token" },
    { why: "NotebookLM alias", ua: "Mozilla/5.0 (compatible; NotebookLM)", actor: "ai_agent", name: "Google-NotebookLM", rule: "ai_agent_token" },
    { why: "Google-NotebookLM itself", ua: "Mozilla/5.0 (compatible; Google-NotebookLM; +https://notebooklm.google.com/)", actor: "ai_agent", name: "Google-NotebookLM", rule: "ai_agent_token" },
    { why: "Meta-ExternalAgent case variant", ua: "Mozilla/5.0 (compatible; Meta-ExternalAgent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler))", actor: "ai_crawler", name: "meta-externalagent", rule: "ai_crawler_token" },
    { why: "Meta-ExternalFetcher case variant is an agent", ua: "Mozilla/5.0 (compatible; Meta-ExternalFetcher/1.1)", actor: "ai_agent", name: "meta-externalfetcher", rule: "ai_agent_token" },
    { why: "meta-webindexer", ua: "meta-webindexer/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)", actor: "ai_crawler", name: "meta-webindexer", rule: "ai_crawler_token" },
    { why: "webzio-extended case variant", ua: "webzio-extended/1.0", actor: "ai_crawler", name: "Webzio-Extended", rule: "ai_crawler_token" },
    { why: "Brightbot 1.0", ua: "Brightbot 1.0", actor: "ai_crawler", name: "Brightbot", rule: "ai_crawler_token" },
    { why: "MistralAI-User/1.0", ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; MistralAI-User/1.0; +https://docs.mistral.ai/robots)", actor: "ai_agent", name: "MistralAI-User", rule: "ai_agent_token" },
    { why: "panscient.com", ua: "panscient.com", actor: "ai_crawler", name: "Panscient", rule: "ai_crawler_token" },
    { why: "Terra Cotta alias", ua: "Terra Cotta/1.0 (+https://ceramic.ai)", actor: "ai_crawler", name: "TerraCotta", rule: "ai_crawler_token" },
    { why: "SemrushBot-SWA is AI, the suffix wins over SemrushBot", ua: "Mozilla/5.0 (compatible; SemrushBot-SWA/0.1; +http://www.semrush.com/bot.html)", actor: "ai_crawler", name: "SemrushBot-SWA", rule: "ai_crawler_token" },
    { why: "omgilibot, not omgili", ua: "Mozilla/5.0 (compatible; omgilibot/0.4 +http://omgili.com)", actor: "ai_crawler", name: "omgilibot", rule: "ai_crawler_token" },
    { why: "omgili later in the URL does not displace the earlier omgilibot", ua: "omgilibot/0.3 +http://omgili.com", actor: "ai_crawler", name: "omgilibot", rule: "ai_crawler_token" },
    { why: "earliest crawler token wins over a longer one later", ua: "CCBot/2.0 (compatible; cohere-training-data-crawler)", actor: "ai_crawler", name: "CCBot", rule: "ai_crawler_token" },
    { why: "amazon-kendra customer-id UA", ua: "amazon-kendra-customer-id-1234-1234-1234", actor: "ai_crawler", name: "amazon-kendra", rule: "ai_crawler_token" },
  ])("$why", check);
});

describe("referrer matching", () => {
  it.each<[string, string | null, string | null]>([
    ["plain host", "https://chatgpt.com/", "ChatGPT"],
    ["no trailing slash", "https://chatgpt.com", "ChatGPT"],
    ["http scheme", "http://chat.openai.com/c/1", "ChatGPT"],
    ["case-insensitive scheme and host", "HTTPS://ChatGPT.com/", "ChatGPT"],
    ["port ignored", "https://chatgpt.com:443/", "ChatGPT"],
    ["unusual port ignored", "http://claude.ai:8080/new", "Claude"],
    ["one www. stripped", "https://www.perplexity.ai/search?q=x", "Perplexity"],
    ["only one www. stripped", "https://www.www.perplexity.ai/", null],
    ["query and fragment irrelevant", "https://copilot.microsoft.com?utm=1#frag", "Copilot"],
    ["labs.openai.com is ChatGPT", "https://labs.openai.com/", "ChatGPT"],
    ["chat-gpt.org is Chat+", "https://chat-gpt.org/", "Chat+"],
    ["bard.google.com is Gemini", "https://bard.google.com/", "Gemini"],
    ["beta.character.ai", "https://beta.character.ai/chat", "Character.AI"],
    ["poe.com", "https://poe.com/ChatGPT", "Poe"],
    ["phind.com", "https://www.phind.com/search", "Phind"],
    ["you.com", "https://you.com/search?q=x", "You.com"],
    ["chat.deepseek.com", "https://chat.deepseek.com/", "DeepSeek"],
    ["yiyan.baidu.com", "https://yiyan.baidu.com/", "Baidu AI"],
    // look-alikes and subdomains
    ["subdomain docs.perplexity.ai", "https://docs.perplexity.ai/", null],
    ["platform.openai.com", "https://platform.openai.com/docs", null],
    ["openai.com", "https://openai.com/", null],
    ["www.anthropic.com", "https://www.anthropic.com/", null],
    ["gemini.google marketing site", "https://gemini.google/overview/", null],
    ["google search for gemini", "https://www.google.com/search?q=gemini", null],
    ["bing search for copilot", "https://www.bing.com/search?q=copilot", null],
    ["suffix look-alike", "https://chatgpt.com.example.com/", null],
    ["prefix look-alike", "https://notchatgpt.com/", null],
    ["sub-subdomain", "https://a.chatgpt.com/", null],
    ["trailing-dot host is a different host string", "https://chatgpt.com./", null],
    ["user info: the host is after @", "https://chatgpt.com@evil.example/", null],
    ["user info before an assistant host", "https://user:pw@claude.ai/", "Claude"],
    ["percent-encoded host is decoded like a browser would", "https://chatgpt%2Ecom/", "ChatGPT"],
    // x.com / Grok
    ["x.com/i/grok", "https://x.com/i/grok", "Grok"],
    ["x.com/i/grok with query", "https://x.com/i/grok?conversation=1", "Grok"],
    ["below /i/grok", "https://x.com/i/grok/share/abc", "Grok"],
    ["www.x.com/i/grok", "https://www.x.com/i/grok", "Grok"],
    ["path case-insensitive like the host", "https://x.com/I/Grok", "Grok"],
    ["x.com elsewhere", "https://x.com/home", null],
    ["x.com/i/grokking is not below /i/grok", "https://x.com/i/grokking", null],
    ["x.com root", "https://x.com/", null],
    ["grok.com", "https://grok.com/", "Grok"],
    // android-app and other schemes
    ["ChatGPT Android app", "android-app://com.openai.chatgpt/", "ChatGPT"],
    ["ChatGPT Android app without slash", "android-app://com.openai.chatgpt", "ChatGPT"],
    ["other Android app", "android-app://com.google.android.gm/", null],
    ["ftp scheme", "ftp://chatgpt.com/", null],
    ["scheme-less host", "chatgpt.com", null],
    ["not a URL", "not a url at all", null],
    ["empty string", "", null],
    ["null", null, null],
  ])("%s", (_why, referrer, name) => {
    expect(assistantFromReferrer(referrer)).toBe(name);
  });
});

describe("utm_source matching (trimmed, lowercased, one www. stripped, exact)", () => {
  it.each<[string | null, string | null]>([
    ["chatgpt.com", "ChatGPT"],
    ["  ChatGPT.com ", "ChatGPT"],
    ["www.chatgpt.com", "ChatGPT"],
    ["WWW.Perplexity.AI", "Perplexity"],
    ["www.www.chatgpt.com", null],
    ["chatgpt", "ChatGPT"],
    ["openai", "ChatGPT"],
    ["perplexity", "Perplexity"],
    ["claude", "Claude"],
    ["claude.ai", "Claude"],
    ["gemini", "Gemini"],
    ["gemini.google.com", "Gemini"],
    ["copilot", "Copilot"],
    ["copilot.microsoft.com", "Copilot"],
    ["deepseek", "DeepSeek"],
    ["grok", "Grok"],
    ["grok.com", "Grok"],
    ["mistral", "Le Chat"],
    ["lechat", "Le Chat"],
    ["chat.mistral.ai", "Le Chat"],
    ["phind", "Phind"],
    ["qwen", "Qwen"],
    ["notebooklm", "NotebookLM"],
    ["duckai", "Duck.ai"],
    ["duck.ai", "Duck.ai"],
    ["meta.ai", "Meta AI"],
    ["poe.com", "Poe"],
    ["you.com", "You.com"],
    // generic words are deliberately not AI
    ["you", null],
    ["meta", null],
    ["ai", null],
    // x.com is a social network; only its /i/grok referrer path is Grok
    ["x.com", null],
    ["chatgpt.com/", "ChatGPT"], // issue 15: a utm value in URL form names its host
    ["newsletter", null],
    ["", null],
    [null, null],
  ])("%j → %j", (utm, name) => {
    expect(assistantFromUtmSource(utm)).toBe(name);
  });
});

describe("classifyUserAgent and the UA cache", () => {
  it("classify agrees with classifyUserAgent when no referrer or utm is present", () => {
    for (const ua of [CHROME, GPTBOT, CHATGPT_USER, HEADLESS, GOOGLEBOT, GEMINI_IOS, "", "Mozilla/5.0 (compatible)"]) {
      expect(classify({ ua, referrer: null, utm_source: null, js: true })).toBe(classifyUserAgent(ua));
    }
  });

  it("keeps answering correctly after more distinct UAs than two cache generations hold", () => {
    const before = classify({ ua: GPTBOT, referrer: null, utm_source: null, js: false });
    for (let i = 0; i < 20_000; i++) {
      const ua = i % 2 === 0 ? `${CHROME} Build/${i}` : `Mozilla/5.0 (compatible; Googlebot/${i})`;
      const got = classify({ ua, referrer: null, utm_source: null, js: true });
      expect(got.actor).toBe(i % 2 === 0 ? "human" : "bot");
    }
    expect(classify({ ua: GPTBOT, referrer: null, utm_source: null, js: false })).toEqual(before);
    expect(classify({ ua: `${CHROME} Build/0`, referrer: "https://claude.ai/", utm_source: null, js: true })).toEqual({
      actor: "human_via_ai",
      name: "Claude",
      rule: "assistant_referrer",
    });
  });

  it("classifies very long UAs (not cached) the same way", () => {
    const long = `${CHROME} ${"x".repeat(2000)} GPTBot/1.0`;
    expect(classify({ ua: long, referrer: null, utm_source: null, js: true })).toEqual({ actor: "ai_crawler", name: "GPTBot", rule: "ai_crawler_token" });
    expect(classify({ ua: long, referrer: null, utm_source: null, js: true })).toEqual({ actor: "ai_crawler", name: "GPTBot", rule: "ai_crawler_token" });
  });

  it("treats wrongly typed fields from untyped callers as missing instead of throwing", () => {
    const untyped = (v: unknown) => v as string;
    expect(classify({ ua: untyped(undefined), referrer: null, utm_source: null, js: true }).rule).toBe("empty_ua");
    expect(classify({ ua: CHROME, referrer: untyped(undefined), utm_source: untyped(42), js: true }).rule).toBe("default");
    expect(assistantFromReferrer(untyped({ href: "https://chatgpt.com/" }))).toBeNull();
  });

  it("returns frozen results that callers cannot alter for the next row", () => {
    const got = classify({ ua: CHROME, referrer: null, utm_source: null, js: true });
    expect(Object.isFrozen(got)).toBe(true);
  });
});
