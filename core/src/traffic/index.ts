// Referrer host, source name, channel and UTM of one event. The rules are written out in core/README.md ("Traffic sources").

import type { Channel, Utm } from "../types.ts";
import { KNOWN_SOURCES, type KnownSource } from "./known-sources.ts";
import { normaliseHost, referrerHost } from "./url-parts.ts";

export { normaliseHost, pagePath, referrerHost, urlHostname, utmFromUrl } from "./url-parts.ts";
export { KNOWN_SOURCES, type KnownChannel, type KnownSource } from "./known-sources.ts";

export interface TrafficSource {
  /** Normalised referrer host (or Android package id); null for none, invalid, or the site's own host. */
  readonly referrer_host: string | null;
  /** Display name ("Google", "ChatGPT"), the utm_source as sent, or the bare referrer host; null for direct. */
  readonly source: string | null;
  readonly channel: Channel;
}

export interface TrafficInput {
  readonly referrer: string | null;
  /** The page's host (`h`, or the host of `u`, or the site domain); a referrer on it is not a source. */
  readonly pageHost: string | null;
  readonly utm: Utm;
  /** The assistant the classifier named when the actor is human_via_ai; null otherwise. */
  readonly assistant: string | null;
}

const byHost = new Map<string, KnownSource>();
const byBrand = new Map<string, KnownSource>();
const byApp = new Map<string, KnownSource>();
const byUtm = new Map<string, KnownSource>();

function index(map: Map<string, KnownSource>, key: string, source: KnownSource, table: string): void {
  const existing = map.get(key);
  if (existing !== undefined && existing !== source) {
    throw new Error(`known-sources: ${table} key "${key}" is listed for both ${existing.name} and ${source.name}`);
  }
  map.set(key, source);
}

for (const source of KNOWN_SOURCES) {
  for (const host of source.hosts ?? []) index(byHost, host, source, "host");
  for (const brand of source.brands ?? []) index(byBrand, brand, source, "brand");
  for (const app of source.apps ?? []) index(byApp, app, source, "app");
  for (const alias of [source.name.toLowerCase(), ...(source.utm ?? [])]) index(byUtm, alias, source, "utm");
}

// The suffixes a national search/social site uses: google.com, google.de, google.co.uk, google.com.br.
const COUNTRY_SUFFIX = /^(?:com|[a-z]{2}|(?:co|com)\.[a-z]{2})$/;

/** The known source for a normalised host or Android package id; null when it is not in the tables. */
export function lookupSource(host: string): KnownSource | null {
  const app = byApp.get(host);
  if (app !== undefined) return app;
  // Most specific first, so mail.google.com (Gmail) wins over any broader entry; stops before the bare TLD.
  let h = host;
  for (;;) {
    const hit = byHost.get(h);
    if (hit !== undefined) return hit;
    const dot = h.indexOf(".");
    if (dot === -1) break;
    h = h.slice(dot + 1);
    if (!h.includes(".")) break;
  }
  const dot = host.indexOf(".");
  if (dot > 0) {
    const brand = byBrand.get(host.slice(0, dot));
    if (brand !== undefined && COUNTRY_SUFFIX.test(host.slice(dot + 1))) return brand;
  }
  return null;
}

/** The known source a utm_source names ("google", "fb", "facebook.com", "www.reddit.com"); null otherwise. */
export function lookupUtmSource(utmSource: string): KnownSource | null {
  const value = normaliseHost(utmSource);
  if (value === null) return null;
  return byUtm.get(value) ?? lookupSource(value);
}

// utm_medium conventions, after Google Analytics' default channel grouping (the rules most UTM builders follow).
const PAID_MEDIUM = /^(?:.*cp.*|ppc|paid.*|retargeting|remarketing|display|banner|sponsored|affiliates?|ads?)$/;
const EMAIL_MEDIUM = /^(?:e[-_ ]?mail|newsletter)$/;
const SOCIAL_MEDIUM = /^(?:social|social[-_ ](?:network|media)|sm)$/;
const SEARCH_MEDIUM = /^organic$/;
const EMAIL_SOURCE = /^(?:e[-_ ]?mail|newsletter)$/;

/** The channel a utm_medium states on its own; null when it says nothing we recognise. */
export function mediumChannel(utmMedium: string | null): Channel | null {
  if (utmMedium === null) return null;
  const medium = utmMedium.trim().toLowerCase();
  if (medium === "") return null;
  if (PAID_MEDIUM.test(medium)) return "paid";
  if (EMAIL_MEDIUM.test(medium)) return "email";
  if (SOCIAL_MEDIUM.test(medium)) return "social";
  if (SEARCH_MEDIUM.test(medium)) return "search";
  if (medium === "referral") return "referral";
  return null;
}

export function trafficSource(input: TrafficInput): TrafficSource {
  let host = referrerHost(input.referrer);
  if (host !== null && input.pageHost !== null && host === normaliseHost(input.pageHost)) host = null;
  if (input.assistant !== null) return { referrer_host: host, source: input.assistant, channel: "ai_assistant" };

  const fromHost = host === null ? null : lookupSource(host);
  const utmSource = input.utm.utm_source === null ? "" : input.utm.utm_source.trim();
  let source: string | null;
  let sourceChannel: Channel;
  if (utmSource !== "") {
    // An explicit utm_source is the link author's statement and names the source even when a referrer exists.
    const fromUtm = lookupUtmSource(utmSource);
    source = fromUtm?.name ?? utmSource;
    sourceChannel = fromUtm?.channel ?? (EMAIL_SOURCE.test(utmSource.toLowerCase()) ? "email" : (fromHost?.channel ?? "referral"));
  } else if (host !== null) {
    source = fromHost?.name ?? host;
    sourceChannel = fromHost?.channel ?? "referral";
  } else {
    source = null;
    sourceChannel = "direct";
  }
  return { referrer_host: host, source, channel: mediumChannel(input.utm.utm_medium) ?? sourceChannel };
}
