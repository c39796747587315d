// Schemas shared by several routes: the actor labels, the window parameters, derived numbers, errors.
// Each is a single effect/Schema definition that both validates requests and feeds /api/openapi.json.
import { isStoredText, STORED_TEXT_MESSAGE } from "@svc/core";
import { Schema } from "effect";

/**
 * For names a client chooses (site, goal, API key, model): PostgreSQL cannot store U+0000 (the insert failed
 * with a 500) and would store an unpaired surrogate as U+FFFD, so such a name is a 400 (core/README.md
 * "Text that PostgreSQL can store").
 */
export const isStorableName = Schema.makeFilter(isStoredText, { message: STORED_TEXT_MESSAGE });

/** For the same names: only spaces is no name (the routes store the name trimmed). */
export const isNotBlank = Schema.makeFilter((s: string) => s.trim() !== "", { message: "must not be blank" });

export const ACTORS = ["human", "human_via_ai", "ai_crawler", "ai_agent", "bot"] as const;
export type ActorLabel = (typeof ACTORS)[number];

export const Actor = Schema.Literals(ACTORS).annotate({
  identifier: "Actor",
  description: "The label every row carries: a browser visitor, a visitor who arrived from an assistant, an AI crawler, a headless agent, other automation.",
});

/** The actor choices of a read: one actor, `humans` (human and human_via_ai: every person) or `all`. */
export type ActorChoice = ActorLabel | "humans" | "all";
export const HUMAN_ACTORS: readonly ActorLabel[] = ["human", "human_via_ai"];

export const ActorParam = Schema.Literals([...ACTORS, "humans", "all"]).annotate({
  message: `must be one of ${ACTORS.join(", ")}, humans or all`,
  description:
    "Whose traffic to count; `humans` is human and human_via_ai together (every person, however they arrived: visitors summed over the two, basis `inferred`), `all` sums every actor, its visitors people and AI agents only (AI crawlers and bots are counted as hits, never as visitors). Default `human`, so agents never inflate numbers unless asked.",
  default: "human",
});

// 366 days: one year including a leap day, the longest window a dashboard offers.
export const MAX_DAYS = 366;
export const DEFAULT_DAYS = 30;

export const Days = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_DAYS })).annotate({
  message: `must be a whole number of days from 1 to ${MAX_DAYS}`,
  description: "Window length in whole UTC days ending today (1 = today only). The previous window is the same length just before it.",
  default: DEFAULT_DAYS,
});

// 48 hours: "the last 24 hours" and its previous window are all a dashboard asks for hourly; longer runs are days.
export const MAX_HOURS = 48;

export const Hours = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_HOURS })).annotate({
  message: `must be a whole number of hours from 1 to ${MAX_HOURS}`,
  description:
    "Instead of days: a rolling window of hours ending with the current hour (24 = the current hour and the 23 before it), read from the hourly rollups; the previous window is the same number of hours just before it. Visitors are distinct per hour and summed over the hours, so a visitor seen in two hours counts twice (basis `inferred`). Not together with `days`.",
});

export const WindowQuery = {
  days: Schema.optionalKey(Days),
  hours: Schema.optionalKey(Hours),
  actor: Schema.optionalKey(ActorParam),
};

export const Basis = Schema.Literals(["observed", "inferred"]).annotate({
  identifier: "Basis",
  description: "`observed`: computed only from exact counts. `inferred`: rests on an assumption stated in the route's documentation (e.g. visitors summed across actors).",
});

export const Derived = Schema.Struct({
  value: Schema.NullOr(Schema.Finite),
  basis: Basis,
}).annotate({ identifier: "Derived", description: "A number derived from counts; null when undefined (a ratio over zero)." });
export type Derived = typeof Derived.Type;

export const FieldError = Schema.Struct({ path: Schema.String, message: Schema.String }).annotate({ identifier: "FieldError" });

export const ErrorBody = Schema.Struct({
  error: Schema.String,
  details: Schema.optionalKey(Schema.Array(FieldError)),
}).annotate({ identifier: "Error", description: "Every error: a one-line message, plus the bad fields for validation errors (400)." });

/** The window's own fields in every read response, with or without an actor. */
export const WindowSpanEcho = {
  days: Schema.Int.annotate({ description: "The window's length in whole UTC days; for an hours window, the UTC days it touches." }),
  from: Schema.String.annotate({ description: "First UTC day of the window, YYYY-MM-DD." }),
  to: Schema.String.annotate({ description: "Last UTC day of the window (today), YYYY-MM-DD." }),
  hours: Schema.optionalKey(Schema.Int).annotate({ description: "An hours window's length (the `hours` asked for); absent for whole days." }),
  start: Schema.optionalKey(Schema.String).annotate({ description: "An hours window's first hour, ISO 8601 (UTC); it runs through the current hour. For a site in another time zone, the UTC hour its first local day starts in." }),
  time_zone: Schema.optionalKey(Schema.String).annotate({
    description: "Present when the site's time zone is not UTC: `from`, `to` and the previous window are then local days of this zone, read from the hourly rollups (visitors summed per hour: `visitors_basis: inferred`).",
  }),
};

/** The window a read answered for, echoed so a client never has to recompute UTC days. */
export const WindowEcho = {
  site_id: Schema.Int,
  actor: ActorParam,
  ...WindowSpanEcho,
};

/**
 * `?d=` on the ingest routes: the site's domain in the URL, which HAProxy routes by (`balance url_param d`) so
 * that each site's rows reach the gateway that owns it (docs/self-hosting.md "Several gateways"). Optional;
 * when present it must name the body's site (every hit's, for an array), else 400.
 */
export const IngestQuery = Schema.Struct({
  d: Schema.optionalKey(Schema.String.annotate({ description: "The site's domain, as in the body: what a load balancer routes the request by." })),
});
