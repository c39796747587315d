// The data tables against the corpus README (a copy in fixtures/), and every table token through classify().
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  aiAgents,
  aiCrawlers,
  aiUtmValues,
  assistantFromReferrer,
  assistantFromUtmSource,
  assistants,
  automationMarkers,
  browserShapes,
  classify,
  dataSources,
  genericBotPatterns,
  robotsJsonExclusions,
  webviews,
} from "../src/classify/index.ts";

const readme = readFileSync(new URL("./fixtures/actors-corpus-README.md", import.meta.url), "utf8");
const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148";

function sectionRows(heading: string): string[][] {
  const start = readme.indexOf(heading);
  if (start < 0) throw new Error(`README section ${heading} not found`);
  const rest = readme.slice(start + heading.length);
  const end = rest.search(/\n## /);
  return (end < 0 ? rest : rest.slice(0, end))
    .split("\n")
    .filter((l) => l.startsWith("| "))
    .slice(1) // header row; the |---| row does not start with "| "
    .map((l) => l.split("|").slice(1, -1).map((c) => c.trim()));
}
const ticks = (cell: string | undefined): string[] => [...(cell ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

const uaOf = (token: string): string => `Mozilla/5.0 (compatible; ${token}/1.0; +https://example.com)`;
const none = { referrer: null, utm_source: null, js: false } as const;

describe("the tables keep every corpus README row (the corpus decisions; issue 15 only adds)", () => {
  const crawlerRows = sectionRows("## AI crawler tokens");
  const agentRows = sectionRows("## AI agent tokens");
  const pick = ({ token, name, operator }: { token: string; name: string; operator: string }) => ({ token, name, operator });

  it("has every AI crawler row with its canonical name and operator", () => {
    expect(crawlerRows.length).toBeGreaterThan(100);
    const expected = crawlerRows.map(([t, name, operator]) => ({ token: ticks(t)[0]!, name: name!, operator: operator! }));
    expect(aiCrawlers.map(pick)).toEqual(expect.arrayContaining(expected));
  });

  it("has every AI agent row with its canonical name and operator", () => {
    const expected = agentRows.map(([t, name, operator]) => ({ token: ticks(t)[0]!, name: name!, operator: operator! }));
    expect(aiAgents.map(pick)).toEqual(expect.arrayContaining(expected));
  });

  it("has the automation markers and the webview token", () => {
    const markerLine = readme.split("\n").find((l) => l.startsWith("Generic automation markers"))!;
    expect(automationMarkers.map((m) => m.token)).toEqual(ticks(markerLine.slice(markerLine.indexOf(":"))));
    expect(webviews.map((w) => [w.token, w.name])).toContainEqual(["GeminiiOS", "Gemini"]);
  });

  it("has every assistant host of the 22 corpus assistants with its canonical name", () => {
    const rows = sectionRows("## AI assistant referrer hosts");
    expect(rows).toHaveLength(22);
    expect(assistants.map((a) => a.name)).toEqual(expect.arrayContaining(rows.map(([name]) => name)));
    for (const [name, hosts] of rows) {
      for (const host of ticks(hosts).filter((h) => !h.startsWith("/") && h !== "x.com")) {
        expect(assistants.find((a) => a.hosts.includes(host))?.name, host).toBe(name);
        expect(assistantFromReferrer(`https://${host}/`), host).toBe(name);
        expect(assistantFromUtmSource(host), host).toBe(name);
      }
    }
    expect(assistantFromReferrer("https://x.com/i/grok")).toBe("Grok");
    expect(assistantFromReferrer("android-app://com.openai.chatgpt/")).toBe("ChatGPT");
  });

  it("has every bare utm_source brand value", () => {
    const rows = sectionRows("## AI `utm_source` values");
    const expected = rows.flatMap(([values, name]) => ticks(values).map((value) => [value, name] as const));
    expect(expected.length).toBeGreaterThan(10);
    for (const [value, name] of expected) expect(aiUtmValues.get(value), value).toBe(name);
  });

  it("lists the robots.json exclusions and never names them as AI tokens (Lightpanda is a marker instead)", () => {
    const rows = sectionRows("## robots.json entries deliberately not used");
    expect(robotsJsonExclusions.map((e) => e.token)).toEqual(rows.flatMap(([t]) => ticks(t)));
    const aiTokens = new Set([...aiCrawlers, ...aiAgents].map((t) => t.token.toLowerCase()));
    for (const { token } of robotsJsonExclusions) {
      expect(aiTokens.has(token.toLowerCase()), token).toBe(false);
      if (token === "Lightpanda") {
        expect(classify({ ua: `${CHROME} ${token}/1.0`, ...none }).rule, token).toBe("headless_marker");
        continue;
      }
      // `Applebot-Extended` still contains the crawler token `Applebot`; what matters is that the excluded
      // entry itself never becomes the name.
      for (const ua of [uaOf(token), `${CHROME} ${token}/1.0`]) expect(classify({ ua, ...none }).name, ua).not.toBe(token);
    }
    expect(classify({ ua: uaOf("Google-Extended"), ...none }).actor).toBe("bot");
    expect(classify({ ua: uaOf("Applebot-Extended"), ...none }).name).toBe("Applebot");
  });
});

describe("every table token classifies to its own canonical name", () => {
  it.each(aiCrawlers.map((t) => [t.token, t.name] as const))("crawler %s", (token, name) => {
    for (const ua of [uaOf(token), uaOf(token.toLowerCase()), uaOf(token.toUpperCase()), `${CHROME} ${token}`]) {
      expect(classify({ ua, ...none }), ua).toEqual({ actor: "ai_crawler", name, rule: "ai_crawler_token" });
    }
  });

  it.each(aiAgents.map((t) => [t.token, t.name] as const))("agent %s", (token, name) => {
    for (const ua of [uaOf(token), uaOf(token.toLowerCase()), `${CHROME} ${token}/2.0`]) {
      expect(classify({ ua, referrer: "https://chatgpt.com/", utm_source: "chatgpt.com", js: true }), ua).toEqual({
        actor: "ai_agent",
        name,
        rule: "ai_agent_token",
      });
    }
  });

  // Markers go into a plain browser UA: next to "compatible; …; +https://example.com" the generic patterns
  // (`\.com\b`) would rightly call the row a bot.
  it.each(automationMarkers.map((t) => [t.token, t.name] as const))("marker %s", (token, name) => {
    expect(classify({ ua: `${CHROME} ${token}/1.0`, ...none })).toEqual({ actor: "ai_agent", name, rule: "headless_marker" });
    expect(classify({ ua: `${CHROME} ${token}/1.0 Googlebot/2.1`, ...none })).toEqual({ actor: "bot", name: null, rule: "generic_bot" });
  });

  it.each(webviews.map((t) => [t.token, t.name] as const))("webview %s", (token, name) => {
    expect(classify({ ua: `${IPHONE} ${token}/1.2026`, ...none })).toEqual({ actor: "human_via_ai", name, rule: "assistant_webview" });
  });
});

describe("table data", () => {
  const uaTables = { aiCrawlers, aiAgents, automationMarkers, webviews };

  it.each(Object.entries(uaTables))("%s: every entry has an operator and a known source", (_table, entries) => {
    for (const e of entries) {
      expect(e.operator.trim(), e.token).not.toBe("");
      expect(Object.keys(dataSources), e.token).toContain(e.source);
    }
  });

  it("no token is in two classes", () => {
    const all = [...aiCrawlers, ...aiAgents, ...automationMarkers, ...webviews].map((e) => e.token.toLowerCase());
    expect(new Set(all).size).toBe(all.length);
  });

  it("every assistant cites known sources, and every source has a date", () => {
    for (const a of assistants) {
      expect(a.sources.length, a.name).toBeGreaterThan(0);
      for (const s of a.sources) expect(Object.keys(dataSources), a.name).toContain(s);
    }
    for (const [id, s] of Object.entries(dataSources)) expect(s.date, id).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it.each(browserShapes.map((s) => [s.name, s] as const))("browser shape %s: its example is a person, its source known", (_name, shape) => {
    expect(["human", "human_via_ai"]).toContain(classify({ ua: shape.example, ...none }).actor);
    expect(new RegExp(shape.pattern, "i").test(shape.example)).toBe(true);
    expect(Object.keys(dataSources)).toContain(shape.source);
  });

  it("generic bot patterns are the isbot list (about 200 patterns)", () => {
    expect(genericBotPatterns.length).toBeGreaterThan(150);
    expect(genericBotPatterns).toContain("(?<! cu)bots?(?:\\b|_)");
  });

  it("core/data/README.md describes every data file", () => {
    const dataDir = new URL("../data/", import.meta.url);
    const dataReadme = readFileSync(new URL("README.md", dataDir), "utf8");
    for (const file of readdirSync(dataDir).filter((f) => f !== "README.md")) {
      expect(dataReadme, file).toContain(`\`${file}\``);
    }
  });
});
