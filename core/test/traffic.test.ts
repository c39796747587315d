import { describe, expect, it } from "vitest";
import { KNOWN_SOURCES, lookupSource, mediumChannel, normaliseHost, pagePath, referrerHost, trafficSource, urlHostname, utmFromUrl, type Utm } from "../src/index.ts";
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

// The scanners replaced three regular expressions (url-parts.ts); those stay here as the oracle, over tricky
// cases and seeded random strings made of the characters the scanners decide on.
describe("the URL scanners answer what the regular expressions they replaced did", () => {
  const SCHEME_AND_AUTHORITY = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)/;
  const PLAIN_HOST_AND_PORT = /^([A-Za-z0-9.-]+)(?::\d*)?$/;
  const PLAIN_HTTP_HOST = /^https?:\/\/([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)(?:[/?#]|$)/i;
  const ANDROID_PACKAGE = /^[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+$/;
  const NUMERIC_LABEL = /(?:^|\.)(?:\d+|0x[0-9a-f]*)$/i;
  const oracle = {
    pagePath(url: string): string {
      let start = 0;
      if (url.charCodeAt(0) !== 47) {
        const authority = SCHEME_AND_AUTHORITY.exec(url);
        if (authority === null) return "/";
        start = authority[0].length;
      }
      let end = url.length;
      for (let i = start; i < end; i++) if (url[i] === "?" || url[i] === "#") end = i;
      return end > start ? url.slice(start, end) : "/";
    },
    urlHostname(url: string): string | null {
      const plain = PLAIN_HTTP_HOST.exec(url);
      if (plain !== null) {
        const host = plain[1]!.toLowerCase();
        if (!NUMERIC_LABEL.test(host) && !host.startsWith("xn--") && !host.includes(".xn--")) return host;
      }
      return URL.canParse(url) ? new URL(url).hostname.toLowerCase() : null;
    },
    referrerHost(referrer: string | null): string | null {
      if (referrer === null || referrer === "") return null;
      const url = referrer.trim();
      const parts = SCHEME_AND_AUTHORITY.exec(url);
      if (parts === null) return null;
      const scheme = parts[1]!.toLowerCase();
      let authority = parts[2]!;
      if (scheme === "android-app") {
        const pkg = authority.toLowerCase();
        return ANDROID_PACKAGE.test(pkg) ? pkg : null;
      }
      if (scheme !== "http" && scheme !== "https") return null;
      const at = authority.lastIndexOf("@");
      if (at !== -1) authority = authority.slice(at + 1);
      const plain = PLAIN_HOST_AND_PORT.exec(authority);
      if (plain !== null) return normaliseHost(plain[1]!);
      if (!URL.canParse(url)) return null;
      const hostname = new URL(url).hostname;
      return hostname === "" ? null : normaliseHost(hostname);
    },
  };
  const TRICKY = [
    "", "/", "h", "http://", "https://", "http://a", "HTTPS://Example.COM/Path?q#f", "hTtP://www.Example.com:8080/x", "http://a.b.c/",
    "http://a..b/", "http://.a/", "http://a./", "http://-/", "http://a-b.c-d/", "http://a_b/", "http://a:/", "http://a:80/", "http://a:8o/",
    "http://u@a/", "http://u:p@a.b:1/", "http://a/b@c", "http://a?b@c", "https://a#@b", "https://@/", "https://u@/", "android-app://com.google.android.gm/",
    "ANDROID-APP://Com.Google.Android.GM/x", "android-app://com/", "android-app://1com.x/", "ftp://a/", "git+ssh://a.b/", "a.b-c+d://x/", "1http://a/",
    "http:/a", "http:a", "http//a", " https://a.b/ ", "\thttps://a.b/", "https://a.b\\c/", "https://[::1]:80/", "https://bücher.de/", "https://1.2.3.4/",
    "https://a.0x1/", "https://xn--a.b/", "https://a.xn--b/", "https://a%41.b/", "https://a.b:99999/", "http://a.b/?c=http://d.e/", "https:////a",
  ];
  let seed = 26;
  const rand = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const ALPHABET = ["h", "t", "p", "s", "H", "T", "P", "S", ":", "/", "/", ".", "-", "a", "Z", "9", "0x", "@", "?", "#", "+", "_", " ", "ü", "[", "]", "xn--", "android-app"];
  const randomUrl = () => {
    const prefix = ["http://", "https://", "HTTP://", "android-app://", "x+y://", ""][Math.floor(rand() * 6)]!;
    let tail = "";
    const n = Math.floor(rand() * 14);
    for (let i = 0; i < n; i++) tail += ALPHABET[Math.floor(rand() * ALPHABET.length)]!;
    return prefix + tail;
  };
  const inputs = [...TRICKY, ...Array.from({ length: 3000 }, randomUrl)];
  it.each(["pagePath", "urlHostname", "referrerHost"] as const)("%s over %#: tricky cases and 3,000 seeded random strings", (name) => {
    const scanner = { pagePath, urlHostname, referrerHost }[name];
    const differing = inputs.filter((url) => scanner(url) !== oracle[name](url));
    expect(differing).toEqual([]);
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
