// POST /api/v2/query: Plausible's Stats API v2 request and response (https://plausible.io/docs/stats-api). The
// body's fields are checked by query/request.ts, which names the field of every refusal (`metrics[1]: unknown
// metric "foo"`); the Schema here documents them and refuses fields Plausible does not have.
import { Schema } from "effect";
import { DATE_SHORTCUTS, EVENT_DIMENSIONS, METRICS, OPERATORS, QUERY_LIMITS, TIME_DIMENSIONS, VISIT_DIMENSIONS } from "../query/request.ts";

const described = (description: string) => Schema.Unknown.annotate({ description });

export const QueryBody = Schema.Struct({
  site_id: Schema.String.annotate({ description: "The site's domain." }),
  date_range: described(
    `One of ${DATE_SHORTCUTS.join(", ")} (in the site's time zone; "7d" = the last 7 days including today, "month" and "year" the current calendar ones, "all" the site's retention), ` +
      `or [start, end]: two dates (local days, both included) or two ISO 8601 date-times with offsets. At most ${QUERY_LIMITS.rangeDays} days.`,
  ),
  metrics: described(`Non-empty list of: ${METRICS.join(", ")} (hits: server middleware rows, svc's own). At most ${QUERY_LIMITS.metrics}.`),
  dimensions: Schema.optionalKey(
    described(
      `Up to ${QUERY_LIMITS.dimensions} of: ${[...EVENT_DIMENSIONS, "event:props:<key>", ...VISIT_DIMENSIONS, ...TIME_DIMENSIONS].join(", ")}. ` +
        "visit:actor (human, human_via_ai, ai_crawler, ai_agent, bot), visit:assistant and event:agent are svc's own.",
    ),
  ),
  filters: Schema.optionalKey(
    described(
      `[operator, dimension, [values], {case_sensitive}?] with operator one of ${OPERATORS.join(", ")} (matches: RE2), combined by ["and", [...]], ["or", [...]], ["not", filter]. ` +
        `At most ${QUERY_LIMITS.filterLeaves} filters, ${QUERY_LIMITS.clauses} values each, nested ${QUERY_LIMITS.filterDepth} deep. Without visit:actor in a filter or dimension only actor human counts.`,
    ),
  ),
  order_by: Schema.optionalKey(described("[[metric or dimension, \"asc\" | \"desc\"], …]; default: the time dimension ascending, then the first metric descending.")),
  include: Schema.optionalKey(
    described(
      "{time_labels?: boolean, total_rows?: boolean, comparisons?: {mode: previous_period | year_over_year | custom, date_range? (custom), match_day_of_week?: boolean}}. " +
        "With comparisons every result row carries comparison: {dimensions, metrics, change}.",
    ),
  ),
  pagination: Schema.optionalKey(described(`{limit (1–${QUERY_LIMITS.limit}, default ${QUERY_LIMITS.limit}), offset (default 0)}, applied after ordering.`)),
}).annotate({ identifier: "QueryRequest", message: "must be a JSON object" });

const Row = Schema.Struct({
  dimensions: Schema.Array(Schema.String),
  metrics: Schema.Array(Schema.Number),
  comparison: Schema.optionalKey(
    Schema.Struct({
      dimensions: Schema.Array(Schema.String),
      metrics: Schema.Array(Schema.Number),
      change: Schema.Array(Schema.NullOr(Schema.Number)).annotate({ description: "Percent change; points for bounce_rate, percentage and conversion rates." }),
    }),
  ),
});

export const QueryResponse = Schema.Struct({
  results: Schema.Array(Row),
  meta: Schema.Record(Schema.String, Schema.Unknown).annotate({ description: "time_labels, total_rows when asked; operators (name → operator) with event:agent." }),
  query: Schema.Record(Schema.String, Schema.Unknown).annotate({ description: "The query as run: date_range as ISO date-times in the site's time zone, defaults filled in." }),
}).annotate({ identifier: "QueryResponse" });
