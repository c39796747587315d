// POST /api/v2/query: Plausible's Stats API v2 request (https://plausible.io/docs/stats-api), checked field by
// field into a plan. Every refusal is a 400 naming the field (`metrics[2]`, `filters[0][1]` …) and why; nothing
// here touches the database, so a bad query costs nothing.
import { ApiError } from "../errors.ts";

export const METRICS = [
  "visitors", "visits", "pageviews", "views_per_visit", "bounce_rate", "visit_duration", "events",
  "percentage", "conversion_rate", "group_conversion_rate", "hits",
] as const;
export type Metric = (typeof METRICS)[number];

/** Computed per visit: Plausible refuses them beside an event dimension (a visit has many pages). */
export const VISIT_METRICS: ReadonlySet<Metric> = new Set(["bounce_rate", "views_per_visit", "visit_duration"]);

export const EVENT_DIMENSIONS = ["event:name", "event:goal", "event:page", "event:hostname", "event:agent"] as const;
export const VISIT_DIMENSIONS = [
  "visit:entry_page", "visit:exit_page", "visit:source", "visit:referrer", "visit:channel",
  "visit:utm_source", "visit:utm_medium", "visit:utm_campaign", "visit:utm_content", "visit:utm_term",
  "visit:device", "visit:browser", "visit:browser_version", "visit:os", "visit:os_version",
  "visit:country", "visit:country_name", "visit:actor", "visit:assistant",
] as const;
export const TIME_DIMENSIONS = ["time", "time:hour", "time:day", "time:week", "time:month"] as const;
export type TimeDimension = (typeof TIME_DIMENSIONS)[number];
export const PROP_PREFIX = "event:props:";

export const OPERATORS = ["is", "is_not", "contains", "contains_not", "matches", "matches_not"] as const;
export type Operator = (typeof OPERATORS)[number];

export const DATE_SHORTCUTS = ["day", "24h", "7d", "28d", "30d", "91d", "month", "6mo", "12mo", "year", "all"] as const;
export type DateShortcut = (typeof DATE_SHORTCUTS)[number];

// Limits on one query, each a 400 past it (gateway/README.md "Query API"). They bound the SQL a caller can make
// the gateway build: 20 filter leaves × 100 clauses is 2,000 bound values, far below DuckDB's limits, and the
// longest useful filter seen in Plausible's dashboard has fewer than ten.
export const QUERY_LIMITS = {
  metrics: 12,
  dimensions: 5,
  filterLeaves: 20,
  filterDepth: 4,
  clauses: 100,
  clauseLength: 1000,
  /** 3,660 days: the longest retention a site may have (sql/001_init.sql). */
  rangeDays: 3660,
  /** Plausible's default and maximum page. */
  limit: 10_000,
  offset: 1_000_000,
  propKeyLength: 300,
} as const;

export interface FilterLeaf {
  readonly op: Operator;
  readonly dimension: string;
  readonly clauses: readonly string[];
  readonly caseSensitive: boolean;
  /** Where the leaf sits in the request (`filters[0][1][2]`), for a refusal found later (a bad regular expression). */
  readonly path: string;
}
export type Filter = FilterLeaf | { readonly op: "and" | "or"; readonly children: readonly Filter[] } | { readonly op: "not"; readonly child: Filter };

export type RawDateRange = DateShortcut | readonly [string, string];

export interface Comparison {
  readonly mode: "previous_period" | "year_over_year" | "custom";
  readonly dateRange?: readonly [string, string];
  readonly matchDayOfWeek: boolean;
}

export interface QueryPlan {
  readonly siteId: string;
  readonly dateRange: RawDateRange;
  readonly metrics: readonly Metric[];
  readonly dimensions: readonly string[];
  readonly filters: readonly Filter[];
  readonly orderBy: readonly (readonly [string, "asc" | "desc"])[];
  /** Whether the caller named the order (an echo of the query shows the one used either way). */
  readonly orderGiven: boolean;
  readonly include: { readonly timeLabels: boolean; readonly totalRows: boolean; readonly comparisons: Comparison | null };
  readonly limit: number;
  readonly offset: number;
}

