import { describe, expect, it } from "vitest";
import { COUNTRY_CACHE_MAX, isReservedAddress, openCountryLookup } from "../src/geo/country.ts";
import { clientIp, parseTrustProxy } from "../src/ingest/client-ip.ts";
import { addressId } from "../src/ingest/siphash.ts";

describe("country lookup", () => {
  const country = openCountryLookup(null);
  const cases: [string, string | null][] = [
    ["81.2.69.142", "GB"],
    ["8.8.8.8", "US"],
    ["2001:4860:4860::8888", "US"],
    ["10.1.2.3", null],
    ["192.168.1.1", null],
    ["127.0.0.1", null],
    ["::1", null],
    ["fd00::1", null],
    ["not an ip", null],
  ];
  it.each(cases)("%s → %s", (ip, expected) => {
    expect(country(ip)).toBe(expected);
  });

  it("answers from its cache as from the file: again, and after the cache filled up and was emptied", () => {
    const fresh = openCountryLookup(null);
    const answers = () => cases.map(([ip]) => fresh(ip));
    const expected = cases.map(([, code]) => code);
    expect(answers()).toEqual(expected);
    expect(answers()).toEqual(expected);
    for (let i = 0; i <= COUNTRY_CACHE_MAX; i++) fresh(`${1 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}.1`);
    expect(answers()).toEqual(expected);
  });

  // /api/event hands the lookup the id it made of the address for the limiter (pipeline.ts): the same answers,
  // whether the id or the lookup itself filed the address first.
  it.each(cases)("%s → %s with the caller's address id, before and after a lookup without it", (ip, expected) => {
    const fresh = openCountryLookup(null);
    expect(fresh(ip, addressId(ip))).toBe(expected);
    expect(fresh(ip)).toBe(expected);
    expect(fresh(ip, addressId(ip))).toBe(expected);
  });

  it("names its data source and licence", () => {
    expect(country.database).toMatchObject({ licence: "CC BY 4.0" });
  });
});

describe("reserved ranges have no country", () => {
  it.each([
    ["0.1.2.3", true], ["10.0.0.1", true], ["100.64.0.1", true], ["100.127.255.255", true], ["100.128.0.1", false],
    ["127.0.0.1", true], ["169.254.1.1", true], ["172.15.0.1", false], ["172.16.0.1", true], ["172.31.255.1", true],
    ["172.32.0.1", false], ["192.0.0.8", true], ["192.0.2.5", true], ["192.168.0.1", true], ["198.18.0.1", true],
    ["198.51.100.7", true], ["203.0.113.9", true], ["224.0.0.1", true], ["255.255.255.255", true], ["8.8.8.8", false],
    ["::", true], ["::1", true], ["fe80::1", true], ["fc00::1", true], ["fd12:3456::1", true], ["ff02::1", true],
    ["2001:db8::1", true], ["::ffff:10.0.0.1", true], ["::ffff:8.8.8.8", false], ["2a00:1450::1", false], ["bogus", true],
  ])("%s → %s", (ip, reserved) => {
    expect(isReservedAddress(ip)).toBe(reserved);
  });
});

describe("client address behind proxies", () => {
  it.each([
    ["no proxy trusted: the peer, whatever the header says", "127.0.0.1", "203.0.113.7", 0, "127.0.0.1"],
    ["one proxy: the entry it appended", "10.0.0.2", "198.51.100.1, 203.0.113.7", 1, "203.0.113.7"],
    ["two hops (CDN + nginx)", "10.0.0.2", "198.51.100.9, 104.16.0.1", 2, "198.51.100.9"],
    ["more hops trusted than present: the leftmost", "10.0.0.2", "198.51.100.9", 5, "198.51.100.9"],
    ["IPv4-mapped peer", "::ffff:81.2.69.142", undefined, 0, "81.2.69.142"],
    ["IPv6 is lower-cased", "2001:DB8::1", undefined, 0, "2001:db8::1"],
    ["address with a port from a proxy", "10.0.0.2", "203.0.113.7:51234", 1, "203.0.113.7"],
    ["garbage in the header", "10.0.0.2", "not-an-ip", 1, null],
  ])("%s", (_name, peer, xff, hops, expected) => {
    expect(clientIp(peer, xff, parseTrustProxy(String(hops))!)).toBe(expected);
  });
});
