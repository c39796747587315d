// Sites and goals: their records, and the bodies that create or change them.
import { Schema } from "effect";
import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from "../sites/site-fields.ts";
import { isNotBlank, isStorableName, WindowEcho, WindowQuery } from "./common.ts";

export const Site = Schema.Struct({
  id: Schema.Int,
  domain: Schema.String.annotate({ description: "Canonical hostname: lowercase, no scheme, port, path or trailing dot; IDN in punycode." }),
  name: Schema.NullOr(Schema.String).annotate({ description: "Display name." }),
  team_id: Schema.Int,
  retention_days: Schema.Int,
  created_at: Schema.String.annotate({ description: "ISO 8601, UTC." }),
  time_zone: Schema.String.annotate({ description: "IANA time zone of the site's reports (default UTC): days, weeks and months follow it. Visitor hashes still rotate at 00:00 UTC." }),
  hit_token_set: Schema.Boolean.annotate({ description: "Whether /api/hit for this site needs `Authorization: Bearer svc_hit_…`." }),
  hit_token: Schema.optionalKey(Schema.String.annotate({ description: "`svc_hit_…`: only in the answer that made it (POST or PATCH with `hit_token: true`); stored only as a hash." })),
}).annotate({ identifier: "Site" });

export const SiteList = Schema.Struct({ sites: Schema.Array(Site) }).annotate({ identifier: "SiteList" });

const Domain = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(253), isStorableName).annotate({
  message: "must be a domain name (at most 253 characters)",
  description: "A hostname or URL; it is normalised (https://Example.com:443/x → example.com).",
});
const Name = Schema.NullOr(Schema.String.check(Schema.isMaxLength(200), isStorableName)).annotate({ message: "must be a string of at most 200 characters or null" });
const Retention = Schema.Int.check(Schema.isBetween({ minimum: MIN_RETENTION_DAYS, maximum: MAX_RETENTION_DAYS })).annotate({
  message: `must be a whole number of days from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}`,
  description: "Days of raw rows and rollups kept. Default 395 (13 months).",
});

// Shape only (an IANA name's characters); whether the zone exists is checked with Intl (site-fields.ts), so an
// unknown one is a 400 naming time_zone with the list's spelling hint.
const TimeZone = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(64), isStorableName).annotate({
  message: "must be an IANA time zone name such as Europe/Berlin or UTC",
  description: "IANA time zone (Europe/Berlin, Asia/Kolkata, America/St_Johns; default UTC). Reports' days, weeks and months follow it; half-hour zones included.",
});

const HitToken = Schema.Boolean.annotate({
  message: "must be true or false",
  description: "true: make a new hit token (replacing any old one), shown once in the answer; false: remove it, so /api/hit needs none.",
});

export const CreateSite = Schema.Struct({
  domain: Domain,
  name: Schema.optionalKey(Name),
  retention_days: Schema.optionalKey(Retention),
  time_zone: Schema.optionalKey(TimeZone),
  hit_token: Schema.optionalKey(HitToken),
}).annotate({ identifier: "CreateSite", message: "must be a JSON object" });

export const PatchSite = Schema.Struct({
  domain: Schema.optionalKey(Domain.annotate({ description: "A new domain: ingest for the old one answers 404 at once." })),
  name: Schema.optionalKey(Name),
  retention_days: Schema.optionalKey(Retention),
  time_zone: Schema.optionalKey(TimeZone),
  hit_token: Schema.optionalKey(HitToken),
}).annotate({ identifier: "PatchSite", message: "must be a JSON object" });

export const DeleteSiteQuery = Schema.Struct({
  confirm: Schema.String.annotate({
    message: "must be a string",
    description: "The site's domain, typed again: the deletion happens only when it matches exactly (all of the site's data goes).",
  }),
}).annotate({ identifier: "DeleteSiteQuery" });

// 120 characters: event names are at most 120 (core LIMITS.eventName), so a longer goal could never match.
export const MAX_GOAL_NAME = 120;

// 114: `Visit ` and the path fit the 120 characters of a goal name.
export const MAX_GOAL_PAGE_PATH = MAX_GOAL_NAME - "Visit ".length;
const isPath = Schema.makeFilter((s: string) => s.startsWith("/"), { message: "must start with /" });

export const CreateGoal = Schema.Struct({
  name: Schema.optionalKey(Schema.String.check(
    isNotBlank,
    Schema.isMaxLength(MAX_GOAL_NAME, { message: `must be at most ${MAX_GOAL_NAME} characters` }),
    isStorableName,
  ).annotate({ message: "must be a string", description: "An event-name goal: the exact event name to count (`pageview` counts pageviews)." })),
  page_path: Schema.optionalKey(Schema.String.check(
    isPath,
    Schema.isMaxLength(MAX_GOAL_PAGE_PATH, { message: `must be at most ${MAX_GOAL_PAGE_PATH} characters` }),
    isStorableName,
  ).annotate({
    message: "must be a string",
    description: "A page-path goal (give this or `name`): pageviews of pages matching it convert; `*` matches any characters but `/`, `**` any characters. Named `Visit <page_path>`.",
  })),
}).annotate({ identifier: "CreateGoal", message: "must be a JSON object with name or page_path" });

export const Goal = Schema.Struct({
  id: Schema.Int,
  site_id: Schema.Int,
  name: Schema.String,
  page_path: Schema.NullOr(Schema.String).annotate({ description: "The page pattern of a page-path goal; null for an event-name goal." }),
  created_at: Schema.String,
}).annotate({ identifier: "Goal" });

export const GoalsQuery = Schema.Struct(WindowQuery);

export const GoalsReport = Schema.Struct({
  ...WindowEcho,
  goals: Schema.Array(
    Schema.Struct({
      id: Schema.Int,
      name: Schema.String,
      page_path: Schema.NullOr(Schema.String),
      created_at: Schema.String,
      conversions: Schema.Int.annotate({ description: "Events with exactly this name in the window, for the actor." }),
      visitors: Schema.Int.annotate({ description: "Distinct converting visitors per UTC day, summed over the window." }),
    }),
  ),
}).annotate({ identifier: "GoalsReport" });
