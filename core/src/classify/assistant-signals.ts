// The two non-UA signals that name an assistant: the referrer URL and the landing page's utm_source. Both
// are read from the one assistant table (data/assistants.json): hosts, path-qualified hosts, query rules
// (AI answer modes of search engines), Android package ids and utm brand words.
import { aiUtmValues, assistants } from "./tables.ts";
import { CH_COLON, CH_HASH, CH_QUESTION, CH_SLASH, afterHttpScheme } from "../traffic/url-parts.ts";

const byHost = new Map<string, string>();
const byHostPath = new Map<string, { readonly prefix: string; readonly name: string }[]>();
// Query rules by exact host, and by brand for `<brand>.*` hosts (google.de, google.co.uk, …).
const byQueryHost = new Map<string, { readonly param: string; readonly value: string; readonly name: string }[]>();
const byQueryBrand = new Map<string, { readonly param: string; readonly value: string; readonly name: string }[]>();
const byAndroidApp = new Map<string, string>();
const push = <V>(map: Map<string, V[]>, key: string, value: V): void => {
  const rules = map.get(key);
  if (rules === undefined) map.set(key, [value]);
  else rules.push(value);
};
for (const a of assistants) {
  for (const h of a.hosts) byHost.set(h, a.name);
  for (const p of a.paths) push(byHostPath, p.host, { prefix: p.prefix, name: a.name });
  for (const q of a.queries) {
    const rule = { param: q.param, value: q.value, name: a.name };
    if (q.host.endsWith(".*")) push(byQueryBrand, q.host.slice(0, -2), rule);
    else push(byQueryHost, q.host, rule);
  }
  for (const app of a.androidApps) byAndroidApp.set(app, a.name);
}

// The suffixes a national search site uses (google.com, google.de, google.co.uk, google.com.br); the same
// shape the traffic-source tables accept for their brand entries.
const COUNTRY_SUFFIX = /^(?:com|[a-z]{2}|(?:co|com)\.[a-z]{2})$/;

function queryRulesFor(host: string): readonly { readonly param: string; readonly value: string; readonly name: string }[] | undefined {
  const exact = byQueryHost.get(host);
  if (exact !== undefined) return exact;
  const dot = host.indexOf(".");
  if (dot <= 0 || !COUNTRY_SUFFIX.test(host.slice(dot + 1))) return undefined;
  return byQueryBrand.get(host.slice(0, dot));
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

function nameForHttpUrl(host: string, referrer: string, url: () => URL | null): string | null {
  const h = stripWww(host);
  const name = byHost.get(h);
  if (name !== undefined) return name;
  const pathRules = byHostPath.get(h);
  // Query rules only matter when there is a query: `https://www.google.com/` (most search referrers, as
  // browsers cut them to the origin) needs no URL parse, which costs about a microsecond.
  const queryRules = referrer.includes("?") ? queryRulesFor(h) : undefined;
  if (pathRules === undefined && queryRules === undefined) return null;
  const parsed = url();
  if (parsed === null) return null;
  if (pathRules !== undefined) {
    // Path rules match at or below the prefix (`/i/grok`, `/i/grok/…`), case-insensitively like the host.
    const path = parsed.pathname.toLowerCase();
    for (const rule of pathRules) {
      if (path === rule.prefix || path.startsWith(`${rule.prefix}/`)) return rule.name;
    }
  }
  if (queryRules !== undefined) {
    for (const rule of queryRules) if (parsed.searchParams.get(rule.param) === rule.value) return rule.name;
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
 * The assistant a referrer names, or null. An http(s) referrer names one when its host (lowercased, port
 * ignored, one leading `www.` stripped) equals an assistant host (subdomains and look-alikes do not count),
 * or the host has a path rule the path is at or below (`x.com/i/grok`), or a query rule the query carries
 * (`google.de/search?udm=50`). An `android-app://<package>/` referrer names the assistant whose app it is.
 */
export function assistantFromReferrer(referrer: string | null): string | null {
  // The type says string | null; a JS caller passing undefined or a number gets "no referrer", not a crash.
  if (typeof referrer !== "string" || referrer === "") return null;
  const host = plainHttpHost(referrer);
  if (host !== undefined) return nameForHttpUrl(host, referrer, () => parseUrl(referrer));
  const url = parseUrl(referrer);
  if (url === null) return null;
  if (url.protocol === "http:" || url.protocol === "https:") return nameForHttpUrl(url.hostname, referrer, () => url);
  if (url.protocol === "android-app:") return byAndroidApp.get(url.hostname.toLowerCase()) ?? null;
  return null;
}

// `https://chatgpt.com/`, `chatgpt.com/`, `www.chatgpt.com`: the host a utm value in URL form names.
const UTM_URL_PREFIX = /^[a-z][a-z0-9+.-]*:\/\//;
const URL_FORM = /[/?#]/;

/**
 * The assistant a `utm_source` names, or null: after trimming and lowercasing, a scheme and anything from the
 * first `/`, `?` or `#` are dropped and one `www.` stripped; the rest must equal an assistant host or brand word.
 */
export function assistantFromUtmSource(utmSource: string | null): string | null {
  if (typeof utmSource !== "string") return null;
  let value = utmSource.trim().toLowerCase();
  const direct = aiUtmValues.get(stripWww(value));
  if (direct !== undefined || !URL_FORM.test(value)) return direct ?? null;
  value = value.replace(UTM_URL_PREFIX, "");
  const end = value.search(/[/?#]/);
  if (end >= 0) value = value.slice(0, end);
  return aiUtmValues.get(stripWww(value)) ?? null;
}