const bad = (field: string, message: string): ApiError => new ApiError("invalid_body", `${field}: ${message}`, [{ path: field, message }]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export const isEventDimension = (d: string): boolean => d.startsWith("event:");
export const isTimeDimension = (d: string): d is TimeDimension => (TIME_DIMENSIONS as readonly string[]).includes(d);

function checkDimension(field: string, value: unknown, { time }: { time: boolean }): string {
  if (typeof value !== "string") throw bad(field, "must be a string");
  if (value.startsWith(PROP_PREFIX)) {
    const key = value.slice(PROP_PREFIX.length);
    if (key.length === 0 || key.length > QUERY_LIMITS.propKeyLength) throw bad(field, `a custom property name must be 1 to ${QUERY_LIMITS.propKeyLength} characters`);
    return value;
  }
  if ((EVENT_DIMENSIONS as readonly string[]).includes(value) || (VISIT_DIMENSIONS as readonly string[]).includes(value)) return value;
  if (isTimeDimension(value)) {
    if (!time) throw bad(field, "time dimensions cannot be filtered on; set date_range instead");
    return value;
  }
  throw bad(field, `unknown dimension ${JSON.stringify(value)}`);
}

function checkDay(field: string, value: unknown): string {
  if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) throw bad(field, "must be a date YYYY-MM-DD");
  if (new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value) throw bad(field, "must be a real calendar date");
  return value;
}

const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;

function checkDateRange(field: string, value: unknown, { shortcuts }: { shortcuts: boolean }): RawDateRange {
  if (typeof value === "string") {
    if (shortcuts && (DATE_SHORTCUTS as readonly string[]).includes(value)) return value as DateShortcut;
    throw bad(field, shortcuts ? `must be one of ${DATE_SHORTCUTS.join(", ")} or [start, end]` : "must be [start, end]");
  }
  if (!Array.isArray(value) || value.length !== 2) throw bad(field, "must be a shortcut or a two-element array [start, end]");
  const [a, b] = value as unknown[];
  if (typeof a === "string" && typeof b === "string" && DATETIME.test(a) && DATETIME.test(b)) {
    const from = Date.parse(a);
    const to = Date.parse(b);
    if (Number.isNaN(from) || Number.isNaN(to)) throw bad(field, "must hold valid ISO 8601 date-times with an offset");
    if (to < from) throw bad(field, "the end is before the start");
    if (to - from > QUERY_LIMITS.rangeDays * 86_400_000) throw bad(field, `spans more than ${QUERY_LIMITS.rangeDays} days`);
    return [a, b];
  }
  const first = checkDay(`${field}[0]`, a);
  const last = checkDay(`${field}[1]`, b);
  if (last < first) throw bad(field, "the end is before the start");
  if ((Date.parse(last) - Date.parse(first)) / 86_400_000 + 1 > QUERY_LIMITS.rangeDays) throw bad(field, `spans more than ${QUERY_LIMITS.rangeDays} days`);
  return [first, last];
}

function checkFilter(field: string, value: unknown, depth: number, leaves: { n: number }): Filter {
  if (!Array.isArray(value) || value.length < 2) throw bad(field, "must be [operator, dimension, clauses] or [and|or, [filters]] or [not, filter]");
  const op = value[0];
  if (op === "and" || op === "or") {
    if (depth >= QUERY_LIMITS.filterDepth) throw bad(field, `filters nest at most ${QUERY_LIMITS.filterDepth} deep`);
    const list = value[1];
    if (value.length !== 2 || !Array.isArray(list) || list.length === 0) throw bad(field, `${op} takes one non-empty list of filters`);
    return { op, children: list.map((f, i) => checkFilter(`${field}[1][${i}]`, f, depth + 1, leaves)) };
  }
  if (op === "not") {
    if (depth >= QUERY_LIMITS.filterDepth) throw bad(field, `filters nest at most ${QUERY_LIMITS.filterDepth} deep`);
    if (value.length !== 2) throw bad(field, "not takes one filter");
    return { op, child: checkFilter(`${field}[1]`, value[1], depth + 1, leaves) };
  }
  if (op === "has_done" || op === "has_not_done") throw bad(`${field}[0]`, `operator ${op} is not supported`);
  if (typeof op !== "string" || !(OPERATORS as readonly string[]).includes(op)) throw bad(`${field}[0]`, `unknown operator ${JSON.stringify(op)}; one of ${[...OPERATORS, "and", "or", "not"].join(", ")}`);
  if (value.length < 3 || value.length > 4) throw bad(field, "a filter is [operator, dimension, clauses] with optional modifiers");
  if (++leaves.n > QUERY_LIMITS.filterLeaves) throw bad(field, `at most ${QUERY_LIMITS.filterLeaves} filters in one query`);
  const dimension = checkDimension(`${field}[1]`, value[1], { time: false });
  if (dimension === "event:goal" && op !== "is" && op !== "contains") throw bad(`${field}[0]`, "event:goal takes only the is and contains operators");
  const clauses = value[2];
  if (!Array.isArray(clauses) || clauses.length === 0) throw bad(`${field}[2]`, "must be a non-empty list of values");
  if (clauses.length > QUERY_LIMITS.clauses) throw bad(`${field}[2]`, `at most ${QUERY_LIMITS.clauses} values`);
  clauses.forEach((c, i) => {
    if (typeof c !== "string") throw bad(`${field}[2][${i}]`, "must be a string");
    if (c.length > QUERY_LIMITS.clauseLength) throw bad(`${field}[2][${i}]`, `at most ${QUERY_LIMITS.clauseLength} characters`);
    if (c.includes("\u0000")) throw bad(`${field}[2][${i}]`, "must not contain U+0000");
  });
  let caseSensitive = true;
  if (value.length === 4) {
    const modifiers = value[3];
    if (!isObject(modifiers)) throw bad(`${field}[3]`, "must be an object of modifiers");
    for (const [key, v] of Object.entries(modifiers)) {
      if (key !== "case_sensitive") throw bad(`${field}[3].${key}`, "unknown modifier; only case_sensitive");
      if (typeof v !== "boolean") throw bad(`${field}[3].case_sensitive`, "must be true or false");
      caseSensitive = v;
    }
  }
  return { op: op as Operator, dimension, clauses: clauses as string[], caseSensitive, path: field };
}

