// The site view's filters: what a click on a card's row (or the filter dialog) narrows the whole view to, as
// POST /api/v2/query takes them (Plausible's `[operator, dimension, [values]]`), and as the URL carries them.
//
// In the URL a filter is `f=DIMENSION~OPERATOR~VALUE[~VALUE…]`, one `f` per filter (they combine with "and"):
// `?f=source~is~Google&f=page~contains~/docs`. Every character outside `A–Z a–z 0–9 - /` is percent-encoded,
// including `. _ * ( ) ! '` that encodeURIComponent leaves alone: chat apps read `_x_` and `*x*` as
// emphasis and link unfurlers cut a trailing `.`, `)` or `!` off a link, so such a URL would open another
// view. `~` is the separator because it is never left raw inside a value.
import { blankLabel } from "@svc/core/display";
// ".ts" spelled out: the repository's root typecheck reaches this file from dashboard/test (node16 resolution).
import { type ActorParam, type LiveDelta, actorsOf } from "./types.ts";

export const FILTER_OPERATORS = [
  { key: "is", url: "is", label: "is" },
  { key: "is_not", url: "isnot", label: "is not" },
  { key: "contains", url: "contains", label: "contains" },
  { key: "contains_not", url: "notcontains", label: "does not contain" },
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number]["key"];

/**
 * Every dimension a filter can name: its URL key, the query API's dimension, the words on a chip, and the
 * live stream's dimension (`live`) when the gateway's deltas carry it (gateway/src/live/hub.ts), so a delta
 * can be judged against the filter.
 */
export const FILTER_DIMENSIONS = [
  { key: "page", api: "event:page", label: "Page", live: "page" },
  { key: "entry", api: "visit:entry_page", label: "Entry page", live: null },
  { key: "exit", api: "visit:exit_page", label: "Exit page", live: null },
  { key: "source", api: "visit:source", label: "Source", live: "source" },
  { key: "referrer", api: "visit:referrer", label: "Referrer", live: null },
  { key: "channel", api: "visit:channel", label: "Channel", live: "channel" },
  { key: "utm-source", api: "visit:utm_source", label: "UTM source", live: "utm_source" },
  { key: "utm-medium", api: "visit:utm_medium", label: "UTM medium", live: "utm_medium" },
  { key: "utm-campaign", api: "visit:utm_campaign", label: "UTM campaign", live: "utm_campaign" },
  { key: "utm-content", api: "visit:utm_content", label: "UTM content", live: null },
  { key: "utm-term", api: "visit:utm_term", label: "UTM term", live: null },
  { key: "country", api: "visit:country", label: "Country", live: "country" },
  { key: "device", api: "visit:device", label: "Device", live: "device" },
  { key: "browser", api: "visit:browser", label: "Browser", live: "browser" },
  { key: "browser-version", api: "visit:browser_version", label: "Browser version", live: null },
  { key: "os", api: "visit:os", label: "OS", live: "os" },
  { key: "os-version", api: "visit:os_version", label: "OS version", live: null },
  { key: "event", api: "event:name", label: "Event", live: "event" },
  { key: "goal", api: "event:goal", label: "Goal", live: null },
  { key: "assistant", api: "visit:assistant", label: "AI assistant", live: null },
  { key: "crawler", api: "event:agent", label: "AI crawler or agent", live: null },
] as const;
export type FilterDimensionKey = (typeof FILTER_DIMENSIONS)[number]["key"];
/** A custom property's filter key: `prop.` and the property's name. */
export const PROP_KEY_PREFIX = "prop.";
const API_PROP_PREFIX = "event:props:";

export interface ViewFilter {
  /** A FILTER_DIMENSIONS key, or `prop.{name}`. */
  readonly dim: string;
  readonly op: FilterOperator;
  readonly values: readonly string[];
}

// The limits POST /api/v2/query puts on one query (gateway/src/query/request.ts QUERY_LIMITS): 20 leaves, one
// of which the view's actor takes; 100 values of at most 1,000 characters.
export const MAX_FILTERS = 19;
const MAX_VALUES = 100;
const MAX_VALUE_LENGTH = 1000;

