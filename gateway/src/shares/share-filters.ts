// A shared link's fixed filters: Plausible Stats API v2 filter arrays (`[["is", "visit:source", ["Google"]]]`),
// the shape POST /api/v2/query takes (issue 22). Checked here in shape only — operator, dimension, clauses,
// the optional `{case_sensitive}` modifier, and `and` / `or` / `not` around them — so a link stores nothing
// the query engine will refuse.
//
// Applied today through the rollup read routes where a rollup can answer exactly: a breakdown of the very
// dimension the filters name (its rows are per value, so keeping the matching values is the filtered answer).
// Every other read of a filtered link (totals, series, other breakdowns, goals, the AI panel, live totals)
// would need rows of one dimension counted under another: it waits for the query engine and is refused
// with `needsQueryEngine` rather than shown unfiltered.
import type { BreakdownField } from "../api-schema/read.ts";
import { ApiError } from "../errors.ts";

export const FILTER_OPERATORS = ["is", "is_not", "contains", "contains_not", "matches", "matches_not"] as const;
type Operator = (typeof FILTER_OPERATORS)[number];

// The dimensions of Plausible's v2 filters and svc's own (issue 22); time dimensions cannot be filtered on.
const FILTER_DIMENSIONS = new Set([
  "event:name", "event:goal", "event:page", "event:hostname", "visit:entry_page", "visit:exit_page", "visit:source", "visit:referrer",
  "visit:channel", "visit:utm_source", "visit:utm_medium", "visit:utm_campaign", "visit:utm_content", "visit:utm_term", "visit:device",
  "visit:browser", "visit:browser_version", "visit:os", "visit:os_version", "visit:country", "visit:country_name", "visit:actor",
  "visit:assistant", "event:agent",
]);
const isDimension = (d: string) => FILTER_DIMENSIONS.has(d) || /^event:props:[^\s]{1,300}$/.test(d);

/** The rollup dimension a filter dimension reads, where the rollups hold it per value. */
const ROLLUP_FIELD: Readonly<Record<string, BreakdownField>> = {
  "event:page": "page", "visit:source": "source", "visit:channel": "channel", "visit:utm_source": "utm_source",
  "visit:utm_medium": "utm_medium", "visit:utm_campaign": "utm_campaign", "visit:country": "country", "visit:device": "device",
  "visit:browser": "browser", "visit:os": "os", "event:name": "event",
};

// 20 filters and 100 values a clause: more than any dashboard segment; a link stays a few KB.
const MAX_FILTERS = 20;
const MAX_CLAUSES = 100;
const MAX_CLAUSE_LENGTH = 2000;
const MAX_DEPTH = 4;

export type Filter = readonly unknown[];

/** Why `value` is not a filter list, or undefined when it is one. */
export function filterListProblem(value: readonly unknown[]): string | undefined {
  if (value.length > MAX_FILTERS) return `at most ${MAX_FILTERS} filters`;
  for (const [i, f] of value.entries()) {
    const problem = filterProblem(f, 0);
    if (problem) return `filter ${i}: ${problem}`;
  }
  return undefined;
}

function filterProblem(f: unknown, depth: number): string | undefined {
  if (!Array.isArray(f) || f.length === 0) return "must be an array such as [\"is\", \"visit:source\", [\"Google\"]]";
  if (depth > MAX_DEPTH) return `nested more than ${MAX_DEPTH} deep`;
  const [op, ...rest] = f as unknown[];
  if (op === "and" || op === "or") {
    if (rest.length !== 1 || !Array.isArray(rest[0]) || rest[0].length === 0 || rest[0].length > MAX_FILTERS) return `${op} takes one non-empty array of filters`;
    for (const inner of rest[0] as unknown[]) {
      const problem = filterProblem(inner, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  }
  if (op === "not") return rest.length === 1 ? filterProblem(rest[0], depth + 1) : "not takes one filter";
  if (typeof op !== "string" || !(FILTER_OPERATORS as readonly string[]).includes(op)) return `unknown operator ${JSON.stringify(op)}: one of ${FILTER_OPERATORS.join(", ")}, and, or, not`;
  const [dimension, clauses, modifiers] = rest;
  if (rest.length < 2 || rest.length > 3) return "must be [operator, dimension, [values], {case_sensitive}?]";
  if (typeof dimension !== "string" || !isDimension(dimension)) return `unknown dimension ${JSON.stringify(dimension)}`;
  if (!Array.isArray(clauses) || clauses.length === 0 || clauses.length > MAX_CLAUSES) return `values must be a non-empty array of at most ${MAX_CLAUSES} strings`;
  if (!clauses.every((c) => typeof c === "string" && c.length <= MAX_CLAUSE_LENGTH && !c.includes("\u0000"))) return `values must be strings of at most ${MAX_CLAUSE_LENGTH} characters`;
  if (op.startsWith("matches") && !clauses.every(compiles)) return "a value is not a valid regular expression";
  if (modifiers !== undefined) {
    const keys = modifiers !== null && typeof modifiers === "object" && !Array.isArray(modifiers) ? Object.keys(modifiers) : null;
    if (keys === null || keys.some((k) => k !== "case_sensitive") || typeof (modifiers as { case_sensitive?: unknown }).case_sensitive !== "boolean") {
      return "modifiers must be {\"case_sensitive\": true|false}";
    }
  }
  return undefined;
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

export function needsQueryEngine(): ApiError {
  return new ApiError("conflict", "this shared link's fixed filters apply to this read only through the query engine (POST /api/v2/query), which this gateway does not have yet; only a breakdown of the filtered dimension is shown");
}

/**
 * A predicate on the values of breakdown `field` that is exactly the link's filters, or null when the filters
 * name another dimension (or combine dimensions) so that no rollup breakdown of `field` can answer them.
 */
export function breakdownFilter(filters: readonly Filter[], field: BreakdownField): ((value: string) => boolean) | null {
  const tests = filters.map((f) => compile(f, field));
  if (tests.some((t) => t === null)) return null;
  return (value) => tests.every((t) => t!(value));
}

function compile(f: Filter, field: BreakdownField): ((value: string) => boolean) | null {
  const [op, a, b] = f as [string, unknown, unknown];
  if (op === "and" || op === "or") {
    const inner = (a as Filter[]).map((x) => compile(x, field));
    if (inner.some((t) => t === null)) return null;
    return op === "and" ? (v) => inner.every((t) => t!(v)) : (v) => inner.some((t) => t!(v));
  }
  if (op === "not") {
    const inner = compile(a as Filter, field);
    return inner === null ? null : (v) => !inner(v);
  }
  if (ROLLUP_FIELD[a as string] !== field) return null;
  const clauses = b as string[];
  const sensitive = (f[3] as { case_sensitive?: boolean } | undefined)?.case_sensitive ?? true;
  const norm = (s: string) => (sensitive ? s : s.toLowerCase());
  const wanted = clauses.map(norm);
  const positive: Record<string, (v: string) => boolean> = {
    is: (v) => wanted.includes(norm(v)),
    contains: (v) => wanted.some((c) => norm(v).includes(c)),
    matches: (() => {
      const patterns = clauses.map((c) => new RegExp(c, sensitive ? "u" : "iu"));
      return (v: string) => patterns.some((p) => p.test(v));
    })(),
  };
  const base = (op as Operator).replace(/_not$/, "");
  const test = positive[base]!;
  return op.endsWith("_not") ? (v) => !test(v) : test;
}