export const isLeaf = (f: Filter): f is FilterLeaf => "dimension" in f;

/** Every leaf of a filter tree. */
export function filterLeaves(filters: readonly Filter[]): FilterLeaf[] {
  const out: FilterLeaf[] = [];
  const walk = (f: Filter): void => {
    if (isLeaf(f)) out.push(f);
    else if ("children" in f) f.children.forEach(walk);
    else walk(f.child);
  };
  filters.forEach(walk);
  return out;
}

function checkComparisons(field: string, value: unknown): Comparison {
  if (!isObject(value)) throw bad(field, "must be an object {mode, date_range?, match_day_of_week?}");
  for (const key of Object.keys(value)) if (!["mode", "date_range", "match_day_of_week"].includes(key)) throw bad(`${field}.${key}`, "unknown field");
  const mode = value["mode"];
  if (mode !== "previous_period" && mode !== "year_over_year" && mode !== "custom") throw bad(`${field}.mode`, "must be previous_period, year_over_year or custom");
  const match = value["match_day_of_week"] ?? false;
  if (typeof match !== "boolean") throw bad(`${field}.match_day_of_week`, "must be true or false");
  if (mode === "custom") {
    if (value["date_range"] === undefined) throw bad(`${field}.date_range`, "is required with mode custom");
    const range = checkDateRange(`${field}.date_range`, value["date_range"], { shortcuts: false }) as readonly [string, string];
    return { mode, dateRange: range, matchDayOfWeek: match };
  }
  if (value["date_range"] !== undefined) throw bad(`${field}.date_range`, "is only for mode custom");
  return { mode, matchDayOfWeek: match };
}

const TOP_FIELDS = ["site_id", "date_range", "metrics", "dimensions", "filters", "order_by", "include", "pagination"];

/**
 * `?filters=` of a GET read (the AI panel narrowed by a view, a funnel's result): POST /api/v2/query's
 * `filters` as JSON, judged further by parseQuery; a 400 naming the parameter when it is not a JSON array.
 */
export function filtersParam(raw: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed)) throw new ApiError("invalid_query", "filters: must be a JSON array of filters", [{ path: "filters", message: "must be a JSON array of filters" }]);
  return parsed;
}

