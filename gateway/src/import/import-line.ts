// One line of a history import (gateway/README.md "History import"): a JSON object checked field by field and
// turned into the columns of an `events` row the way ingest makes them — the same classifier, device parser,
// referrer/UTM/source rules, stored-text form and e-mail scrubbing of @svc/core — except that what the line
// states (browser, country, device, source, actor) is taken as stated. A line is refused with one reason that
// names the field; a refused line never stops the others.
import { Buffer } from "node:buffer";
import {
  ACTORS, type Actor, type BrowserEvent, dayMs, LIMITS, arePropsValid, classify, classifyWithoutUserAgent, dropEmailProps, dropEmailsFromEvent,
  isPlainObject, lookupUtmSource, majorMinor, mediumChannel, pagePath, parseDevice, type Props, scrubEmails, storedProps, storedText, trafficSource,
  utmFromUrl, type Utm,
} from "@svc/core";

import type { EventRow } from "../storage/rows.ts";

/** A row's fields before its site, time and visitor hash are known. */
type EventFields = Omit<EventRow, "site_id" | "ts" | "visitor_hash">;

/** What the import knows of a line before its visit and hash: the row's fields, its time and its visitor string. */
export interface ImportedLine {
  /** Epoch ms (UTC). */
  readonly ts: number;
  /** null: a new visitor for this line alone. */
  readonly visitor: string | null;
  readonly fields: EventFields;
}

export type LineResult = { readonly ok: true; readonly line: ImportedLine } | { readonly ok: false; readonly reason: string };

/** The rule stored on a row whose actor the line declared against what the classifier found. */
export const DECLARED_ACTOR_RULE = "import:declared";

// Plausible's device names (Desktop, Laptop, Tablet, Mobile), in any case, to the stored ones; svc's own "other".
const DEVICES: Readonly<Record<string, string>> = { desktop: "desktop", laptop: "desktop", tablet: "tablet", mobile: "mobile", other: "other" };

// A source naming no source: Plausible's export label for direct traffic.
const DIRECT_SOURCES = new Set(["direct / none", "direct", "(none)", "(direct)"]);

// ISO 8601 date and time, optional seconds and fraction, optional Z or ±hh:mm offset (UTC when absent).
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?$/i;
const COUNTRY = /^[A-Za-z]{2}$/;
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

// A rollup key is at most 2,704 bytes (PostgreSQL's btree entry limit, with site, bucket, actor and dimension):
// a page past 2,048 bytes of UTF-8 (2,048 ASCII characters, LIMITS.path) could make the import's transaction
// fail as a whole, so the line is refused instead.
const MAX_PAGE_BYTES = 2048;

/** The fields a line may carry, each with its largest length; every other key is refused. */
const TEXT_FIELDS = {
  timestamp: 40, name: LIMITS.eventName, visitor: 256, hostname: LIMITS.hostname, pathname: LIMITS.path, referrer: LIMITS.referrer,
  source: LIMITS.utm, utm_source: LIMITS.utm, utm_medium: LIMITS.utm, utm_campaign: LIMITS.utm, utm_content: LIMITS.utm, utm_term: LIMITS.utm,
  browser: 120, browser_version: 64, os: 120, os_version: 64, device: 16, country: 2, user_agent: LIMITS.userAgent, actor: 16,
} as const;
type TextField = keyof typeof TEXT_FIELDS;
export const LINE_FIELDS: readonly string[] = [...Object.keys(TEXT_FIELDS), "props"];
const KNOWN = new Set(LINE_FIELDS);

const refuse = (reason: string): LineResult => ({ ok: false, reason });

/** A stated version in the form ingest stores (major.minor: "131.0.6778.85" → "131.0"), else the user agent's. */
function versionOf(stated: string | undefined, fromUserAgent: string | null | undefined): string | null {
  if (stated === undefined) return fromUserAgent ?? null;
  const version = scrubEmails(stated.trim());
  return version === "" ? null : majorMinor(version);
}

function isDay(day: string): boolean {
  try {
    dayMs(day);
    return true;
  } catch {
    return false;
  }
}

/** The utm_* of a line: each from its own field when any is given, else from the page's query (as ingest does). */
function utmOf(given: Partial<Record<TextField, string>>, url: string): Utm {
  const keys = ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"] as const;
  const fromUrl = utmFromUrl(url);
  if (!keys.some((k) => given[k] !== undefined)) return fromUrl;
  const value = (k: (typeof keys)[number]) => {
    const v = given[k]?.trim();
    return v === undefined || v === "" ? fromUrl[k] : v;
  };
  return { utm_source: value("utm_source"), utm_medium: value("utm_medium"), utm_campaign: value("utm_campaign"), utm_term: value("utm_term"), utm_content: value("utm_content") };
}

