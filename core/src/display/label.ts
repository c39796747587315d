// Every label the product shows (paths, titles, referrer hosts, UTM values, prop keys and values, crawler
// paths) was written by whoever sent the request. Stored rows keep what ingest stored; this is applied
// where a label leaves the system for a reader: the dashboard (HTML), the insights prompt (a language
// model) and MCP tool results (an assistant). See docs/security.md, "Visitor-supplied text".

/**
 * 200 code points: the longest label a breakdown row, a prompt or a tool result needs to stay readable.
 * Real paths and titles are far shorter (the tracker already cuts URLs to 2,048); a longer label is almost
 * always a payload, and a model or a table cell gains nothing from the rest.
 */
export const DISPLAY_LABEL_MAX = 200;

export const ELLIPSIS = "…";

// A high surrogate not followed by a low one, or a low one not preceded by a high one. (A regex rather than
// String#toWellFormed, which is ES2024: the dashboard bundles this file for browsers too.)
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
// TAB, LF, VT, FF, CR, and the line and paragraph separators U+2028/U+2029: replaced by a space rather than
// removed, so that "a\nb" stays two words. (U+2028 ends a line in JavaScript source and in many renderers.)
const LINE_BREAKS = /[\t\n\u000b\f\r\u2028\u2029]+/g;
// C0 controls, DEL, C1 controls.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
// Everything a reader cannot see but a program (a filter, a language model) still reads:
// - the whole format category \p{Cf}: bidirectional controls (U+202A–U+202E, U+2066–U+2069, U+200E/F, U+061C:
//   "/admin\u202etxt.exe" shows as "/adminexe.txt"), zero-width characters (U+200B–U+200D, U+2060, U+FEFF: a
//   word split for a filter, two labels that look alike), the soft hyphen U+00AD, the Mongolian vowel
//   separator U+180E, the invisible operators U+2061–U+2064, and the tag characters U+E0001, U+E0020–U+E007F,
//   which spell ASCII that an assistant reads and a person cannot see ("ASCII smuggling");
// - the rest of Unicode's default-ignorable code points: the whole tag block U+E0000–U+E0FFF (tags and the
//   variation selectors 17–256, which can carry one byte each after any character), the variation selectors
//   U+FE00–U+FE0F (an emoji then shows in its text form), the Hangul fillers, the combining grapheme joiner.
// A regex of Unicode properties rather than a list: the list was the bug (issue 20).
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * Text without the characters a person cannot see: format characters and default-ignorables removed, line
 * and paragraph separators as a space. Nothing else changes (controls stay): for values kept raw, such as
 * CSV cells. Pure and idempotent.
 */
export function withoutInvisible(value: string): string {
  return value.replace(/[\u2028\u2029]/g, " ").replace(INVISIBLE, "");
}

/**
 * A visitor-supplied label made safe to show: control characters, format characters (\p{Cf}) and every other
 * default-ignorable code point removed (whitespace controls and line/paragraph separators become one space),
 * lone surrogates replaced by U+FFFD, and the result cut to `max` code points with a trailing ellipsis (the
 * ellipsis counts towards `max`). Pure and idempotent.
 */
export function displayLabel(value: string, max: number = DISPLAY_LABEL_MAX): string {
  const cleaned = value.replace(LONE_SURROGATE, "\ufffd").replace(LINE_BREAKS, " ").replace(CONTROLS, "").replace(INVISIBLE, "");
  return cutToCodePoints(cleaned, max);
}

function cutToCodePoints(value: string, max: number): string {
  if (value.length <= max) return value;
  const points = Array.from(value);
  if (points.length <= max) return value;
  return points.slice(0, Math.max(0, max - 1)).join("") + ELLIPSIS;
}

/** Sanitises every string leaf of a JSON-like value (keys included): for tool results and prompt aggregates. */
export function displayLabelsDeep<T>(value: T, max: number = DISPLAY_LABEL_MAX): T {
  if (typeof value === "string") return displayLabel(value, max) as T;
  if (Array.isArray(value)) return value.map((item) => displayLabelsDeep(item, max)) as T;
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[displayLabel(key, max)] = displayLabelsDeep(item, max);
    return out as T;
  }
  return value;
}
