import { describe, expect, it } from "vitest";
import {
  buildHit,
  clientAddress,
  requestPath,
  MAX_PATH_CHARS,
  MAX_REFERRER_CHARS,
  MAX_USER_AGENT_CHARS,
  UNKNOWN_ADDRESS,
  type FinishedRequest,
} from "../src/index.ts";

describe("requestPath", () => {
  it.each([
    { url: "/blog", keepQuery: false, path: "/blog" },
    { url: "/blog?utm_source=x&token=secret", keepQuery: false, path: "/blog" },
    { url: "/blog?utm_source=x", keepQuery: true, path: "/blog?utm_source=x" },
    { url: "/blog#top", keepQuery: true, path: "/blog" },
    { url: "/?a=1#b", keepQuery: false, path: "/" },
    { url: "https://example.com/docs/a?b=1", keepQuery: false, path: "/docs/a" },
    { url: "https://example.com/docs/a?b=1", keepQuery: true, path: "/docs/a?b=1" },
    { url: "https://example.com", keepQuery: false, path: "/" },
    { url: "http://example.com?x=1", keepQuery: false, path: "/" },
    { url: "*", keepQuery: false, path: "/" },
    { url: "", keepQuery: false, path: "/" },
    { url: "blog", keepQuery: false, path: "/blog" },
  ])("$url (keepQuery $keepQuery) → $path", ({ url, keepQuery, path }) => {
    expect(requestPath(url, keepQuery)).toBe(path);
  });

  it(`caps a path at ${MAX_PATH_CHARS} characters`, () => {
    expect(requestPath("/" + "a".repeat(5000), false)).toHaveLength(MAX_PATH_CHARS);
  });
});

describe("clientAddress", () => {
  const xff = "203.0.113.9, 198.51.100.4,10.1.2.3";
  it.each([
    { peer: "127.0.0.1", xff, trust: false, ip: "127.0.0.1" },
    { peer: "127.0.0.1", xff, trust: 0, ip: "127.0.0.1" },
    { peer: "127.0.0.1", xff, trust: true, ip: "203.0.113.9" },
    { peer: "127.0.0.1", xff, trust: 1, ip: "10.1.2.3" },
    { peer: "127.0.0.1", xff, trust: 2, ip: "198.51.100.4" },
    { peer: "127.0.0.1", xff, trust: 3, ip: "203.0.113.9" },
    { peer: "127.0.0.1", xff, trust: 9, ip: "203.0.113.9" },
    { peer: "127.0.0.1", xff: undefined, trust: true, ip: "127.0.0.1" },
    { peer: "127.0.0.1", xff: " , ", trust: 1, ip: "127.0.0.1" },
    { peer: "::ffff:192.0.2.1", xff: null, trust: false, ip: "192.0.2.1" },
    { peer: undefined, xff: null, trust: false, ip: UNKNOWN_ADDRESS },
    { peer: "", xff: "203.0.113.9", trust: false, ip: UNKNOWN_ADDRESS },
    { peer: "127.0.0.1", xff: "unknown", trust: true, ip: "127.0.0.1" },
    { peer: "127.0.0.1", xff: "_hidden, 10.1.2.3", trust: 2, ip: "127.0.0.1" },
    { peer: "not-an-address", xff: null, trust: false, ip: UNKNOWN_ADDRESS },
    { peer: "fe80::1%eth0", xff: null, trust: false, ip: "fe80::1" },
    { peer: null, xff: "2001:db8::1", trust: 1, ip: "2001:db8::1" },
    { peer: null, xff: "[2001:db8::2]:443", trust: 1, ip: "2001:db8::2" },
    { peer: null, xff: "192.0.2.7:51234", trust: 1, ip: "192.0.2.7" },
  ])("peer $peer, X-Forwarded-For $xff, trustProxy $trust → $ip", ({ peer, xff, trust, ip }) => {
    expect(clientAddress(peer, xff, trust)).toBe(ip);
  });

  // The address is sent in core's canonical form (canonicalIp), whatever notation the socket or header used.
  it.each([
    ["::1", "::1"],
    ["::FFFF:10.0.0.1", "10.0.0.1"],
    [" 192.0.2.1 ", "192.0.2.1"],
    ["fe80::1", "fe80::1"],
    ["2001:DB8:0:0:0:0:0:1", "2001:db8::1"],
    ["[2001:db8:0::3]", "2001:db8::3"],
  ])("peer %j → %j", (input, output) => {
    expect(clientAddress(input, null, false)).toBe(output);
  });
});

describe("buildHit", () => {
  const settings = { domain: "example.com", keepQuery: false, trustProxy: false as const };
  it("maps a finished request to exactly the seven fields of the hit body", () => {
    expect(
      buildHit(settings, {
        method: "head",
        url: "/a?b=c",
        status: 304,
        userAgent: "ClaudeBot/1.0",
        referrer: undefined,
        peerAddress: "::ffff:127.0.0.1",
        forwardedFor: "6.6.6.6",
      }),
    ).toEqual({ domain: "example.com", method: "HEAD", path: "/a", status: 304, user_agent: "ClaudeBot/1.0", referrer: "", ip: "127.0.0.1" });
  });

  it("caps the user agent and referrer so one hit always fits a request body", () => {
    const hit = buildHit(settings, {
      method: "GET",
      url: "/",
      status: 200,
      userAgent: "x".repeat(10_000),
      referrer: "https://r.example/" + "y".repeat(10_000),
      peerAddress: "127.0.0.1",
      forwardedFor: null,
    });
    expect(hit!.user_agent).toHaveLength(MAX_USER_AGENT_CHARS);
    expect(hit!.referrer).toHaveLength(MAX_REFERRER_CHARS);
  });
});

describe("requests the collector would refuse are not reported", () => {
  const settings = { domain: "example.com", keepQuery: false, trustProxy: false as const };
  const base: FinishedRequest = { method: "GET", url: "/", status: 200, userAgent: "x", referrer: null, peerAddress: "127.0.0.1", forwardedFor: null };
  it.each([
    { method: "GET", status: 200, reported: true },
    { method: "propfind", status: 207, reported: true },
    { method: "BASELINE-CONTROL", status: 200, reported: true },
    { method: "A-METHOD-LONGER-THAN-16", status: 200, reported: false },
    { method: "GET /x", status: 200, reported: false },
    { method: "GET", status: 99, reported: false },
    { method: "GET", status: 600, reported: false },
    { method: "GET", status: 999, reported: false },
  ])("$method $status → reported: $reported", ({ method, status, reported }) => {
    expect(buildHit(settings, { ...base, method, status }) !== undefined).toBe(reported);
  });
});