/** The request body checked into a plan; throws a 400 ApiError naming the first bad field. */
export function parseQuery(body: unknown): QueryPlan {
  if (!isObject(body)) throw bad("body", "must be a JSON object");
  for (const key of Object.keys(body)) if (!TOP_FIELDS.includes(key)) throw bad(key, "unknown field");
  const siteId = body["site_id"];
  if (typeof siteId !== "string" || siteId.length === 0 || siteId.length > 253) throw bad("site_id", "must be the site's domain");
  if (body["date_range"] === undefined) throw bad("date_range", "is required");
  const dateRange = checkDateRange("date_range", body["date_range"], { shortcuts: true });

  const rawMetrics = body["metrics"];
  if (!Array.isArray(rawMetrics) || rawMetrics.length === 0) throw bad("metrics", "must be a non-empty list");
  if (rawMetrics.length > QUERY_LIMITS.metrics) throw bad("metrics", `at most ${QUERY_LIMITS.metrics}`);
  const metrics = rawMetrics.map((m, i) => {
    if (typeof m !== "string" || !(METRICS as readonly string[]).includes(m)) throw bad(`metrics[${i}]`, `unknown metric ${JSON.stringify(m)}; one of ${METRICS.join(", ")}`);
    if (rawMetrics.indexOf(m) !== i) throw bad(`metrics[${i}]`, `${m} is listed twice`);
    return m as Metric;
  });

  const rawDims = body["dimensions"] ?? [];
  if (!Array.isArray(rawDims)) throw bad("dimensions", "must be a list");
  if (rawDims.length > QUERY_LIMITS.dimensions) throw bad("dimensions", `at most ${QUERY_LIMITS.dimensions}`);
  const dimensions = rawDims.map((d, i) => {
    const dim = checkDimension(`dimensions[${i}]`, d, { time: true });
    if (rawDims.indexOf(d) !== i) throw bad(`dimensions[${i}]`, `${dim} is listed twice`);
    return dim;
  });
  if (dimensions.filter(isTimeDimension).length > 1) throw bad("dimensions", "at most one time dimension");

  const rawFilters = body["filters"] ?? [];
  if (!Array.isArray(rawFilters)) throw bad("filters", "must be a list");
  const leaves = { n: 0 };
  const filters = rawFilters.map((f, i) => checkFilter(`filters[${i}]`, f, 1, leaves));

  const goalNamed = dimensions.includes("event:goal") || filterLeaves(filters).some((l) => l.dimension === "event:goal");
  metrics.forEach((m, i) => {
    if (VISIT_METRICS.has(m)) {
      const eventDim = dimensions.find(isEventDimension);
      if (eventDim !== undefined) throw bad(`metrics[${i}]`, `${m} is a visit metric and cannot be used with the event dimension ${eventDim}`);
    }
    if (m === "percentage" && dimensions.length === 0) throw bad(`metrics[${i}]`, "percentage needs at least one dimension");
    if ((m === "conversion_rate" || m === "group_conversion_rate") && !goalNamed) throw bad(`metrics[${i}]`, `${m} needs an event:goal filter or dimension`);
  });

  const rawOrder = body["order_by"];
  let orderBy: (readonly [string, "asc" | "desc"])[] = [];
  if (rawOrder !== undefined) {
    if (!Array.isArray(rawOrder) || rawOrder.length === 0) throw bad("order_by", "must be a non-empty list of [metric or dimension, asc|desc]");
    orderBy = rawOrder.map((o, i) => {
      if (!Array.isArray(o) || o.length !== 2) throw bad(`order_by[${i}]`, "must be [metric or dimension, asc|desc]");
      const [name, dir] = o as unknown[];
      if (typeof name !== "string" || (!(metrics as readonly string[]).includes(name) && !dimensions.includes(name))) throw bad(`order_by[${i}][0]`, "must be one of the query's metrics or dimensions");
      if (dir !== "asc" && dir !== "desc") throw bad(`order_by[${i}][1]`, "must be asc or desc");
      return [name, dir] as const;
    });
  } else {
    // Plausible's default: the time dimension ascending, then the first metric descending.
    const time = dimensions.find(isTimeDimension);
    if (time !== undefined) orderBy.push([time, "asc"]);
    orderBy.push([metrics[0]!, "desc"]);
  }

  const rawInclude = body["include"] ?? {};
  if (!isObject(rawInclude)) throw bad("include", "must be an object");
  let timeLabels = false;
  let totalRows = false;
  let comparisons: Comparison | null = null;
  for (const [key, v] of Object.entries(rawInclude)) {
    if (key === "time_labels" || key === "total_rows" || key === "imports") {
      if (typeof v !== "boolean") throw bad(`include.${key}`, "must be true or false");
      if (key === "time_labels") timeLabels = v;
      if (key === "total_rows") totalRows = v;
    } else if (key === "comparisons") {
      comparisons = v === null ? null : checkComparisons("include.comparisons", v);
    } else throw bad(`include.${key}`, "unknown field; one of time_labels, total_rows, comparisons, imports");
  }
  if (timeLabels && !dimensions.some(isTimeDimension)) throw bad("include.time_labels", "needs a time dimension");

  const rawPage = body["pagination"] ?? {};
  if (!isObject(rawPage)) throw bad("pagination", "must be an object {limit, offset}");
  for (const key of Object.keys(rawPage)) if (key !== "limit" && key !== "offset") throw bad(`pagination.${key}`, "unknown field");
  const limit = rawPage["limit"] ?? QUERY_LIMITS.limit;
  const offset = rawPage["offset"] ?? 0;
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > QUERY_LIMITS.limit) throw bad("pagination.limit", `must be a whole number from 1 to ${QUERY_LIMITS.limit}`);
  if (!Number.isInteger(offset) || (offset as number) < 0 || (offset as number) > QUERY_LIMITS.offset) throw bad("pagination.offset", `must be a whole number from 0 to ${QUERY_LIMITS.offset}`);

  return {
    siteId, dateRange, metrics, dimensions, filters, orderBy, orderGiven: rawOrder !== undefined,
    include: { timeLabels, totalRows, comparisons }, limit: limit as number, offset: offset as number,
  };
}
