// The body of POST /api/event (SPEC "Browser event"). `BrowserEventBody` is the one definition of its shape and
// limits and produces the client errors; `isCommonValidBody` is a hand-written check of the same rules that lets the
// valid case skip the Schema interpreter (measured in core/README.md "Benchmarks"). The fast path may only accept
// what the Schema accepts — test/schema.test.ts checks that on every fixture.

import { Result, Schema } from "effect";
import type { FieldError, Utm } from "../types.ts";
import { afterHttpScheme, utmFromUrl } from "../traffic/url-parts.ts";
import { fieldErrors } from "./field-errors.ts";
import { LIMITS } from "./limits.ts";
import { arePropsValid, dropEmailProps, isPlainObject, PropsSchema, storedProps, type Props } from "./props.ts";
import { isStoredText, STORED_TEXT_MESSAGE, storedText } from "./stored-text.ts";

export type Decoded<T> = { ok: true; value: T; droppedProps: number } | { ok: false; errors: FieldError[] };

export interface BrowserEvent {
  /** Site domain, trimmed and lowercased. */
  readonly d: string;
  /** Event name; "pageview" when absent. */
  readonly n: string;
  readonly u: string;
  /** Referrer URL; null for none ("" and null alike). */
  readonly r: string | null;
  /** Page hostname, lowercased; null when absent. */
  readonly h: string | null;
  readonly w: number | null;
  /** Props with e-mail-like entries removed; {} when absent. */
  readonly p: Props;
  readonly utm: Utm;
}

const string = (what: string) => Schema.String.annotate({ message: `must be ${what}` });
// Blank is judged on the stored form: a name of only NULs would be stored as "".
const isBlank = (s: string) => storedText(s).trim() === "";
const notBlank = (what: string) => Schema.makeFilter((s: string) => !isBlank(s), { message: `must be ${what}` });
const storable = Schema.makeFilter(isStoredText, { message: STORED_TEXT_MESSAGE });
const maxLength = (max: number) => Schema.isMaxLength(max, { message: `must be at most ${max} characters` });
const optionalNullable = <S extends Schema.Constraint>(schema: S, what: string) =>
  // Nullish rather than only null: JSON never yields undefined, but the fast path treats a key set to undefined
  // as absent, and both decoders must agree on every input.
  Schema.optionalKey(Schema.NullishOr(schema).annotate({ message: `must be ${what} or null` }));

