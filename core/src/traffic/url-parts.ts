// Hand-rolled URL slicing for the per-event hot path: `new URL()` costs ~0.3 µs and allocates an object per call,
// while every field we need is a substring of the raw string. `new URL()` remains the fallback for hosts that are
// not plain ASCII (IDN, IPv6 literals, percent-encoding), where its normalisation is worth the cost.
//
// Scanned by char codes rather than matched by regular expressions: the page URL's path and host and the
// referrer's host were three `exec` calls an event, each a match array with its captured substrings — a tenth
// of what the gateway allocated per event (a sampling heap profile at full ingest load, gateway README "Eighth
// pass").

import type { Utm } from "../types.ts";
import { LIMITS } from "../schema/limits.ts";
import { storedText } from "../schema/stored-text.ts";

const ANDROID_PACKAGE = /^[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+$/;

/** Char codes the URL scanners here and the assistant signals (classify/assistant-signals.ts) compare against. */
export const CH_SLASH = 47;
export const CH_COLON = 58;
export const CH_QUESTION = 63;
export const CH_HASH = 35;
const CH_DOT = 46;
const CH_HYPHEN = 45;

const isLetter = (c: number): boolean => (c | 32) >= 97 && (c | 32) <= 122;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isHexDigit = (c: number): boolean => isDigit(c) || ((c | 32) >= 97 && (c | 32) <= 102);
/** A letter, digit or hyphen: what a label of a plain DNS name is made of. */
const isLdh = (c: number): boolean => isLetter(c) || isDigit(c) || c === CH_HYPHEN;

/**
 * Where the scheme of an absolute URL ends (the index of its ":", followed by "//"), or -1: a letter, then letters,
 * digits, "+", "." or "-" (RFC 3986's scheme).
 */
function schemeEnd(url: string): number {
  if (!isLetter(url.charCodeAt(0))) return -1;
  let i = 1;
  for (; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (!(isLetter(c) || isDigit(c) || c === 43 /* + */ || c === CH_DOT || c === CH_HYPHEN)) break;
  }
  return url.charCodeAt(i) === CH_COLON && url.charCodeAt(i + 1) === CH_SLASH && url.charCodeAt(i + 2) === CH_SLASH ? i : -1;
}

/** Where the authority that starts at `start` ends: at the first "/", "?" or "#", or the end of the string. */
function authorityEnd(url: string, start: number): number {
  let i = start;
  for (; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === CH_SLASH || c === CH_QUESTION || c === CH_HASH) break;
  }
  return i;
}

/** Whether `url` starts with `scheme` (lowercase letters and "-") in any case, up to `end`. */
function schemeIs(url: string, end: number, scheme: string): boolean {
  if (end !== scheme.length) return false;
  // Within a scheme's characters, `| 32` lowercases letters and leaves digits, "+", "." and "-" as they are.
  for (let i = 0; i < end; i++) if ((url.charCodeAt(i) | 32) !== scheme.charCodeAt(i)) return false;
  return true;
}

/**
 * Index just past `http://` or `https://` (any case) at the start of `s`, or -1. Checked by char codes so the
 * common referrer needs no lowercased copy.
 */
export function afterHttpScheme(s: string): number {
  if (s.length < 8) return -1;
  if ((s.charCodeAt(0) | 32) !== 104 || (s.charCodeAt(1) | 32) !== 116 || (s.charCodeAt(2) | 32) !== 116 || (s.charCodeAt(3) | 32) !== 112) {
    return -1;
  }
  let i = 4;
  if ((s.charCodeAt(i) | 32) === 115) i++;
  if (s.charCodeAt(i) !== CH_COLON || s.charCodeAt(i + 1) !== CH_SLASH || s.charCodeAt(i + 2) !== CH_SLASH) return -1;
  return i + 3;
}

