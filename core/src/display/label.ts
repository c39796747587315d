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
// TAB, LF, VT, FF, CR: replaced by a space rather than removed, so that "a\nb" stays two words.
const WHITESPACE_CONTROLS = /[\t\n\u000b\f\r]+/g;
// C0 controls, DEL, C1 controls.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
// Bidirectional controls: embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069), the
// left-to-right/right-to-left marks (U+200E, U+200F) and the Arabic letter mark (U+061C): they can make a
// label read differently from what it is ("/admin‮txt.exe" shown as "/adminexe.txt").
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;
// Zero-width space, non-joiner, joiner, word joiner and the byte-order mark: invisible, used to split a word
// a filter looks for or to make two labels that look the same differ.
const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff]/g;

/**
 * A visitor-supplied label made safe to show: control, bidirectional and zero-width characters removed
 * (whitespace controls become one space), lone surrogates replaced by U+FFFD, and the result cut to `max`
 * code points with a trailing ellipsis (the ellipsis counts towards `max`). Pure and idempotent.
 */
export function displayLabel(value: string, max: number = DISPLAY_LABEL_MAX): string {
  const cleaned = value
    .replace(LONE_SURROGATE, "\ufffd")
    .replace(WHITESPACE_CONTROLS, " ")
    .replace(CONTROLS, "")
    .replace(BIDI_CONTROLS, "")
    .replace(ZERO_WIDTH, "");
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
