// Rule values and their readable labels (the gateway's `rule` breakdown): one row per rule, the matched name
// and its data source named, visit rules parsed despite their own colon, unknown values shown as they are.
import { describe, expect, it } from "vitest";
import { classify } from "../src/classify/index.ts";
import { VISIT_RULES, ruleLabel, ruleValue } from "../src/classify/rule-labels.ts";

describe("ruleValue", () => {
  it("is the rule, with the matched name after a colon, and the same string each time", () => {
    expect(ruleValue("ai_crawler_token", "GPTBot")).toBe("ai_crawler_token:GPTBot");
    expect(ruleValue("generic_bot", null)).toBe("generic_bot");
    expect(ruleValue("ai_crawler_token", "GPTBot")).toBe(ruleValue("ai_crawler_token", "GPTBot"));
  });
});

describe("ruleLabel", () => {
  it.each([
    ["ai_crawler_token:GPTBot", "user agent token GPTBot (ai.robots.txt)"],
    ["ai_agent_token:ChatGPT-User", "user agent token ChatGPT-User (ai.robots.txt)"],
    ["headless_marker:HeadlessChrome", "headless browser marker HeadlessChrome (crawler-user-agents)"],
    ["generic_bot", "generic bot pattern (isbot)"],
    ["empty_ua", "no user agent"],
    ["non_browser_ua", "user agent is not a browser"],
    ["assistant_referrer:ChatGPT", "referrer of ChatGPT"],
    ["assistant_utm:Perplexity", "utm_source of Perplexity"],
    ["default", "browser, no AI or bot signal"],
    [`${VISIT_RULES.assistantReferral}:ChatGPT`, "visit entered from ChatGPT"],
    [VISIT_RULES.entry, "visit entered without an assistant"],
    // A token the tables do not list keeps the text without a source; an unknown rule is shown as stored.
    ["ai_crawler_token:NoSuchBot", "user agent token NoSuchBot"],
    ["some_future_rule:X", "some_future_rule:X"],
  ])("%s → %s", (value, label) => {
    expect(ruleLabel(value)).toBe(label);
  });

  it("labels what the classifier decides for a crawler, an agent and a bot", () => {
    for (const ua of ["Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)", "curl/8.5.0", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"]) {
      const who = classify({ ua, referrer: null, utm_source: null, js: false });
      const label = ruleLabel(ruleValue(who.rule, who.name));
      expect(label).not.toBe(ruleValue(who.rule, who.name));
    }
  });
});