const dimensionOf = (dim: string) => FILTER_DIMENSIONS.find((d) => d.key === dim) ?? null;
const isKnownDim = (dim: string) => dimensionOf(dim) !== null || (dim.startsWith(PROP_KEY_PREFIX) && dim.length > PROP_KEY_PREFIX.length && dim.length <= PROP_KEY_PREFIX.length + 300);

/** The words for a filter's dimension ("Source", "Property plan"). */
export const dimensionLabel = (dim: string): string => dimensionOf(dim)?.label ?? `Property ${dim.slice(PROP_KEY_PREFIX.length)}`;
export const operatorLabel = (op: FilterOperator): string => FILTER_OPERATORS.find((o) => o.key === op)!.label;

/** A value in the URL: readable (`/docs/intro`, `Google`), with every character chat apps or unfurlers mangle encoded. */
export function urlSafe(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*._~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replaceAll("%2F", "/");
}

function decode(part: string): string | null {
  try {
    return decodeURIComponent(part.replaceAll("+", "%20"));
  } catch {
    return null;
  }
}

/** The filters of a query string (`location.search`, with or without `?`); malformed ones are dropped. */
export function readFilters(search: string): ViewFilter[] {
  const out: ViewFilter[] = [];
  for (const pair of search.replace(/^\?/, "").split("&")) {
    if (!pair.startsWith("f=")) continue;
    const parts = pair.slice(2).split("~").map(decode);
    if (parts.length < 3 || parts.some((p) => p === null)) continue;
    const [dim, opUrl, ...values] = parts as string[];
    const op = FILTER_OPERATORS.find((o) => o.url === opUrl)?.key;
    if (!op || !isKnownDim(dim!) || values.length > MAX_VALUES || values.some((v) => v.length === 0 || v.length > MAX_VALUE_LENGTH)) continue;
    out.push({ dim: dim!, op, values });
    if (out.length === MAX_FILTERS) break;
  }
  return out;
}

/** The filters as query-string pairs, in order (`f=source~is~Google`). */
export const filterPairs = (filters: readonly ViewFilter[]): string[] =>
  filters.map((f) => `f=${[f.dim, FILTER_OPERATORS.find((o) => o.key === f.op)!.url, ...f.values].map(urlSafe).join("~")}`);

/** The filter key of a card's tab: a rollup field's (`utm_source` → `utm-source`), or the tab's own; null for the bot rule. */
export const tabFilterKey = (field: string): string | null => FILTER_DIMENSIONS.find((d) => d.live === field)?.key ?? (isKnownDim(field) ? field : null);

/** The query API's dimension of a filter. */
export const apiDimension = (dim: string): string => (dim.startsWith(PROP_KEY_PREFIX) ? API_PROP_PREFIX + dim.slice(PROP_KEY_PREFIX.length) : dimensionOf(dim)!.api);

/** The view's filters and actor as POST /api/v2/query's `filters` (without visit:actor only `human` counts). */
export function apiFilters(filters: readonly ViewFilter[], actor: ActorParam): unknown[] {
  const out: unknown[] = filters.map((f) => [f.op, apiDimension(f.dim), [...f.values]]);
  if (actor !== "human") out.push(["is", "visit:actor", [...actorsOf(actor)]]);
  return out;
}

/**
 * A saved segment's filters (the query API's arrays) as the view's: the leaves the filter bar can show
 * (`is`, `is not`, `contains`, `does not contain` on a known dimension); anything else is left out.
 */
export function fromApiFilters(filters: readonly unknown[]): ViewFilter[] {
  const out: ViewFilter[] = [];
  for (const f of filters) {
    if (!Array.isArray(f) || f.length < 3) continue;
    const [op, dimension, values] = f as [unknown, unknown, unknown];
    const known = FILTER_OPERATORS.find((o) => o.key === op);
    if (!known || typeof dimension !== "string" || !Array.isArray(values) || !values.every((v) => typeof v === "string")) continue;
    const dim = dimension.startsWith(API_PROP_PREFIX) ? PROP_KEY_PREFIX + dimension.slice(API_PROP_PREFIX.length) : FILTER_DIMENSIONS.find((d) => d.api === dimension)?.key;
    if (dim !== undefined) out.push({ dim, op: known.key, values });
  }
  return out.slice(0, MAX_FILTERS);
}

