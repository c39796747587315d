// Requests and responses of the read routes (stats, breakdown, AI panel). Numbers come from the rollups only.
import { Schema } from "effect";
import { Derived, WindowEcho, WindowQuery, WindowSpanEcho } from "./common.ts";

export const BREAKDOWN_FIELDS = ["page", "source", "channel", "country", "device", "browser", "os", "utm_source", "utm_medium", "utm_campaign", "event", "rule"] as const;
export type BreakdownField = (typeof BREAKDOWN_FIELDS)[number];

// 1,000 rows: a whole "all pages" export in one request while keeping a response well under a megabyte.
export const MAX_LIMIT = 1000;
export const DEFAULT_LIMIT = 10;

const Limit = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_LIMIT })).annotate({
  message: `must be a whole number from 1 to ${MAX_LIMIT}`,
  description: "How many rows each list returns.",
  default: DEFAULT_LIMIT,
});

export const StatsQuery = Schema.Struct(WindowQuery);
export const BreakdownQuery = Schema.Struct({
  ...WindowQuery,
  field: Schema.Literals(BREAKDOWN_FIELDS).annotate({
    message: `must be one of ${BREAKDOWN_FIELDS.join(", ")}`,
    description:
      "The dimension to break down by. `rule`: why rows were not counted as human — the classifier's rule and the name it matched (`ai_crawler_token:GPTBot`), for bot, ai_crawler and ai_agent rows; its default actor is `all`.",
  }),
  limit: Schema.optionalKey(Limit),
});
/** The AI panel's query, the owner's and a shared link's: a view's filters narrow it (a link's own come first). */
export const SiteAiQuery = Schema.Struct({
  days: WindowQuery.days,
  hours: WindowQuery.hours,
  limit: Schema.optionalKey(Limit),
  filters: Schema.optionalKey(
    Schema.String.check(Schema.isMaxLength(100_000)).annotate({
      message: "must be a JSON array of filters of at most 100,000 characters",
      description:
        'POST /api/v2/query\'s `filters` as JSON (`[["is","visit:source",["Google"]]]`): the panel is then counted by the query engine with them, as a shared link\'s with fixed filters is (`agent_tasks.status` null).',
    }),
  ),
});

// 100 keys: more than a site's tracker sends in practice; the card's picker stays a short list.
export const MAX_PROP_KEYS = 100;
export const PropKeysQuery = Schema.Struct({ days: WindowQuery.days, hours: WindowQuery.hours });
export const PropKeysResponse = Schema.Struct({
  site_id: Schema.Int,
  keys: Schema.Array(
    Schema.Struct({
      key: Schema.String,
      events: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({ description: "Rows (pageviews and events) of the window that carry the property." }),
    }),
  ).annotate({ description: `The custom property names of the window's rows, the most used first, at most ${MAX_PROP_KEYS}.` }),
}).annotate({ identifier: "PropKeys" });

const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0));

export const Totals = Schema.Struct({
  visitors: Count.annotate({ description: "Distinct visitors per UTC day (per hour for an hours window), summed over the window; for actor=all distinct over actors too." }),
  pageviews: Count,
  events: Count.annotate({ description: "Browser events other than pageviews." }),
  hits: Count.annotate({ description: "Server middleware hits." }),
  views_per_visitor: Derived,
}).annotate({ identifier: "Totals" });

export const SeriesPoint = Schema.Struct({
  bucket: Schema.String.annotate({ description: "ISO 8601 start of the hour or day (UTC)." }),
  visitors: Count.annotate({ description: "Distinct visitors within this bucket." }),
  pageviews: Count,
  events: Count,
  hits: Count,
}).annotate({ identifier: "SeriesPoint" });

export const StatsResponse = Schema.Struct({
  ...WindowEcho,
  visitors_basis: Schema.optionalKey(Schema.Literal("inferred")).annotate({
    description:
      "Present when visitors are an upper bound, not exact: an hours window (visitors distinct per hour, summed), or a day of the window past the site's visitor budget (SVC_VISITOR_BUDGET).",
  }),
  visitors_inferred_days: Schema.optionalKey(Schema.Array(Schema.String)).annotate({ description: "The days past the visitor budget (YYYY-MM-DD)." }),
  current: Totals,
  previous: Schema.Struct({ from: Schema.String, to: Schema.String, start: WindowSpanEcho.start, totals: Totals }),
  change: Schema.Struct({
    visitors: Derived,
    pageviews: Derived,
    events: Derived,
    hits: Derived,
    views_per_visitor: Derived,
  }).annotate({ description: "(current − previous) / previous as a fraction; null when the previous value is 0." }),
  granularity: Schema.Literals(["hour", "day"]).annotate({ description: "hour for an hours window and when days ≤ 2 (through the current hour), else day (through today)." }),
  series: Schema.Array(SeriesPoint).annotate({ description: "Every bucket of the window, zero-filled." }),
}).annotate({ identifier: "Stats" });

