import { describe, expect, it } from "vitest";
import { ACTORS, buildManifest, CLASSIFIER_DATA_VERSION, DEFAULT_COUNTRY_DATABASE, dataSources, type ManifestConfig } from "../src/index.ts";

const site = { domain: "example.com", retention_days: 395 };

describe("buildManifest", () => {
  it.each<{ why: string; config: ManifestConfig }>([
    { why: "default configuration", config: { city: false, countryDatabase: DEFAULT_COUNTRY_DATABASE } },
    { why: "city on", config: { city: true, countryDatabase: DEFAULT_COUNTRY_DATABASE } },
    { why: "no country database", config: { city: false, countryDatabase: null } },
  ])("keys and privacy invariants hold: $why", ({ config }) => {
    const manifest = buildManifest(site, config);
    expect(Object.keys(manifest)).toEqual([
      "version",
      "site",
      "cookies",
      "ip_stored",
      "local_storage",
      "fingerprinting",
      "cross_site_tracking",
      "retention_days",
      "city",
      "uniques",
      "collected",
      "not_collected",
      "actors",
      "classifier_data_version",
      "country_data",
    ]);
    expect(manifest).toMatchObject({
      version: 1,
      site: "example.com",
      cookies: false,
      ip_stored: false,
      local_storage: false,
      fingerprinting: false,
      cross_site_tracking: false,
      retention_days: 395,
      city: config.city,
      country_data: config.countryDatabase,
    });
    expect(manifest.uniques.formula).toBe("SHA-256(daily_salt || site_id || ip || user_agent)");
    expect(manifest.uniques.salt_rotation).toContain("00:00 UTC");
    expect(manifest.uniques.time_zone).toMatch(/one UTC day/);
    expect(manifest.uniques.imported_history).toMatch(/no IP address.*never stored/);
    expect(manifest.actors.map((a) => a.label)).toEqual([...ACTORS]);
    for (const actor of manifest.actors) expect(actor.meaning.length).toBeGreaterThan(10);
    expect(JSON.parse(JSON.stringify(manifest))).toEqual(manifest);
    // The classifier data version is the date of the newest table source.
    expect(manifest.classifier_data_version).toBe(CLASSIFIER_DATA_VERSION);
    expect(manifest.classifier_data_version).toBe(Object.values(dataSources).map((s) => s.date).sort().at(-1));
  });

  it("lists city and country only when they are collected", () => {
    const fields = (config: ManifestConfig) => buildManifest(site, config).collected.map((f) => f.field);
    expect(fields({ city: false, countryDatabase: DEFAULT_COUNTRY_DATABASE })).toContain("country");
    expect(fields({ city: false, countryDatabase: DEFAULT_COUNTRY_DATABASE })).not.toContain("city");
    expect(fields({ city: true, countryDatabase: DEFAULT_COUNTRY_DATABASE })).toContain("city");
    expect(fields({ city: false, countryDatabase: null })).not.toContain("country");
    expect(buildManifest(site, { city: false, countryDatabase: null }).not_collected.join(" ")).toContain("city");
    expect(buildManifest(site, { city: true, countryDatabase: null }).not_collected.join(" ")).not.toContain("city");
  });

  it("states what is never collected", () => {
    const text = buildManifest(site, { city: false, countryDatabase: DEFAULT_COUNTRY_DATABASE }).not_collected.join("\n");
    for (const item of ["cookies", "IP addresses", "fingerprints", "local storage", "cross-site or cross-device identity", "after 00:00 UTC"]) {
      expect(text).toContain(item);
    }
  });

  it("the default country database carries its CC BY 4.0 attribution to the NRO", () => {
    expect(DEFAULT_COUNTRY_DATABASE).toMatchObject({ name: "@ip-location-db/geo-whois-asn-country-mmdb", licence: "CC BY 4.0" });
    expect(DEFAULT_COUNTRY_DATABASE.attribution).toContain("https://www.nro.net/");
    expect(DEFAULT_COUNTRY_DATABASE.attribution).toContain("Regional Internet Registries");
  });
});
