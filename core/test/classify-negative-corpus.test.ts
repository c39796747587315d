// The negative corpus (issue 15): every real-browser UA of the public fixture sets kept in fixtures/ is
// classified `human`, except the entries listed here, each with the reason. isbot's browsers.yml is keyed by
// client name, so its exceptions are listed per key; a key is only listed when at least one of its UAs is
// not human, so the list cannot go stale.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { classifyUserAgent } from "../src/classify/index.ts";

const load = <T>(name: string): T => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8")) as T;

// Why a non-browser HTTP client in isbot's "browsers" list is not a human here: step 6 counts a row as a
// person only when a browser (or a known browser shape, data/browser-shapes.json) sent it.
const NATIVE_APP = "a native app's or OS component's own HTTP client (CFNetwork, Dalvik, libhttp, media players), not a browser showing a page: step 6, non_browser_ua";
const FEATURE_PHONE = "a WAP/J2ME feature-phone client without a browser engine in its UA: step 6, non_browser_ua";
const TEXT_BROWSER = "a text-mode browser: the corpus decides these are non-browser clients (step 6)";
const RETRO = "a browser of a retired platform whose UA names no layout engine (Amiga, BeOS, Inferno, NCSA Mosaic): step 6";

const isbotExceptions: Record<string, { readonly actors: readonly string[]; readonly why: string }> = {
  "AAA App User Agent String Examples - Native and Webview based user agent forms for a correct app user agent string composition": { actors: ["bot"], why: NATIVE_APP },
  Amiga: { actors: ["bot"], why: RETRO },
  IBrowse: { actors: ["bot"], why: RETRO },
  Charon: { actors: ["bot"], why: RETRO },
  "NCSA Mosaic": { actors: ["bot"], why: RETRO },
  NetPositive: { actors: ["bot"], why: RETRO },
  "Fireweb Navigator": { actors: ["bot"], why: "`Treco/…` is no layout engine step 6 knows (2011 hobby browser)" },
  Android: { actors: ["bot"], why: NATIVE_APP },
  "Apple TV": { actors: ["bot"], why: NATIVE_APP },
  "ESPN: Sports News & Highlights App": { actors: ["bot"], why: NATIVE_APP },
  "Facebook App": { actors: ["bot"], why: "the Facebook app's own API client (`[FBAN/FB4A;…]` alone); its in-app browser sends a full Mozilla UA and is human" },
  "Fubo TV": { actors: ["bot"], why: NATIVE_APP },
  "Gog Galaxy": { actors: ["bot"], why: NATIVE_APP },
  "Google Nexus Player": { actors: ["bot"], why: NATIVE_APP },
  "Google Pixel": { actors: ["bot"], why: NATIVE_APP },
  Hulu: { actors: ["bot"], why: NATIVE_APP },
  Kindle: { actors: ["bot"], why: NATIVE_APP },
  "Mozilla Android Components": { actors: ["bot"], why: NATIVE_APP },
  "NetworkingExtension (background network requests)": { actors: ["bot"], why: NATIVE_APP },
  Office: { actors: ["bot"], why: NATIVE_APP },
  Outlook: { actors: ["bot"], why: NATIVE_APP },
  "Outlook Express": { actors: ["bot"], why: NATIVE_APP },
  "Outlook Mail": { actors: ["bot"], why: NATIVE_APP },
  "PlayStation 4": { actors: ["bot"], why: NATIVE_APP },
  PowerPoint: { actors: ["bot"], why: NATIVE_APP },
  QuickTime: { actors: ["bot"], why: NATIVE_APP },
  RadiosNet: { actors: ["bot"], why: NATIVE_APP },
  retweet: { actors: ["bot"], why: NATIVE_APP },
  "Roku Ultra": { actors: ["bot"], why: NATIVE_APP },
  Safari: { actors: ["bot"], why: NATIVE_APP },
  "Sonos Player": { actors: ["bot"], why: NATIVE_APP },
  SpringBoard: { actors: ["bot"], why: NATIVE_APP },
  Viber: { actors: ["bot"], why: NATIVE_APP },
  Webkit: { actors: ["bot"], why: NATIVE_APP },
  WebView: { actors: ["bot"], why: "YelpWebView names no browser engine; the app's own client" },
  "Xumo Media Player": { actors: ["bot"], why: NATIVE_APP },
  "Zip Recruiter (Job Search phone app)": { actors: ["bot"], why: `the iOS app's own client; its Android webview (app name before a full browser UA) is human. ${NATIVE_APP}` },
  "Blackberry Browser": { actors: ["bot"], why: FEATURE_PHONE },
  Dolfin: { actors: ["bot"], why: FEATURE_PHONE },
  "Motorola Internet": { actors: ["bot"], why: FEATURE_PHONE },
  NetFront: { actors: ["bot"], why: FEATURE_PHONE },
  Nokia: { actors: ["bot"], why: FEATURE_PHONE },
  UC: { actors: ["bot"], why: `UC Browser's J2ME/BlackBerry builds (\`UC Browser7.8\`, \`UCWEB/2.0 (Java…)\`); its other builds are human. ${FEATURE_PHONE}` },
  "Vision Mobile": { actors: ["bot"], why: FEATURE_PHONE },
  Wapchoi: { actors: ["bot"], why: FEATURE_PHONE },
  Elinks: { actors: ["bot"], why: TEXT_BROWSER },
  Links: { actors: ["bot"], why: TEXT_BROWSER },
  Lynx: { actors: ["bot"], why: TEXT_BROWSER },
  DuckDuckGo: { actors: ["bot"], why: "truncated UAs that lost their `Mozilla/5.0 (Linux; ` start; no browser shape left" },
  "Google Webview": { actors: ["human_via_ai"], why: "the Gemini iOS app's webview (`GeminiiOS`): a person arriving from an assistant" },
  Trae: { actors: ["ai_agent"], why: "ByteDance's AI coding editor: an AI agent token (corpus decision)" },
  "ZZZ Miscellaneous Browsers - These browsers are not bots, but they are not widely used or are misidentified": {
    actors: ["ai_agent", "bot"],
    why: "Amzn-User is Amazon's AI agent; PodcastRepublic is a podcast app's own client (step 6)",
  },
  "ZZZ Insignificat bots - These bots have very low appearance rate and are not worth blocking": {
    actors: ["ai_crawler", "bot"],
    why: "isbot lists these as bots not worth blocking: amazon-kendra is an AI crawler token, the rest are media players and old crawlers",
  },
  "ZZZ Glitches and Misidentified Browsers - These browsers are legit user agent even though they are included in some bot listings (not all bots identify themselves)": {
    actors: ["bot"],
    why: "injection payloads, truncated or mangled UAs (`ozilla/5.0`, `Mozilla / 5.0`), library clients and app clients: none has a browser shape",
  },
};

