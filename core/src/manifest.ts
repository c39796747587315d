// The public collection manifest (SPEC "Collection manifest", DESIGN "Manifest"): what the service collects for a
// site and what it does not. It must always be true of what the code does, so every field here names a behaviour
// that a test in core or gateway pins down; change the code and this together.

import { CLASSIFIER_DATA_VERSION } from "./classify/tables.ts";
import { ACTORS, type Actor } from "./types.ts";

export const MANIFEST_VERSION = 1;

export const VISITOR_HASH_FORMULA = "SHA-256(daily_salt || site_id || ip || user_agent)";

export interface ManifestSite {
  readonly domain: string;
  readonly retention_days: number;
}

export interface CountryDatabase {
  readonly name: string;
  readonly licence: string;
  readonly attribution: string;
}

export interface ManifestConfig {
  /** City lookup is off by default (SPEC: city is optional). */
  readonly city: boolean;
  /** The IP-to-country database in use; null when country lookup is off. */
  readonly countryDatabase: CountryDatabase | null;
}

/** The database DESIGN chooses, with the attribution its CC BY 4.0 licence requires (text from the package README and NRO_LICENSE). */
export const DEFAULT_COUNTRY_DATABASE: CountryDatabase = {
  name: "@ip-location-db/geo-whois-asn-country-mmdb",
  licence: "CC BY 4.0",
  attribution:
    "IP-to-country data from ip-location-db (https://github.com/sapics/ip-location-db), built from the WHOIS and ASN " +
    "data of the five Regional Internet Registries (AFRINIC, APNIC, ARIN, LACNIC, RIPE NCC); data source licensed " +
    "under CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/) by the Number Resource Organization (https://www.nro.net/).",
};

export const ACTOR_MEANINGS: Readonly<Record<Actor, string>> = {
  human: "a browser visitor",
  human_via_ai: "a visitor who arrived from an AI assistant (its referrer, utm_source or in-app browser)",
  ai_crawler: "an AI training or AI search crawler fetching on its own schedule",
  ai_agent: "a fetch triggered by a user of an AI product, or a headless or automated browser",
  bot: "other automation: search engines, monitors, link previews, feed readers, HTTP libraries",
};

export interface ManifestField {
  readonly field: string;
  readonly description: string;
}

export interface Manifest {
  readonly version: number;
  readonly site: string;
  readonly cookies: false;
  readonly ip_stored: false;
  readonly local_storage: false;
  readonly fingerprinting: false;
  readonly cross_site_tracking: false;
  readonly retention_days: number;
  readonly city: boolean;
  readonly uniques: {
    readonly formula: string;
    readonly salt_rotation: string;
    readonly past_salts: string;
    readonly ip: string;
    readonly returning_visitors: string;
    readonly time_zone: string;
    readonly imported_history: string;
  };
  readonly collected: readonly ManifestField[];
  readonly not_collected: readonly string[];
  readonly actors: readonly { readonly label: Actor; readonly meaning: string }[];
  /** The date of the newest source of the actor classifier's tables: how fresh the labels are. */
  readonly classifier_data_version: string;
  readonly country_data: CountryDatabase | null;
}

export function buildManifest(site: ManifestSite, config: ManifestConfig): Manifest {
  const collected: ManifestField[] = [
    { field: "page", description: "the path of the page URL; query string and fragment are removed" },
    { field: "hostname", description: "the hostname of the page" },
    { field: "referrer_host", description: "the host of the referring page only, never its full URL; none when the referrer is this site" },
    { field: "source", description: "the traffic source and channel derived from the referrer host and UTM parameters" },
    { field: "utm", description: "utm_source, utm_medium, utm_campaign, utm_term and utm_content from the page URL" },
    ...(config.countryDatabase === null
      ? []
      : [{ field: "country", description: "country looked up from the IP address at receipt; the IP address is then discarded" }]),
    ...(config.city ? [{ field: "city", description: "city looked up from the IP address at receipt; the IP address is then discarded" }] : []),
    { field: "device", description: "device class (desktop, mobile, tablet, other), browser name and OS name, without versions" },
    { field: "screen_width", description: "the screen width in pixels" },
    { field: "event", description: "event name and its props; props must be non-identifying and values that look like e-mail addresses are dropped; an e-mail address in a page path, event name or UTM value is replaced by \"(email)\"" },
    { field: "actor", description: "one of the actor labels below, with the rule that decided it" },
    { field: "visitor_hash", description: `${VISITOR_HASH_FORMULA}, valid for one UTC day` },
    { field: "timestamp", description: "when the event or request happened" },
    { field: "server_request", description: "for server-side hits: HTTP method, path and response status" },
  ];
  const notCollected = [
    "cookies",
    "IP addresses (used at receipt for the country and the daily hash, then discarded; never stored or logged)",
    "fingerprints",
    "local storage (the script only reads the visitor's own svc_ignore opt-out flag, and never writes)",
    "visitor identity",
    "cross-site or cross-device identity",
    "whether a visitor returned after 00:00 UTC",
    "full referrer URLs",
    ...(config.city ? [] : ["city or any location more precise than the country"]),
  ];
  return {
    version: MANIFEST_VERSION,
    site: site.domain,
    cookies: false,
    ip_stored: false,
    local_storage: false,
    fingerprinting: false,
    cross_site_tracking: false,
    retention_days: site.retention_days,
    city: config.city,
    uniques: {
      formula: VISITOR_HASH_FORMULA,
      salt_rotation: "a new random salt per site at 00:00 UTC",
      past_salts: "deleted at rotation, so a past day's hashes can never be recomputed or linked to a later day",
      ip: "hashed together with the salt, then discarded",
      returning_visitors: "a visitor who returns on a later UTC day counts as a new visitor",
      time_zone: "reports' days follow the site's time zone, but a visitor is still one hash on one UTC day: seen before and after 00:00 UTC within one local day, a visitor counts twice",
      imported_history:
        "history imported from another tool stores no IP address; its visitor strings are hashed as SHA-256(import secret || UTC day || visitor), with a random secret per import that is never stored, so imported visitors link neither across days nor to any other visitor",
    },
    collected,
    not_collected: notCollected,
    actors: ACTORS.map((label) => ({ label, meaning: ACTOR_MEANINGS[label] })),
    classifier_data_version: CLASSIFIER_DATA_VERSION,
    country_data: config.countryDatabase,
  };
}
