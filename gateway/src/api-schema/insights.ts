// Anomaly flags and insights (routes/anomalies.ts, routes/insights.ts). The dashboard and the MCP server
// mirror these shapes.
import { ANOMALY_KINDS } from "@svc/core";
import { Schema } from "effect";

// 30 days: the crawler-spike check walks every hour of the window against the 14 days before each, from the
// hourly rollups; a month is the longest window a person scans for spikes.
export const MAX_ANOMALY_DAYS = 30;
// 7 days: the week a weekly insights run describes.
export const DEFAULT_ANOMALY_DAYS = 7;

export const AnomaliesQuery = Schema.Struct({
  days: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_ANOMALY_DAYS })).annotate({
      message: `must be a whole number of days from 1 to ${MAX_ANOMALY_DAYS}`,
      description: "Whole UTC days ending now in which crawler spikes and newly crawled pages are looked for. The human drop always looks at the last 6 and 24 complete hours.",
      default: DEFAULT_ANOMALY_DAYS,
    }),
  ),
});

const measure = <B extends "observed" | "inferred">(basis: B, description: string) =>
  Schema.Struct({ value: Schema.Finite, basis: Schema.Literal(basis) }).annotate({ description });

export const AnomalyFlag = Schema.Struct({
  kind: Schema.Literals(ANOMALY_KINDS).annotate({
    description: "crawler_spike: one crawler's hourly hits far above its 14-day baseline; human_drop: human visitors far below the same hours of previous weeks; crawled_never_referred: a page first crawled in the window with no assistant-referred visitor.",
  }),
  subject: Schema.String.annotate({ description: "The crawler's name, \"human\", or the page path (visitor-supplied text: show it as text)." }),
  window: Schema.Struct({
    start: Schema.String.annotate({ description: "ISO 8601, inclusive." }),
    end: Schema.String.annotate({ description: "ISO 8601, exclusive." }),
  }),
  observed: measure("observed", "Read from the rollups: the crawler's hits, the human visitor-hours, or the page's crawler hits in the window."),
  expected: measure("inferred", "The baseline: the median of the same hour over 14 days, of the same hours of previous weeks, or 0 for a page never crawled before."),
  score: measure("inferred", "How far observed lies from expected, in robust standard deviations (median absolute deviation, never below Poisson noise)."),
  severity: Schema.Literals(["low", "medium", "high"]),
}).annotate({ identifier: "AnomalyFlag" });

export const AnomaliesResponse = Schema.Struct({
  site_id: Schema.Int,
  days: Schema.Int,
  from: Schema.String,
  to: Schema.String,
  generated_at: Schema.String.annotate({ description: "When these flags were computed (answers are cached up to 5 minutes)." }),
  flags: Schema.Array(AnomalyFlag),
}).annotate({ identifier: "Anomalies" });

export const InsightsAggregate = Schema.Struct({
  period: Schema.String.annotate({ description: "\"YYYY-MM-DD → YYYY-MM-DD\": the 7 UTC days ending on the run's day." }),
  visitors: Schema.Struct({
    human: Schema.Finite,
    human_via_ai: Schema.Finite,
    delta_wow: Schema.NullOr(Schema.Finite).annotate({ description: "Week-over-week change of human + human_via_ai visitors, as a fraction; null when the week before had none." }),
  }),
  ai_referrals: Schema.Record(Schema.String, Schema.Finite).annotate({ description: "Assistant name → referred visitors (top 20)." }),
  crawlers: Schema.Record(Schema.String, Schema.Finite).annotate({ description: "AI crawler name → hits (top 20)." }),
  crawl_to_referral: Schema.Array(Schema.Struct({ page: Schema.String, crawled: Schema.Finite, referred: Schema.Finite })).annotate({ description: "Top 20 pages by crawler hits." }),
  anomalies: Schema.Array(
    Schema.Struct({
      kind: Schema.Literals(ANOMALY_KINDS),
      subject: Schema.String,
      severity: Schema.Literals(["low", "medium", "high"]),
      observed: Schema.Finite,
      expected: Schema.Finite,
    }),
  ).annotate({ description: "The open anomaly flags of the same 7 days (GET …/anomalies?days=7), at most 20." }),
}).annotate({ identifier: "InsightsAggregate", description: "SPEC \"Aggregate input given to the language model\" plus the open anomaly flags: exactly what was sent, labels sanitised." });

export const InsightsResponse = Schema.Struct({
  status: Schema.Literals(["ok", "error", "empty"]).annotate({ description: "The last run's outcome. error: it failed (see error); the findings of the last good run, if any, are still shown." }),
  reason: Schema.NullOr(Schema.Literals(["provider none", "no run yet"])).annotate({ description: "Why the result is empty." }),
  running: Schema.Boolean.annotate({ description: "A run of this site is in progress; GET again for its result." }),
  provider: Schema.NullOr(Schema.String),
  model: Schema.NullOr(Schema.String),
  generated_at: Schema.NullOr(Schema.String).annotate({ description: "When the findings shown were written; null when there are none." }),
  findings: Schema.Array(Schema.String).annotate({ description: "At most 5 plain-text sentences of the last good run (no HTML, no links to hosts outside the input)." }),
  input: Schema.NullOr(InsightsAggregate).annotate({ description: "The exact aggregate that left the server for these findings (or for the failed run when none succeeded), or null when nothing was sent." }),
  instructions: Schema.NullOr(Schema.String).annotate({ description: "The system message sent with it." }),
  error: Schema.NullOr(Schema.String).annotate({ description: "Why the last run failed: the provider, the HTTP status or what went wrong, and what to set; keys, tokens and addresses are redacted. Null when it succeeded." }),
  failed_at: Schema.NullOr(Schema.String).annotate({ description: "When the last run failed; null unless status is error." }),
}).annotate({ identifier: "Insights" });
