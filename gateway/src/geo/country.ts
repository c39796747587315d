// Country from IP with maxmind. Default data: @ip-location-db/geo-whois-asn-country-mmdb
// (CC BY 4.0, by the NRO / Regional Internet Registries). An operator may point SVC_GEOIP_PATH at a
// GeoLite2-Country file instead; both record shapes are read. Lookups cost about 1 µs.
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import { Reader, type Response } from "maxmind";

export interface CountryLookup {
  (ip: string): string | null;
  readonly database: { name: string; licence: string; attribution: string };
}

type CountryRecord = { country_code?: string; country?: { iso_code?: string }; registered_country?: { iso_code?: string } };

const DEFAULT_DB = "@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb";

// Private, loopback, link-local, CGNAT, documentation and other reserved ranges have no country.
const reserved = new net.BlockList();
for (const [a, p] of [["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12], ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["198.51.100.0", 24], ["203.0.113.0", 24], ["224.0.0.0", 3]] as const)
  reserved.addSubnet(a, p, "ipv4");
for (const [a, p] of [["::", 127], ["fc00::", 7], ["fe80::", 10], ["2001:db8::", 32], ["ff00::", 8]] as const) reserved.addSubnet(a, p, "ipv6");

export function isReservedAddress(ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 0) return true;
  return reserved.check(ip, family === 4 ? "ipv4" : "ipv6");
}

export function openCountryLookup(customPath: string | null): CountryLookup {
  const file = customPath ?? createRequire(import.meta.url).resolve(DEFAULT_DB);
  const reader = new Reader<Response>(fs.readFileSync(file));
  const lookup = ((ip: string) => {
    if (isReservedAddress(ip)) return null;
    const r = reader.get(ip) as CountryRecord | null;
    const code = r?.country_code ?? r?.country?.iso_code ?? r?.registered_country?.iso_code;
    return code && code.length === 2 ? code.toUpperCase() : null;
  }) as CountryLookup;
  Object.defineProperty(lookup, "database", {
    value: customPath
      ? { name: reader.metadata.databaseType, licence: "as provided by the operator", attribution: "operator-supplied database" }
      : { name: "@ip-location-db/geo-whois-asn-country-mmdb", licence: "CC BY 4.0", attribution: "IP-to-country data by the NRO (Number Resource Organization) and the Regional Internet Registries, via ip-location-db" },
  });
  return lookup;
}
