// The two non-UA signals that name an assistant: the referrer URL and the landing page's utm_source.
import { aiUtmValues, assistantReferrers } from "./tables.ts";

const byHost = new Map<string, string>();
const byHostPath = new Map<string, { readonly prefix: string; readonly name: string }[]>();
const byAndroidApp = new Map<string, string>();
for (const r of assistantReferrers) {
  if (r.match === "host") byHost.set(r.host, r.name);
  else if (r.match === "android-app") byAndroidApp.set(r.host, r.name);
  else {
    const rules = byHostPath.get(r.host) ?? [];
    rules.push({ prefix: r.pathPrefix!.toLowerCase(), name: r.name });
    byHostPath.set(r.host, rules);
  }
}

const CH_SLASH = 47;
const CH_COLON = 58;
const CH_QUESTION = 63;
const CH_HASH = 35;

/**
 * Index just past `http://` or `https://` (any case) at the start of `s`, or -1. Checked by char codes so the
 * common referrer needs no lowercased copy.
 */
function afterHttpScheme(s: string): number {
  if (s.length < 8) return -1;
  if ((s.charCodeAt(0) | 32) !== 104 || (s.charCodeAt(1) | 32) !== 116 || (s.charCodeAt(2) | 32) !== 116 || (s.charCodeAt(3) | 32) !== 112) {
    return -1;
  }
  let i = 4;
  if ((s.charCodeAt(i) | 32) === 115) i++;
  if (s.charCodeAt(i) !== CH_COLON || s.charCodeAt(i + 1) !== CH_SLASH || s.charCodeAt(i + 2) !== CH_SLASH) return -1;
  return i + 3;
}

/**
 * The host of a plain `http(s)://host[:port]` prefix, lowercased, or undefined when the URL needs the full
 * WHATWG parser (user info, percent-escapes, IDN, IPv6, backslashes, surrounding spaces). Referrers are
 * almost always plain, and `new URL` costs about a microsecond per call, so it is only the fallback.
 */
function plainHttpHost(s: string): string | undefined {
  const start = afterHttpScheme(s);
  if (start < 0) return undefined;
  let end = start;
  let portAt = -1;
  for (; end < s.length; end++) {
    const c = s.charCodeAt(end);
    if (c === CH_SLASH || c === CH_QUESTION || c === CH_HASH) break;
    if (c === CH_COLON) {
      if (portAt >= 0) return undefined;
      portAt = end;
      continue;
    }
    const isAlnum = (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
    if (portAt >= 0 ? !(c >= 48 && c <= 57) : !(isAlnum || c === 45 || c === 46)) return undefined;
  }
  // A trailing space or control character would be stripped by the URL parser; leave that to it.
  if (s.charCodeAt(s.length - 1) <= 32) return undefined;
  const host = s.slice(start, portAt >= 0 ? portAt : end);
  return host === "" ? undefined : host.toLowerCase();
}

const stripWww = (host: string): string => (host.startsWith("www.") ? host.slice(4) : host);

function nameForHttpUrl(host: string, pathname: () => string): string | null {
  const h = stripWww(host);
  const name = byHost.get(h);
  if (name !== undefined) return name;
  const pathRules = byHostPath.get(h);
  if (pathRules === undefined) return null;
  // Path rules match at or below the prefix (`/i/grok`, `/i/grok/…`), case-insensitively like the host.
  const path = pathname().toLowerCase();
  for (const rule of pathRules) {
    if (path === rule.prefix || path.startsWith(`${rule.prefix}/`)) return rule.name;
  }
  return null;
}

function parseUrl(s: string): URL | null {
  try {
    return new URL(s);
  } catch {
    return null;
  }
}

/**
 * The assistant a referrer names, or null. The referrer must be an http(s) URL whose host (lowercased, port
 * ignored, one leading `www.` stripped) equals an assistant host; subdomains and look-alikes do not count.
 * `x.com` counts only with a path at or below `/i/grok`; `android-app://com.openai.chatgpt/` is ChatGPT.
 */
export function assistantFromReferrer(referrer: string | null): string | null {
  // The type says string | null; a JS caller passing undefined or a number gets "no referrer", not a crash.
  if (typeof referrer !== "string" || referrer === "") return null;
  const host = plainHttpHost(referrer);
  if (host !== undefined) {
    return nameForHttpUrl(host, () => {
      const url = parseUrl(referrer);
      return url === null ? "" : url.pathname;
    });
  }
  const url = parseUrl(referrer);
  if (url === null) return null;
  if (url.protocol === "http:" || url.protocol === "https:") {
    return nameForHttpUrl(url.hostname, () => url.pathname);
  }
  if (url.protocol === "android-app:") return byAndroidApp.get(url.hostname.toLowerCase()) ?? null;
  return null;
}

/** The assistant a `utm_source` names, or null: exact match after trimming, lowercasing and one `www.` stripped. */
export function assistantFromUtmSource(utmSource: string | null): string | null {
  if (typeof utmSource !== "string") return null;
  return aiUtmValues.get(stripWww(utmSource.trim().toLowerCase())) ?? null;
}
