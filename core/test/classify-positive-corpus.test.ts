// The positive corpus (issue 15): every token of the tables is found, with its class and canonical name, in at
// least one real User-Agent from a source kept in fixtures/ (the actor corpus, crawler-user-agents, isbot's
// fixtures, and the operators' pages quoted in fixtures/issue15/). Tokens no stored source has a real UA for
// are listed below with the reason; the list is compared exactly, so a new real UA must remove its token
// from it and a new token without one must be added to it. (Every token also goes through classify() in
// classify-tables.test.ts, in a constructed UA.)
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { aiAgents, aiCrawlers, automationMarkers, classifyUserAgent, productPart, webviews } from "../src/classify/index.ts";

const read = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");
const jsonlUas = (name: string): string[] =>
  read(name)
    .trimEnd()
    .split("\n")
    .map((l) => (JSON.parse(l) as { ua: string }).ua);

const realUas = [
  ...jsonlUas("actors.jsonl"),
  ...jsonlUas("issue15/new-ai-tokens.jsonl"),
  ...jsonlUas("issue15/precision.jsonl"),
  ...jsonlUas("issue15/assistant-signals.jsonl"),
  ...(JSON.parse(read("crawler-user-agents-instances.json")) as Array<{ instances: string[] }>).flatMap((e) => e.instances),
  ...Object.values(JSON.parse(read("isbot-fixtures-crawlers.json")) as Record<string, string[]>).flat(),
  ...Object.values(JSON.parse(read("isbot-fixtures-browsers.json")) as Record<string, string[]>).flat(),
];

// Tokens known from a list only, with no real UA in any stored source yet.
const WITHOUT_REAL_UA: Record<string, { readonly why: string; readonly tokens: readonly string[] }> = {
  "ai-robots-txt": {
    why: "robots.json lists the robots.txt token; neither it nor the other stored lists carry a UA that sends it",
    tokens: [
      "AgentTimes", "AI2Bot-DeepResearchEval", "AIWebIndex", "amazon-QBusiness", "Andibot", "Awario", "bedrockbot", "CragCrawler",
      "Crawlspace", "Datenbank Crawler", "Echobot Bot", "ExaSearchBot", "KlaviyoAIBot", "LAIONDownloader", "Mozilla-Tabstack",
      "MyCentralAIScraperBot", "NagetBot", "netEstate Imprint Crawler", "Poseidon Research Crawler", "Querit-SearchBot", "QueritBot",
      "QuillBot", "Reflectionbot", "SemrushBot-OCOB", "Terra Cotta", "TongyiBot", "UseAI", "YandexAdditional", "YiyanBot",
      "GeistHaus-PageFetcher", "GoogleAgent-URLContext", "Kimi-User", "Shap-User", "Lightpanda",
    ],
  },
  "mistral-robots": { why: "Mistral's page names the token without a full UA string", tokens: ["MistralAI-Training"] },
  "datafast-crawler-directory": { why: "the directory names the token without a full UA string", tokens: ["Grok-DeepSearch"] },
  "device-detector-bots": {
    why: "Device Detector's bots.yml gives the regex; its UA fixtures are LGPL and not kept here",
    tokens: [
      "Bard-AI", "Gemini-AI", "Anthropic-Claude", "Cohere-Command", "Replicate-Bot", "Together-Bot", "xAI-Bot", "Groq-Bot", "RunPod-Bot",
      "HuggingFace-Bot", "ProRata", "UdV-AI-Research", "KimiBot", "Kimi-SearchBot", "GoGuidesCrawler", "GoGuidesDiscoveryBot",
      "Google-Pinpoint", "GoogleAgent-Search", "ChatGPT-Browser", "GitHubCopilotChat", "Character-AI",
    ],
  },
};

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
const tables = [
  { kind: "crawler", entries: aiCrawlers, actor: "ai_crawler", sameName: true },
  { kind: "agent", entries: aiAgents, actor: "ai_agent", sameName: true },
  // A marker's real UA may carry an earlier marker (`HeadlessChrome … Puppeteer`), which then names the row.
  { kind: "marker", entries: automationMarkers, actor: "ai_agent", sameName: false },
  { kind: "webview", entries: webviews, actor: "human_via_ai", sameName: true },
] as const;

function realUaFor(token: string, name: string, actor: string, sameName: boolean): string | undefined {
  const re = new RegExp(`(?<![A-Za-z0-9])${escape(token)}(?![A-Za-z0-9])`, "i");
  return realUas.find((ua) => {
    if (!re.test(productPart(ua))) return false;
    const got = classifyUserAgent(ua);
    return got.actor === actor && (!sameName || got.name === name);
  });
}

describe("positive corpus: every table token in a real UA", () => {
  const rows = tables.flatMap((t) => t.entries.map((e) => ({ kind: t.kind, ...e, actor: t.actor, sameName: t.sameName })));
  const listed = new Map(Object.entries(WITHOUT_REAL_UA).flatMap(([source, { tokens }]) => tokens.map((t) => [t, source] as const)));

  it.each(rows)("$kind $token", ({ token, name, actor, sameName, source }) => {
    const ua = realUaFor(token, name, actor, sameName);
    if (listed.has(token)) {
      expect(ua, `${token} now has a real UA: remove it from WITHOUT_REAL_UA`).toBeUndefined();
      expect(listed.get(token), token).toBe(source);
    } else {
      expect(ua, `${token}: no real UA in the stored sources; add one (with its source) or list it`).toBeDefined();
    }
  });

  it("lists only table tokens", () => {
    const tokens = new Set(rows.map((r) => r.token));
    for (const token of listed.keys()) expect(tokens.has(token), token).toBe(true);
    expect(rows.length - listed.size).toBeGreaterThan(120);
  });
});
