// One history-import line, table-driven: what is refused (and the reason named), and what a good line becomes
// — the columns ingest would store, with the line's own statements taken as stated.
import { describe, expect, it } from "vitest";
import { DECLARED_ACTOR_RULE, parseImportLine } from "../../src/import/import-line.ts";
import { UA } from "../support/harness.ts";

const SITE = "shop.example";
const T = "2026-03-01T14:05:00Z";
const line = (fields: Record<string, unknown>) => JSON.stringify({ timestamp: T, name: "pageview", ...fields });

describe("refused lines name the field and why", () => {
  it.each([
    ["not JSON", "{", /malformed JSON/],
    ["an array", "[1]", /must be a JSON object/],
    ["a number", "42", /must be a JSON object/],
    ["no timestamp", JSON.stringify({ name: "pageview" }), /timestamp is required/],
    ["a timestamp number", line({ timestamp: 1_700_000_000 }), /timestamp must be a string/],
    ["a date without time", line({ timestamp: "2026-03-01" }), /timestamp must be an ISO 8601 date and time/],
    ["an impossible date", line({ timestamp: "2026-02-30T10:00:00Z" }), /timestamp must be an ISO 8601/],
    ["no name", JSON.stringify({ timestamp: T }), /name is required/],
    ["a blank name", line({ name: "  " }), /name is required/],
    ["a long name", line({ name: "x".repeat(121) }), /name must be at most 120 characters/],
    ["an unknown field", line({ ip: "203.0.113.9" }), /unknown field "ip"/],
    ["two unknown fields", line({ pathnme: "/", url: "x" }), /unknown fields "pathnme", "url"/],
    ["a bad device", line({ device: "Fridge" }), /device must be one of Desktop, Laptop, Tablet, Mobile, Other/],
    ["a bad country", line({ country: "DEU" }), /country must be at most 2 characters/],
    ["a numeric country", line({ country: "12" }), /country must be an ISO 3166-1 alpha-2/],
    ["an unknown actor", line({ actor: "robot" }), /actor must be one of human, human_via_ai, ai_crawler, ai_agent, bot/],
    ["a relative pathname", line({ pathname: "pricing" }), /pathname must start with \//],
    ["a hostname with a path", line({ hostname: "a.example/x" }), /hostname must be a host name/],
    ["an empty visitor", line({ visitor: "" }), /visitor must not be empty/],
    ["bad props", line({ props: { a: { nested: true } } }), /props must be an object/],
    ["props as an array", line({ props: ["a"] }), /props must be an object/],
    ["a long pathname", line({ pathname: `/${"é".repeat(1100)}` }), /pathname must be at most 2048 bytes/],
    ["a long user agent", line({ user_agent: "x".repeat(1025) }), /user_agent must be at most 1024 characters/],
  ])("%s", (_label, text, reason) => {
    const result = parseImportLine(text, SITE);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });
});

describe("good lines become the columns ingest would store", () => {
  it.each([
    {
      label: "the least: a pageview, UTC, the site's host, /, a person, direct",
      fields: {},
      expected: { ts: Date.parse(T), visitor: null, fields: { name: "pageview", page: "/", hostname: SITE, source: null, channel: "direct", actor: "human", rule: "default", device: "other", browser: null, browser_version: null, os_version: null, country: null, props: null } },
    },
    {
      label: "a timestamp without offset is UTC; one with an offset is converted",
      fields: { timestamp: "2026-03-01 14:05" },
      expected: { ts: Date.parse("2026-03-01T14:05:00Z") },
    },
    { label: "+05:30 offset", fields: { timestamp: "2026-03-01T19:35:00+05:30" }, expected: { ts: Date.parse(T) } },
    {
      label: "referrer and UTM through core's rules; the query's UTM when none is given",
      fields: { referrer: "https://www.google.com/search?q=x", pathname: "/pricing?utm_campaign=spring&x=1" },
      expected: { fields: { page: "/pricing", source: "Google", channel: "search", referrer_host: "google.com", utm_campaign: "spring" } },
    },
    {
      label: "a bare referrer host",
      fields: { referrer: "news.ycombinator.com" },
      expected: { fields: { source: "Hacker News", referrer_host: "news.ycombinator.com" } },
    },
    {
      label: "source overrides, through the same source table",
      fields: { referrer: "https://www.google.com/", source: "bing" },
      expected: { fields: { source: "Bing", channel: "search" } },
    },
    { label: "Direct / None as a source", fields: { referrer: "https://www.google.com/", source: "Direct / None" }, expected: { fields: { source: null, channel: "direct" } } },
    {
      label: "an assistant referrer without a user agent is human_via_ai, as ingest",
      fields: { referrer: "https://chatgpt.com/" },
      expected: { fields: { actor: "human_via_ai", ai_name: "ChatGPT", source: "ChatGPT", channel: "ai_assistant", rule: "assistant_referrer" } },
    },
    {
      label: "a user agent decides actor, device, browser, OS",
      fields: { user_agent: UA.iphone },
      expected: { fields: { actor: "human", device: "mobile", browser: "Safari", os: "iOS", browser_version: "17.5", os_version: "17.5" } },
    },
    {
      label: "stated versions are stored major.minor, as ingest stores the user agent's",
      fields: { browser: "Chrome", browser_version: "131.0.6778.85", os: "Windows", os_version: " 10 " },
      expected: { fields: { browser: "Chrome", browser_version: "131.0", os: "Windows", os_version: "10" } },
    },
    {
      label: "a version goes with its name: a stated browser or OS takes none from the user agent",
      fields: { user_agent: UA.iphone, browser: "Firefox", os_version: "17.4" },
      expected: { fields: { browser: "Firefox", browser_version: null, os: "iOS", os_version: "17.4" } },
    },
    { label: "a crawler's user agent", fields: { user_agent: UA.gptbot }, expected: { fields: { actor: "ai_crawler", ai_name: "GPTBot", rule: "ai_crawler_token" } } },
    {
      label: "what the line states wins over the user agent",
      fields: { user_agent: UA.iphone, device: "Laptop", browser: "Firefox", os: "Linux", country: "de" },
      expected: { fields: { device: "desktop", browser: "Firefox", os: "Linux", country: "DE" } },
    },
    {
      label: "a declared actor against the classifier's says so in its rule",
      fields: { user_agent: UA.chrome, actor: "bot" },
      expected: { fields: { actor: "bot", ai_name: null, rule: DECLARED_ACTOR_RULE } },
    },
    {
      label: "e-mail addresses: cut from the page, name and UTM, props dropped",
      fields: { name: "Signup a@b.example", pathname: "/u/jo@mail.example", utm_source: "x@y.example", props: { plan: "pro", who: "me@mail.example" } },
      expected: { fields: { name: "Signup (email)", page: "/u/(email)", utm_source: "(email)", props: { plan: "pro" } } },
    },
    {
      label: "NUL and unpaired surrogates stored as PostgreSQL stores them",
      fields: { name: "Sign\u0000up", pathname: "/a\ud800b" },
      expected: { fields: { name: "Signup", page: "/a\ufffdb" } },
    },
    { label: "null is absent", fields: { referrer: null, visitor: null, props: null }, expected: { visitor: null, fields: { source: null, props: null } } },
    { label: "a visitor string is kept for hashing", fields: { visitor: "user-42" }, expected: { visitor: "user-42" } },
  ])("$label", ({ fields, expected }) => {
    const result = parseImportLine(line(fields), SITE);
    expect(result.ok, JSON.stringify(result)).toBe(true);
    if (result.ok) expect(result.line).toMatchObject(expected);
  });
});
