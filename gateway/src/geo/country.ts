// Country from IP with maxmind. Default data: @ip-location-db/geo-whois-asn-country-mmdb
// (CC BY 4.0, by the NRO / Regional Internet Registries). An operator may point SVC_GEOIP_PATH at a
// GeoLite2-Country file instead; both record shapes are read.
//
// A lookup in the file (the address parsed, ~30 tree levels walked, the record decoded) cost 3.3 µs per event
// at full ingest load, the largest single step of enrichment; the same addresses come back request after
// request, so answers are cached under the address's SipHash (ingest/siphash.ts `addressId`, a key made at boot and
// held in memory only: the cache holds no address, as the event limiter's buckets hold none), ~0.3 µs a hit.
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import { Reader, type Response } from "maxmind";
import { IdTable } from "../ingest/id-table.ts";
import { addressId } from "../ingest/siphash.ts";

export interface CountryLookup {
  /** `id` is `addressId(ip)` when the caller made it already (ingest/siphash.ts): the cache key. */
  (ip: string, id?: number): string | null;
  readonly database: { name: string; licence: string; attribution: string };
}

type CountryRecord = { country_code?: string; country?: { iso_code?: string }; registered_country?: { iso_code?: string } };

const DEFAULT_DB = "@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb";

// 50,000 answers fill 131,072 slots of 16 bytes: 2 MB. When full it is emptied rather than kept in
// recency order: reordering on every hit would cost what it saves, and refilling is one file lookup an address.
export const COUNTRY_CACHE_MAX = 50_000;

// Private, loopback, link-local, CGNAT, documentation, benchmarking, multicast and reserved ranges
// have no country. Checked on the string without allocating: this runs on every event (a
// net.BlockList check cost ~1 µs and two objects per call).
export function isReservedAddress(ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 0) return true;
  if (family === 4) {
    const dot1 = ip.indexOf(".");
    const dot2 = ip.indexOf(".", dot1 + 1);
    const a = Number(ip.slice(0, dot1));
    const b = Number(ip.slice(dot1 + 1, dot2));
    const c = Number(ip.slice(dot2 + 1, ip.indexOf(".", dot2 + 1)));
    return (
      a === 0 || a === 10 || a === 127 || a >= 224 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 192 && b === 0 && (c === 0 || c === 2)) ||
      (a === 198 && (b === 18 || b === 19)) ||
      (a === 198 && b === 51 && c === 100) ||
      (a === 203 && b === 0 && c === 113)
    );
  }
  const v6 = ip.toLowerCase();
  if (v6 === "::" || v6 === "::1") return true;
  if (v6.startsWith("::ffff:")) return isReservedAddress(v6.slice(7));
  const first = parseInt(v6.slice(0, v6.indexOf(":")) || "0", 16);
  return (
    (first & 0xfe00) === 0xfc00 || // fc00::/7 unique local
    (first & 0xffc0) === 0xfe80 || // fe80::/10 link-local
    (first & 0xff00) === 0xff00 || // ff00::/8 multicast
    v6.startsWith("2001:db8:") || // documentation
    first === 0 // ::/8 reserved (IPv4-compatible and friends)
  );
}

export function openCountryLookup(customPath: string | null): CountryLookup {
  const file = customPath ?? createRequire(import.meta.url).resolve(DEFAULT_DB);
  const reader = new Reader<Response>(fs.readFileSync(file));
  const fromFile = (ip: string): string | null => {
    if (isReservedAddress(ip)) return null;
    const r = reader.get(ip) as CountryRecord | null;
    const code = r?.country_code ?? r?.country?.iso_code ?? r?.registered_country?.iso_code;
    return code && code.length === 2 ? code.toUpperCase() : null;
  };
  // The cache is an IdTable (ingest/id-table.ts) of [id + 1, the answer's number in `answers` + 1].
  const cache = new IdTable(2, COUNTRY_CACHE_MAX);
  const answers: Array<string | null> = [];
  const answerNumbers = new Map<string | null, number>();
  const lookup = ((ip: string, known?: number) => {
    const id = known ?? addressId(ip);
    const at = cache.find(id);
    if (at >= 0) return answers[cache.data[at + 1]! - 1] ?? null;
    const code = fromFile(ip);
    let number = answerNumbers.get(code);
    if (number === undefined) {
      answerNumbers.set(code, (number = answers.length + 1));
      answers.push(code);
    }
    if (cache.size >= COUNTRY_CACHE_MAX) cache.clear();
    const filed = cache.add(id); // before reading `data`: adding may grow it
    cache.data[filed + 1] = number;
    return code;
  }) as CountryLookup;
  Object.defineProperty(lookup, "database", {
    value: customPath
      ? { name: reader.metadata.databaseType, licence: "as provided by the operator", attribution: "operator-supplied database" }
      : { name: "@ip-location-db/geo-whois-asn-country-mmdb", licence: "CC BY 4.0", attribution: "IP-to-country data by the NRO (Number Resource Organization) and the Regional Internet Registries, via ip-location-db" },
  });
  return lookup;
}