/** The path of an absolute URL or of a request path: no query, no fragment, "/" when empty. Not decoded or resolved. */
export function pagePath(url: string): string {
  let start = 0;
  if (url.charCodeAt(0) !== CH_SLASH) {
    const scheme = schemeEnd(url);
    if (scheme < 0) return "/";
    start = authorityEnd(url, scheme + 3);
  }
  let end = url.length;
  for (let i = start; i < end; i++) {
    const c = url.charCodeAt(i);
    if (c === 63 /* ? */ || c === 35 /* # */) end = i;
  }
  return end > start ? url.slice(start, end) : "/";
}

/**
 * Whether the last label of `host` is one WHATWG's host parser reads as an IPv4 part ("ends in a number"): decimal
 * digits, or "0x" and hex digits. A loop from the end, where the regex it replaces (`/(?:^|\.)(?:\d+|0x[0-9a-f]*)$/i`)
 * was 0.2 % of the gateway's perf samples at full ingest load; most hosts end in a letter outside a–f and stop at once.
 */
function endsInNumber(host: string): boolean {
  const last = host.length - 1;
  let i = last;
  while (i >= 0 && isDigit(host.charCodeAt(i))) i--;
  if (i < last && (i < 0 || host.charCodeAt(i) === CH_DOT)) return true;
  i = last;
  while (i >= 0 && isHexDigit(host.charCodeAt(i))) i--;
  // "0x" with hex digits, or none, after it: the "x" at i, the "0" before it, and the label's start before that.
  return i >= 1 && (host.charCodeAt(i) | 32) === 120 /* x */ && host.charCodeAt(i - 1) === 48 && (i === 1 || host.charCodeAt(i - 2) === CH_DOT);
}

/**
 * `new URL(url).hostname` (lowercase), or null when `url` does not parse. Plain domain names are sliced out of
 * the string (0.13 µs against 0.29 µs for the URL object in isolation; the URL object was 0.9 µs of each event
 * without `h` at full ingest load); anything the URL parser would rewrite or refuse (IPv4 forms, punycode
 * `xn--` labels, ports, userinfo, IDN, percent-encoding) still goes through `new URL()`.
 */
export function urlHostname(url: string): string | null {
  const host = ldhHttpHost(url);
  if (host !== null && !endsInNumber(host) && !host.startsWith("xn--") && !host.includes(".xn--")) return host;
  if (!URL.canParse(url)) return null;
  return new URL(url).hostname.toLowerCase();
}

/**
 * The host of an http(s) URL whose authority is only LDH labels (no userinfo, port, trailing dot or empty label),
 * lowercased, or null for any other URL.
 */
function ldhHttpHost(url: string): string | null {
  const start = afterHttpScheme(url);
  if (start < 0) return null;
  let i = start;
  // A label: one LDH character or more; labels are separated by single dots.
  for (;;) {
    const labelStart = i;
    while (i < url.length && isLdh(url.charCodeAt(i))) i++;
    if (i === labelStart) return null;
    if (url.charCodeAt(i) !== CH_DOT) break;
    i++;
  }
  if (i < url.length) {
    const c = url.charCodeAt(i);
    if (c !== CH_SLASH && c !== CH_QUESTION && c !== CH_HASH) return null;
  }
  return url.slice(start, i).toLowerCase();
}

/**
 * A host as the tables compare it: lowercase, port dropped, one trailing dot and one leading "www." removed.
 * Accepts a bare host ("Example.com:8080") as the page's `h` or the site domain carries it.
 */
export function normaliseHost(host: string): string | null {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[")) return h.length > 2 && h.includes("]") ? h.slice(0, h.indexOf("]") + 1) : null;
  const colon = h.indexOf(":");
  if (colon !== -1) h = h.slice(0, colon);
  if (h.endsWith(".")) h = h.slice(0, -1);
  if (h.startsWith("www.") && h.length > 4) h = h.slice(4);
  if (h === "" || h.startsWith(".") || h.includes("..")) return null;
  return h;
}

/**
 * Host of an http(s) referrer, normalised as `normaliseHost`; for `android-app://<package>/…` the package id.
 * null for no referrer, another scheme, or a referrer that is not a URL.
 */