export const HTTP_URL = /^https?:\/\/[^\s/?#]+/i;

// The domain selects a site, so it is refused rather than normalised (a NUL would otherwise reach the site lookup).
const Domain = string("a domain name").check(notBlank("a domain name"), maxLength(LIMITS.domain), storable);
const Utm = string("a string").check(maxLength(LIMITS.utm));

export const BrowserEventBody = Schema.Struct({
  d: Domain,
  n: optionalNullable(string("an event name").check(notBlank("a non-empty event name"), maxLength(LIMITS.eventName)), "an event name"),
  u: string("an absolute http(s) URL").check(
    maxLength(LIMITS.url),
    Schema.isPattern(HTTP_URL, { message: "must be an absolute http(s) URL" }),
  ),
  r: optionalNullable(string("a referrer URL").check(maxLength(LIMITS.referrer)), "a referrer URL"),
  h: optionalNullable(string("a hostname").check(maxLength(LIMITS.hostname)), "a hostname"),
  w: optionalNullable(
    Schema.Number.annotate({ message: "must be a screen width in pixels" }).check(
      Schema.isInt({ message: "must be a whole number of pixels" }),
      Schema.isBetween({ minimum: 0, maximum: LIMITS.screenWidth }, { message: `must be between 0 and ${LIMITS.screenWidth}` }),
    ),
    "a screen width in pixels",
  ),
  p: optionalNullable(PropsSchema, "a JSON object of props"),
  utm_source: optionalNullable(Utm, "a string"),
  utm_medium: optionalNullable(Utm, "a string"),
  utm_campaign: optionalNullable(Utm, "a string"),
  utm_term: optionalNullable(Utm, "a string"),
  utm_content: optionalNullable(Utm, "a string"),
}).annotate({ message: "must be a JSON object" });

export type BrowserEventWire = typeof BrowserEventBody.Type;

const decodeWithSchema = Schema.decodeUnknownResult(BrowserEventBody, { errors: "all" });

function optionalString(v: unknown, max: number): boolean {
  return v === undefined || v === null || (typeof v === "string" && v.length <= max);
}

/**
 * `HTTP_URL.test(u)`, with the common case decided without the regex: after "http(s)://" a letter or a digit (which
 * `c | 32` keeps in a–z or 0–9, as it does a control character \x10–\x19, none of them \s, "/", "?" or "#") is what
 * the pattern asks for. The regex was 0.3 % of the gateway's perf samples at full ingest load.
 */
function isHttpUrl(u: string): boolean {
  const at = afterHttpScheme(u);
  if (at < 0) return false;
  const c = u.charCodeAt(at) | 32;
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || HTTP_URL.test(u);
}

function isCommonValidBody(b: unknown): b is BrowserEventWire {
  if (!isPlainObject(b)) return false;
  const { d, n, u, w, p } = b;
  if (typeof d !== "string" || d.length > LIMITS.domain || d.trim() === "" || !isStoredText(d)) return false;
  if (n !== undefined && n !== null && (typeof n !== "string" || n.length > LIMITS.eventName || isBlank(n))) return false;
  if (typeof u !== "string" || u.length > LIMITS.url || !isHttpUrl(u)) return false;
  if (!optionalString(b.r, LIMITS.referrer) || !optionalString(b.h, LIMITS.hostname)) return false;
  if (w !== undefined && w !== null && !(Number.isInteger(w) && (w as number) >= 0 && (w as number) <= LIMITS.screenWidth)) return false;
  if (p !== undefined && p !== null && !(isPlainObject(p) && arePropsValid(p))) return false;
  // Each UTM key read by name (UTM_KEYS in types.ts), not `b[key]` in a loop: a read by a key that changes is
  // megamorphic, a lookup in V8's stub cache each time. With the emptiness test in `normalise` those reads were
  // 2.1 % of the in-process event path's perf samples (`npm run bench:event-path`), 0.3 % after.
  return optionalString(b.utm_source, LIMITS.utm) && optionalString(b.utm_medium, LIMITS.utm) && optionalString(b.utm_campaign, LIMITS.utm) &&
    optionalString(b.utm_term, LIMITS.utm) && optionalString(b.utm_content, LIMITS.utm);
}

function utmValue(v: string | null | undefined): string | null {
  if (v === undefined || v === null) return null;
  const trimmed = storedText(v).trim();
  return trimmed === "" ? null : trimmed;
}

function normalise(b: BrowserEventWire): Decoded<BrowserEvent> {
  // Every free-text field is put in its stored form (stored-text.ts); lengths were checked on what was sent.
  const { props, dropped } = dropEmailProps(storedProps((b.p ?? {}) as Props));
  const u = storedText(b.u);
  const r = b.r === undefined || b.r === null ? "" : storedText(b.r);
  // Each utm_* comes from its body key when sent, else from the page URL's query, so a hand-written client that
  // only sends `u` gets the same campaign attribution as the tracker.
  const hasBodyUtm = b.utm_source != null || b.utm_medium != null || b.utm_campaign != null || b.utm_term != null || b.utm_content != null;
  const fromUrl = utmFromUrl(u);
  const utm: Utm = hasBodyUtm
    ? {
        utm_source: utmValue(b.utm_source) ?? fromUrl.utm_source,
        utm_medium: utmValue(b.utm_medium) ?? fromUrl.utm_medium,
        utm_campaign: utmValue(b.utm_campaign) ?? fromUrl.utm_campaign,
        utm_term: utmValue(b.utm_term) ?? fromUrl.utm_term,
        utm_content: utmValue(b.utm_content) ?? fromUrl.utm_content,
      }
    : fromUrl;
  const h = b.h === undefined || b.h === null ? "" : storedText(b.h).trim().toLowerCase();
  return {
    ok: true,
    droppedProps: dropped,
    value: {
      d: b.d.trim().toLowerCase(),
      n: b.n === undefined || b.n === null ? "pageview" : storedText(b.n),
      u,
      r: r === "" ? null : r,
      h: h === "" ? null : h,
      w: b.w ?? null,
      p: props,
      utm,
    },
  };
}

/** The Schema alone, without the fast path: what decodeBrowserEvent must always agree with (tests, bench). */
export function decodeBrowserEventWithSchema(input: unknown): Decoded<BrowserEvent> {
  const result = decodeWithSchema(input);
  return Result.isSuccess(result) ? normalise(result.success) : { ok: false, errors: fieldErrors(result.failure.issue) };
}

/** Decode a JSON.parse'd POST /api/event body; errors list every bad field with its path (`p.plan`, `w`). */
export function decodeBrowserEvent(input: unknown): Decoded<BrowserEvent> {
  return isCommonValidBody(input) ? normalise(input) : decodeBrowserEventWithSchema(input);
}