describe("negative corpus: isbot fixtures/browsers.yml", () => {
  const browsers = Object.entries(load<Record<string, string[]>>("isbot-fixtures-browsers.json"));
  const cases = browsers.flatMap(([fixture, uas]) => uas.map((ua) => ({ fixture, ua })));

  it.each(cases)("$fixture: $ua", ({ fixture, ua }) => {
    const got = classifyUserAgent(ua);
    const exception = isbotExceptions[fixture];
    if (got.actor !== "human") expect(exception?.actors, `${got.actor} (${got.rule}) not listed for ${fixture}`).toContain(got.actor);
    // A generic bot pattern never decides alone against a real browser shape (issue 15).
    if (exception === undefined) expect(got.rule).toBe("default");
  });

  it("every listed exception still applies to at least one UA of its key, and every reason is given", () => {
    const byKey = new Map(browsers);
    for (const [key, { why }] of Object.entries(isbotExceptions)) {
      expect(why.length, key).toBeGreaterThan(20);
      const uas = byKey.get(key) ?? [];
      expect(uas.some((ua) => classifyUserAgent(ua).actor !== "human"), key).toBe(true);
    }
  });
});

describe("negative corpus: uap-core tests/test_ua.yaml (browser UAs)", () => {
  const { user_agents: uas } = load<{ user_agents: string[] }>("uap-core-browsers.json");
  const exceptions: Record<string, string> = {
    "iBrowser/Mini2.8 (Nokia5130c-2/07.97)": FEATURE_PHONE,
  };

  it.each(uas)("%s", (ua) => {
    const got = classifyUserAgent(ua);
    if (Object.hasOwn(exceptions, ua)) expect(got.actor).toBe("bot");
    else expect({ actor: got.actor, rule: got.rule }).toEqual({ actor: "human", rule: "default" });
  });
});

describe("negative corpus: the actor corpus's people", () => {
  const people = readFileSync(new URL("./fixtures/actors.jsonl", import.meta.url), "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as { ua: string; expected: string })
    .filter((r) => r.expected === "human" || r.expected === "human_via_ai");

  it(`${people.length} UAs of people: none is a bot or an AI`, () => {
    expect(people.length).toBeGreaterThan(250);
    const notPeople = people.filter((p) => !["human", "human_via_ai"].includes(classifyUserAgent(p.ua).actor));
    expect(notPeople).toEqual([]);
  });
});