export function referrerHost(referrer: string | null): string | null {
  if (referrer === null || referrer === "") return null;
  const url = referrer.trim();
  const scheme = schemeEnd(url);
  if (scheme < 0) return null;
  let start = scheme + 3;
  const end = authorityEnd(url, start);
  if (schemeIs(url, scheme, "android-app")) {
    const pkg = url.slice(start, end).toLowerCase();
    return ANDROID_PACKAGE.test(pkg) ? pkg : null;
  }
  if (afterHttpScheme(url) < 0) return null;
  // Userinfo ends at the authority's last "@" (a loop: `lastIndexOf` with a position runs in V8's runtime).
  for (let i = end - 1; i >= start; i--) {
    if (url.charCodeAt(i) === 64 /* @ */) {
      start = i + 1;
      break;
    }
  }
  const host = plainHostBeforePort(url, start, end);
  if (host !== null) return normaliseHost(host);
  if (!URL.canParse(url)) return null;
  const hostname = new URL(url).hostname;
  return hostname === "" ? null : normaliseHost(hostname);
}

/** `url[start, end)` as `host[:digits]` with the host of letters, digits, "." and "-": the host, else null. */
function plainHostBeforePort(url: string, start: number, end: number): string | null {
  let i = start;
  for (; i < end; i++) {
    const c = url.charCodeAt(i);
    if (!(isLdh(c) || c === CH_DOT)) break;
  }
  if (i === start) return null;
  const hostEnd = i;
  if (i < end) {
    if (url.charCodeAt(i) !== CH_COLON) return null;
    for (i++; i < end; i++) if (!isDigit(url.charCodeAt(i))) return null;
  }
  return url.slice(start, hostEnd);
}

const NO_UTM: Utm = Object.freeze({
  utm_source: null,
  utm_medium: null,
  utm_campaign: null,
  utm_term: null,
  utm_content: null,
});

function decodeQueryComponent(raw: string): string {
  const spaced = raw.includes("+") ? raw.replace(/\+/g, " ") : raw;
  if (!spaced.includes("%")) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced; // a stray "%" is kept literally, as browsers show it
  }
}

function utmValue(raw: string): string | null {
  // `%00` decodes to U+0000, which PostgreSQL cannot store (decodeURIComponent refuses lone surrogates itself).
  const value = storedText(decodeQueryComponent(raw)).trim();
  if (value === "") return null;
  return value.length > LIMITS.utm ? value.slice(0, LIMITS.utm) : value;
}

/** utm_* parameters from a URL's query string: first occurrence wins, "+" and %XX decoded, trimmed, cut to 256 chars. */
export function utmFromUrl(url: string): Utm {
  const hash = url.indexOf("#");
  const end = hash === -1 ? url.length : hash;
  const q = url.indexOf("?");
  if (q === -1 || q > end) return NO_UTM; // a "?" inside the fragment starts no query
  const query = url.slice(q + 1, end);
  if (!query.includes("utm_")) return NO_UTM;
  let utm_source: string | null = null;
  let utm_medium: string | null = null;
  let utm_campaign: string | null = null;
  let utm_term: string | null = null;
  let utm_content: string | null = null;
  for (const pair of query.split("&")) {
    if (!pair.startsWith("utm_")) continue;
    const eq = pair.indexOf("=");
    if (eq === -1) continue;
    const value = pair.slice(eq + 1);
    switch (pair.slice(0, eq)) {
      case "utm_source":
        utm_source ??= utmValue(value);
        break;
      case "utm_medium":
        utm_medium ??= utmValue(value);
        break;
      case "utm_campaign":
        utm_campaign ??= utmValue(value);
        break;
      case "utm_term":
        utm_term ??= utmValue(value);
        break;
      case "utm_content":
        utm_content ??= utmValue(value);
        break;
    }
  }
  return { utm_source, utm_medium, utm_campaign, utm_term, utm_content };
}