/** Parses and checks one line (its text without the newline) for a site whose domain is `siteDomain`. */
export function parseImportLine(text: string, siteDomain: string): LineResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return refuse("malformed JSON");
  }
  if (!isPlainObject(json)) return refuse("must be a JSON object");
  const unknown = Object.keys(json).filter((k) => !KNOWN.has(k));
  if (unknown.length > 0) return refuse(`unknown field${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => JSON.stringify(k)).join(", ")}`);

  // Every text field: a string within its length, in stored form (NUL removed, unpaired surrogates → U+FFFD);
  // null counts as absent.
  const given: Partial<Record<TextField, string>> = {};
  for (const field of Object.keys(TEXT_FIELDS) as TextField[]) {
    const value = json[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== "string") return refuse(`${field} must be a string`);
    if (value.length > TEXT_FIELDS[field]) return refuse(`${field} must be at most ${TEXT_FIELDS[field]} characters`);
    given[field] = storedText(value);
  }

  if (given.timestamp === undefined) return refuse("timestamp is required (ISO 8601, e.g. 2026-03-01T14:05:00Z)");
  const stamp = TIMESTAMP.exec(given.timestamp);
  // Date.parse reads 2026-02-30 as 2 March: the calendar day is checked on its own.
  const ts = stamp === null || !isDay(stamp[1]!) ? NaN : Date.parse(`${stamp[1]}T${stamp[2]}${stamp[3] ?? "Z"}`);
  if (!Number.isFinite(ts)) return refuse("timestamp must be an ISO 8601 date and time, e.g. 2026-03-01T14:05:00Z (UTC when it has no offset)");

  if (given.name === undefined || given.name.trim() === "") return refuse("name is required: pageview or a custom event name");
  if (given.visitor !== undefined && given.visitor === "") return refuse("visitor must not be empty (leave it out for a new visitor)");

  let device: string | null = null;
  if (given.device !== undefined) {
    device = DEVICES[given.device.toLowerCase()] ?? null;
    if (device === null) return refuse("device must be one of Desktop, Laptop, Tablet, Mobile, Other");
  }
  if (given.country !== undefined && !COUNTRY.test(given.country)) return refuse("country must be an ISO 3166-1 alpha-2 code such as DE");
  if (given.actor !== undefined && !(ACTORS as readonly string[]).includes(given.actor)) return refuse(`actor must be one of ${ACTORS.join(", ")}`);
  const pathname = given.pathname ?? "/";
  if (!pathname.startsWith("/")) return refuse("pathname must start with /");
  const hostname = (given.hostname ?? siteDomain).trim().toLowerCase();
  if (hostname === "" || /[\s/?#@]/.test(hostname)) return refuse("hostname must be a host name such as example.com");

  let props: Props = {};
  const rawProps = json["props"];
  if (rawProps !== undefined && rawProps !== null) {
    if (!isPlainObject(rawProps) || !arePropsValid(rawProps)) {
      return refuse(`props must be an object of at most ${LIMITS.props} names (1–${LIMITS.propKey} characters) with strings of at most ${LIMITS.propValue} characters, numbers or booleans`);
    }
    props = dropEmailProps(storedProps(rawProps as Props)).props;
  }

  // The page, name and UTM values lose their e-mail addresses exactly as an /api/event body does.
  const url = `https://${hostname}${pathname}`;
  const referrer = given.referrer === undefined || given.referrer.trim() === "" ? null : URL_SCHEME.test(given.referrer) ? given.referrer : `https://${given.referrer}`;
  const event: BrowserEvent = { d: siteDomain, n: given.name, u: url, r: referrer, h: hostname, w: null, p: props, utm: utmOf(given, url) };
  const { event: clean } = dropEmailsFromEvent(event);
  const page = pagePath(clean.u);
  if (Buffer.byteLength(page, "utf8") > MAX_PAGE_BYTES) return refuse(`pathname must be at most ${MAX_PAGE_BYTES} bytes of UTF-8 without its query`);

  const ua = given.user_agent;
  const found = ua === undefined ? classifyWithoutUserAgent(clean.r, clean.utm.utm_source) : classify({ ua, referrer: clean.r, utm_source: clean.utm.utm_source, js: true });
  const actor: Actor = (given.actor as Actor | undefined) ?? found.actor;
  const declared = actor !== found.actor;
  const aiName = declared ? null : found.name;
  const parsed = ua === undefined ? null : parseDevice(ua);
  const traffic = trafficSource({ referrer: clean.r, pageHost: hostname, utm: clean.utm, assistant: actor === "human_via_ai" ? aiName : null });
  let { source, channel } = traffic;
  if (given.source !== undefined) {
    const named = scrubEmails(given.source.trim());
    if (named === "" || DIRECT_SOURCES.has(named.toLowerCase())) {
      source = null;
      channel = mediumChannel(clean.utm.utm_medium) ?? "direct";
    } else {
      // The named source through the same tables as a utm_source ("google" → Google, search).
      const known = lookupUtmSource(named);
      source = known?.name ?? named;
      channel = mediumChannel(clean.utm.utm_medium) ?? known?.channel ?? "referral";
    }
  }
  return {
    ok: true,
    line: {
      ts,
      visitor: given.visitor ?? null,
      fields: {
        name: clean.n,
        page,
        hostname,
        referrer_host: traffic.referrer_host,
        own_referrer_host: traffic.referrer_host,
        source,
        channel,
        ...clean.utm,
        country: given.country?.toUpperCase() ?? null,
        device: device ?? parsed?.device ?? "other",
        browser: given.browser === undefined ? (parsed?.browser ?? null) : scrubEmails(given.browser),
        os: given.os === undefined ? (parsed?.os ?? null) : scrubEmails(given.os),
        // A version goes with its name: the user agent's only when the line names no browser (OS) of its own.
        browser_version: versionOf(given.browser_version, given.browser === undefined ? parsed?.browser_version : null),
        os_version: versionOf(given.os_version, given.os === undefined ? parsed?.os_version : null),
        screen_width: null,
        actor,
        ai_name: aiName,
        rule: declared ? DECLARED_ACTOR_RULE : found.rule,
        props: Object.keys(clean.p).length > 0 ? clean.p : null,
      },
    },
  };
}
