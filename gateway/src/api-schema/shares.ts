// Shared links: the body that makes one, the records listed, and the public answers of a shared view.
import { Schema } from "effect";
import { canonicalOrigin } from "../config.ts";
import { OPERATORS } from "../query/request.ts";
import { Actor } from "./common.ts";

// 8..1,024 characters: NIST SP 800-63B's minimum for a memorised secret; the upper bound keeps scrypt's input small.
const Password = Schema.String.check(
  Schema.isMinLength(8, { message: "must be at least 8 characters" }),
  Schema.isMaxLength(1024, { message: "must be at most 1024 characters" }),
).annotate({ message: "must be a string", description: "Viewers must type it first. Stored as an scrypt hash only." });

// Checked in full by the query engine's parser when the link is made (shares/share-filters.ts checkShareFilters).
export const Filters = Schema.Array(Schema.Unknown).annotate({
  message: "must be an array of filters",
  description: `Plausible Stats API v2 filters the viewer cannot remove, as POST /api/v2/query takes them (400 naming the field otherwise): [operator, dimension, [values], {case_sensitive}?] with operator one of ${OPERATORS.join(", ")}, or ["and"|"or", [filters]], ["not", filter]. Example: [["is", "visit:source", ["Google"]]].`,
});

// 10 origins: a site, its staging copy and a few partners' pages.
const MAX_FRAME_ORIGINS = 10;
const FrameOrigin = Schema.String.check(
  Schema.makeFilter((o: string) => (canonicalOrigin(o) === o.toLowerCase() && o.length <= 300) || "must be an origin such as https://example.com (scheme, host and port only)"),
);
const FrameOrigins = Schema.Array(FrameOrigin)
  .check(Schema.isMaxLength(MAX_FRAME_ORIGINS, { message: `at most ${MAX_FRAME_ORIGINS} origins` }))
  .annotate({ message: "must be an array of origins", description: "Origins allowed to frame the embed (`?embed=true`) and the counter (CSP frame-ancestors). Empty: nobody." });

export const CreateShare = Schema.Struct({
  password: Schema.optionalKey(Password),
  filters: Schema.optionalKey(Filters),
  actor: Schema.optionalKey(Actor.annotate({ message: "must be one of human, human_via_ai, ai_crawler, ai_agent, bot", description: "Show only this actor's numbers." })),
  frame_origins: Schema.optionalKey(FrameOrigins),
}).annotate({ identifier: "CreateShare", message: "must be a JSON object" });

const ShareFields = {
  id: Schema.Int,
  site_id: Schema.Int,
  password_protected: Schema.Boolean,
  filters: Schema.Array(Schema.Unknown),
  actor: Schema.NullOr(Actor),
  frame_origins: Schema.Array(Schema.String),
  created_at: Schema.String,
};

export const Share = Schema.Struct(ShareFields).annotate({ identifier: "Share", description: "A shared link; its token is shown only when it is made." });
export const ShareList = Schema.Struct({ shares: Schema.Array(Share) }).annotate({ identifier: "ShareList" });
export const CreatedShare = Schema.Struct({
  ...ShareFields,
  token: Schema.String.annotate({ description: "43 url-safe characters, shown only here: stored as its SHA-256." }),
  url: Schema.String.annotate({ description: "The shared view: SVC_PUBLIC_URL + /share/{token} (just the path when SVC_PUBLIC_URL is unset)." }),
}).annotate({ identifier: "CreatedShare" });

export const SharedView = Schema.Struct({
  password_required: Schema.Boolean.annotate({ description: "true until the viewer sends a valid access key (from /unlock); only frame_origins is given meanwhile." }),
  site: Schema.optionalKey(Schema.Struct({ domain: Schema.String, name: Schema.NullOr(Schema.String), time_zone: Schema.String.annotate({ description: "The site's IANA zone: its periods are local days." }) })),
  actor: Schema.optionalKey(Schema.NullOr(Actor)),
  filters: Schema.optionalKey(Schema.Array(Schema.Unknown)),
  frame_origins: Schema.Array(Schema.String),
}).annotate({ identifier: "SharedView" });

export const UnlockShare = Schema.Struct({
  password: Schema.String.check(Schema.isMaxLength(1024, { message: "must be at most 1024 characters" })).annotate({ message: "must be a string" }),
}).annotate({ identifier: "UnlockShare", message: "must be a JSON object" });

export const ShareAccess = Schema.Struct({
  access: Schema.String.annotate({ description: "Send as the `access` query parameter of the shared view's reads and streams." }),
  expires_at: Schema.String.annotate({ description: "ISO 8601; 12 hours." }),
}).annotate({ identifier: "ShareAccess" });