export const BreakdownRow = Schema.Struct({
  value: Schema.String.annotate({ description: "The stored value; \"\" for none (direct traffic, unknown country…)." }),
  label: Schema.String.annotate({
    description: "A readable label: the value, \"Direct / None\" for an empty source, \"(not set)\" for any other empty value (as the query API labels them), or for field=rule a description such as \"user agent token GPTBot (ai.robots.txt)\".",
  }),
  visitors: Count,
  pageviews: Schema.optionalKey(Count).annotate({ description: "Every field except event." }),
  events: Schema.optionalKey(Count).annotate({ description: "field=event only: how many times the event was sent (pageview included)." }),
  hits: Count.annotate({ description: "Server middleware hits with this value (event has none)." }),
}).annotate({ identifier: "BreakdownRow" });

export const BreakdownResponse = Schema.Struct({
  ...WindowEcho,
  field: BreakdownQuery.fields.field,
  rows: Schema.Array(BreakdownRow).annotate({ description: "Sorted by visitors, then count, then value." }),
}).annotate({ identifier: "Breakdown" });

const Named = {
  name: Schema.String,
  operator: Schema.NullOr(Schema.String).annotate({ description: "Who runs it, from the classifier's tables; null when not listed." }),
};

export const AiResponse = Schema.Struct({
  site_id: Schema.Int,
  ...WindowSpanEcho,
  assistants: Schema.Struct({
    visitors: Count,
    pageviews: Count,
    rows: Schema.Array(Schema.Struct({ ...Named, visitors: Count, pageviews: Count })),
  }).annotate({ description: "Humans who arrived from an AI assistant (actor human_via_ai), by assistant." }),
  crawlers: Schema.Struct({
    hits: Count,
    rows: Schema.Array(Schema.Struct({ ...Named, hits: Count })),
  }).annotate({ description: "AI crawler requests seen by the server middleware (actor ai_crawler), by crawler." }),
  agents: Schema.Struct({
    fetches: Count,
    rows: Schema.Array(Schema.Struct({ ...Named, fetches: Count, visitors: Count })),
  }).annotate({ description: "Headless agents and assistant fetchers (actor ai_agent): fetches = middleware hits + pageviews from the script." }),
  crawl_to_referral: Schema.Array(
    Schema.Struct({
      page: Schema.String,
      crawled: Count.annotate({ description: "ai_crawler middleware hits on the page." }),
      referred: Count.annotate({ description: "human_via_ai visitors on the page (distinct per day, summed)." }),
      referred_pageviews: Count,
      never_referred: Schema.Boolean.annotate({ description: "Crawled in the window but no assistant-referred visitor landed on it." }),
    }),
  ).annotate({
    description:
      "Per page, over the window: crawler hits against assistant-referred visitors. The rollups keep page per actor, not page per crawler, so this is page × actor: all AI crawlers against all assistants.",
  }),
  agent_tasks: Schema.Struct({
    fetches: Count,
    status: Schema.NullOr(Schema.Struct({ "2xx": Count, "3xx": Count, "4xx": Count, "5xx": Count })).annotate({
      description: "Middleware hits by status class (script pageviews carry no status). Null on a shared link with fixed filters: its panel is counted by the query engine, whose rows keep no status.",
    }),
    error_share: Derived.annotate({ description: "(4xx + 5xx) / hits with a status; null when `status` is." }),
    top_paths: Schema.Array(Schema.Struct({ page: Schema.String, fetches: Count })),
  }).annotate({ description: "Agent task metrics, in place of a bounce rate (agents do not bounce). error_share = (4xx + 5xx) / hits with a status." }),
}).annotate({ identifier: "AiPanel", description: "The AI Traffic panel. Each list is fixed to its actor, so `actor` does not apply." });