/** The view with one more filter; a filter on the same dimension and operator is replaced. */
export function withFilter(filters: readonly ViewFilter[], next: ViewFilter): ViewFilter[] {
  const kept = filters.filter((f) => !(f.dim === next.dim && f.op === next.op));
  return [...kept, next].slice(-MAX_FILTERS);
}

/**
 * The links that add a filter to a view (`hrefWith` makes the view's URL with a list of filters): `pick` for a
 * dimension's value, `rowHref` for a card tab's rows (null for a tab whose rows set none: the bot rule), and
 * `tabDimension`, the query API dimension of a tab. One home for the owner's and a shared view's clicks.
 */
export function filterLinks(filters: readonly ViewFilter[], hrefWith: (filters: ViewFilter[]) => string) {
  const pick = (dim: string, value: string) => hrefWith(withFilter(filters, { dim, op: "is", values: [rowFilterValue(dim, value)] }));
  return {
    pick,
    rowHref: (field: string) => {
      const key = tabFilterKey(field);
      return key === null ? null : (row: { value: string }) => pick(key, row.value);
    },
  };
}

/** The query API dimension of a card's tab; null for the bot rule (not a column of the engine's rows). */
export function tabDimension(field: string): string | null {
  const key = tabFilterKey(field);
  return key === null ? null : apiDimension(key);
}

/**
 * The value a card's row filters by: the query API labels an empty value as core's `blankLabel` does ("Direct /
 * None" for source and referrer, "(not set)" otherwise), where the rollup reads send "" beside the same label.
 */
export function rowFilterValue(dim: string, value: string): string {
  return value !== "" ? value : blankLabel(dim);
}

function leafMatches(f: ViewFilter, value: string): boolean {
  const shown = rowFilterValue(f.dim, value);
  switch (f.op) {
    case "is":
      return f.values.includes(shown);
    case "is_not":
      return !f.values.includes(shown);
    case "contains":
      return f.values.some((v) => shown.includes(v));
    case "contains_not":
      return !f.values.some((v) => shown.includes(v));
  }
}

/**
 * Whether a live delta may change a filtered view. A delta says, per actor, which values of which dimensions
 * its rows had — not which values came together in one row — so a filtered view cannot add it to its numbers;
 * it asks the query API again instead, and only when the delta can hold a matching row: for every filter on a
 * dimension the deltas carry, one of the delta's values for that dimension (of the view's actors) satisfies
 * it. A filter on a dimension the deltas do not carry (entry page, referrer, version, goal, property) cannot
 * be judged, so it lets the delta through. A delta with no row of the view's actors is always ignored, as is
 * one that left dimensions out only if a judged dimension shows no match among those it kept (it then lets
 * it through: the match may be among the omitted).
 */
export function deltaMayMatch(filters: readonly ViewFilter[], actor: ActorParam, delta: LiveDelta): boolean {
  const actors: readonly string[] = actorsOf(actor);
  const counts = actors.some((a) => {
    const c = delta.totals[a as keyof LiveDelta["totals"]];
    return c !== undefined && c.pageviews + c.events + c.hits > 0;
  });
  if (!counts) return false;
  for (const f of filters) {
    const live = dimensionOf(f.dim)?.live ?? null;
    if (live === null) continue;
    const values = delta.dimensions.filter((d) => d.dim === live && actors.includes(d.actor)).map((d) => d.value);
    // The UTM dimensions are counted only when set (gateway/src/rollups/rollup-state.ts): none is "(not set)".
    if (values.length === 0 && live.startsWith("utm_")) values.push("");
    if (values.some((v) => leafMatches(f, v))) continue;
    if (delta.dimensions_omitted > 0) continue;
    return false;
  }
  return true;
}
