import { describe, expect, it } from "vitest";
import { KNOWN_SOURCES, lookupSource, mediumChannel, pagePath, referrerHost, trafficSource, urlHostname, utmFromUrl, type Utm } from "../src/index.ts";
import referrerHosts from "./fixtures/traffic-referrer-hosts.json" with { type: "json" };
import sources from "./fixtures/traffic-sources.json" with { type: "json" };

const NO_UTM: Utm = { utm_source: null, utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null };

describe("referrerHost", () => {
  it.each(referrerHosts)("$why: $referrer → $host", ({ referrer, host }) => {
    expect(referrerHost(referrer)).toBe(host);
  });
});

describe("trafficSource", () => {
  it.each(sources)("$why", ({ referrer, pageHost, utm, assistant, expect: expected }) => {
    const input = { referrer, pageHost: pageHost ?? "example.org", utm: { ...NO_UTM, ...utm }, assistant: assistant ?? null };
    expect(trafficSource(input)).toEqual(expected);
  });
});

// The oracle is the URL parser itself: the fast path must answer exactly what `new URL()` does, or null where it throws.
describe("urlHostname agrees with new URL().hostname", () => {
  it.each([
    "https://example.com/blog/post?x=1", "https://Example.COM", "http://example.com?q=1", "http://example.com#top",
    "https://www.example.co.uk/", "http://localhost/", "http://-a-.example/", "http://a--b.example/", "https://sub.1.2.example/",
    "http://1.2.3.4/", "http://1.2.3/", "http://example.1/", "http://0x7f.1/", "http://example.0x1/", "http://example.0x1g/",
    "http://example.0x/", "http://2130706433/", "http://xn--nxasmq6b.example/", "http://xn--abc/", "http://a.xn--zz/",
    "http://example.com./", "http://a..b/", "http://example.com:8080/", "http://example.com:99999/", "http://user@example.com/",
    "http://exa_mple.com/", "http://EXAMPLE.com\\path", "http://ex%41mple.com/", "http://bücher.example/", "http://[::1]/",
    "https://example.com /", "http://exa\tmple.com/",
  ])("%s", (url) => {
    expect(urlHostname(url)).toBe(URL.canParse(url) ? new URL(url).hostname.toLowerCase() : null);
  });
});

describe("pagePath", () => {
  it.each([
    { url: "https://example.com/blog/post?x=1#top", path: "/blog/post" },
    { url: "https://example.com", path: "/" },
    { url: "https://example.com/", path: "/" },
    { url: "https://example.com?utm_source=x", path: "/" },
    { url: "https://example.com#/app/route", path: "/" },
    { url: "https://example.com:8080/a/b/", path: "/a/b/" },
    { url: "HTTP://Example.com/CaseKept", path: "/CaseKept" },
    { url: "https://example.com/%E2%9C%93", path: "/%E2%9C%93" },
    { url: "/docs/intro?ref=nav", path: "/docs/intro" },
    { url: "/", path: "/" },
    { url: "not a url", path: "/" },
    { url: "", path: "/" },
  ])("$url → $path", ({ url, path }) => {
    expect(pagePath(url)).toBe(path);
  });
});

describe("utmFromUrl", () => {
  it.each([
    { url: "https://example.com/", utm: {} },
    { url: "https://example.com/?x=utm_source", utm: {} },
    { url: "https://example.com/?utm_source=google&utm_medium=cpc&utm_campaign=spring&utm_term=shoes&utm_content=ad1", utm: { utm_source: "google", utm_medium: "cpc", utm_campaign: "spring", utm_term: "shoes", utm_content: "ad1" } },
    { url: "https://example.com/?utm_campaign=spring+sale%202026", utm: { utm_campaign: "spring sale 2026" } },
    { url: "https://example.com/?utm_source=%20news%20", utm: { utm_source: "news" } },
    { url: "https://example.com/?utm_source=a&utm_source=b", utm: { utm_source: "a" } },
    { url: "https://example.com/?utm_source=&utm_medium=email", utm: { utm_medium: "email" } },
    { url: "https://example.com/?utm_source=100%", utm: { utm_source: "100%" } },
    { url: "https://example.com/#?utm_source=hash", utm: {} },
    { url: "https://example.com/?a=1#utm_source=hash", utm: {} },
    { url: "https://example.com/?utm_source=x#frag", utm: { utm_source: "x" } },
    { url: "https://example.com/?UTM_SOURCE=upper", utm: {} },
    { url: "https://example.com/?utm_source", utm: {} },
    { url: `https://example.com/?utm_campaign=${"c".repeat(300)}`, utm: { utm_campaign: "c".repeat(256) } },
    { url: "/path?utm_source=middleware", utm: { utm_source: "middleware" } },
  ])("$url", ({ url, utm }) => {
    expect(utmFromUrl(url)).toEqual({ ...NO_UTM, ...utm });
  });
});

describe("mediumChannel", () => {
  it.each([
    ["cpc", "paid"],
    ["PPC", "paid"],
    ["paidsearch", "paid"],
    ["paid-social", "paid"],
    ["cpm", "paid"],
    ["display", "paid"],
    ["retargeting", "paid"],
    ["affiliate", "paid"],
    ["email", "email"],
    ["E-Mail", "email"],
    ["newsletter", "email"],
    ["social", "social"],
    ["social-media", "social"],
    ["organic", "search"],
    ["referral", "referral"],
    ["banana", null],
    ["", null],
    [null, null],
  ] as const)("%s → %s", (medium, channel) => {
    expect(mediumChannel(medium)).toBe(channel);
  });
});

describe("known source tables", () => {
  it("every host, brand and app resolves to its own entry", () => {
    for (const source of KNOWN_SOURCES) {
      for (const host of source.hosts ?? []) expect(lookupSource(host)?.name, host).toBe(source.name);
      for (const app of source.apps ?? []) expect(lookupSource(app)?.name, app).toBe(source.name);
      for (const brand of source.brands ?? []) {
        for (const suffix of ["com", "de", "co.uk", "com.br"]) expect(lookupSource(`${brand}.${suffix}`)?.name).toBe(source.name);
        expect(lookupSource(`${brand}.com.evil.example`)).toBeNull();
        expect(lookupSource(`www2.${brand}.com`)).toBeNull();
      }
    }
  });

  it("hosts are normalised as referrerHost gives them", () => {
    for (const source of KNOWN_SOURCES) {
      for (const host of source.hosts ?? []) expect(referrerHost(`https://${host}/`)).toBe(host);
    }
  });
});
