// The matcher behind `humans: false`, checked against the project's labelled corpus: it must never call an
// AI crawler, agent or bot a plain browser (that hit would be lost), and should recognise the browsers.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isPlainBrowser } from "../src/index.ts";

interface CorpusCase {
  readonly ua: string;
  readonly expected: string;
}

const corpus = readFileSync(new URL("../../core/test/fixtures/actors.jsonl", import.meta.url), "utf8")
  .split("\n")
  .filter((line) => line.trim().length > 0)
  .map((line) => JSON.parse(line) as CorpusCase);

describe("isPlainBrowser", () => {
  it("reads the whole development corpus", () => {
    expect(corpus.length).toBe(610);
  });

  it("calls no AI crawler, AI agent or bot of the corpus a plain browser", () => {
    const lost = corpus.filter((c) => c.expected !== "human" && c.expected !== "human_via_ai" && isPlainBrowser(c.ua));
    expect(lost).toEqual([]);
  });

  it("recognises every human browser of the corpus", () => {
    const missed = corpus.filter((c) => (c.expected === "human" || c.expected === "human_via_ai") && !isPlainBrowser(c.ua));
    expect(missed).toEqual([]);
  });

  it.each([
    ["Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1", true],
    ["Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", true],
    ["Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", false],
    ["Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot", false],
    ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36", false],
    ["Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", false],
    ["meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)", false],
    ["curl/8.5.0", false],
    ["Mozilla/5.0", false],
    ["", false],
  ])("%j → %s", (ua, plain) => {
    expect(isPlainBrowser(ua)).toBe(plain);
  });

  it("treats a missing user agent as not a browser", () => {
    expect(isPlainBrowser(undefined)).toBe(false);
    expect(isPlainBrowser(null)).toBe(false);
  });
});
