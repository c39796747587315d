// Schemas of the auth, key and public routes: the login and key bodies are the ones those routes decode with,
// the answers are what they send. The ingest bodies are core's own schemas, used as-is.
import { Schema } from "effect";
import { isNotBlank, isStorableName } from "./common.ts";
import { SCOPES } from "../auth/principal.ts";

const Scope = Schema.Literals(SCOPES).annotate({
  description: "`read`: every read route, the live stream and the MCP server. `admin`: also sites and goals (writes). Sessions are admin.",
});

const text = (what: string, max: number) =>
  Schema.String.annotate({ message: `must be ${what}` }).check(Schema.isMaxLength(max, { message: `must be at most ${max} characters` }));

// 320: the longest valid e-mail address (RFC 3696 errata); 1,024 bounds the password digest input without limiting real passwords.
export const LoginBody = Schema.Struct({ email: text("an e-mail address", 320), password: text("a string", 1024) }).annotate({
  identifier: "Login",
  message: "must be a JSON object",
});

export const LoginResponse = Schema.Struct({
  token: Schema.String.annotate({ description: "Session token: send as `Authorization: Bearer <token>`, or rely on the HttpOnly `svc_session` cookie set with it." }),
  expires_at: Schema.String.annotate({ description: "ISO 8601; sessions last 12 hours." }),
}).annotate({ identifier: "Session" });

export const Me = Schema.Struct({
  team_id: Schema.Int,
  via: Schema.Literals(["session", "api_key", "jwt"]),
  subject: Schema.String,
  scope: Scope,
  mode: Schema.Literals(["admin", "jwt"]),
}).annotate({ identifier: "Me" });

export const CreateKeyBody = Schema.Struct({
  name: text("a key name", 100).check(isNotBlank, isStorableName),
  scope: Schema.optionalKey(Scope.annotate({ message: `must be ${SCOPES.join(" or ")}`, description: "Default `read`." })),
}).annotate({ identifier: "CreateApiKey", message: "must be a JSON object" });

export const CreatedKey = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  scope: Scope,
  key: Schema.String.annotate({ description: "`svc_live_…`: shown only in this response; stored only as a hash." }),
  created_at: Schema.String,
}).annotate({ identifier: "CreatedApiKey" });

export const KeyList = Schema.Struct({
  keys: Schema.Array(
    Schema.Struct({
      id: Schema.Int,
      name: Schema.String,
      scope: Scope,
      prefix: Schema.String,
      last4: Schema.String,
      created_at: Schema.String,
      last_used_at: Schema.NullOr(Schema.String),
    }),
  ),
}).annotate({ identifier: "ApiKeyList" });

export const Manifest = Schema.Struct({
  version: Schema.Int,
  site: Schema.String,
  cookies: Schema.Literal(false),
  ip_stored: Schema.Literal(false),
  local_storage: Schema.Literal(false),
  retention_days: Schema.Int,
  city: Schema.Boolean,
}).annotate({ identifier: "Manifest", description: "What is collected and what is not, how uniques work, the retention window (further fields are listed in the document itself)." });

export const Health = Schema.Struct({
  status: Schema.Literals(["ok", "degraded"]),
  database: Schema.optionalKey(Schema.Literals(["up", "down"])),
  sites: Schema.optionalKey(Schema.Int),
  tracker: Schema.optionalKey(Schema.Boolean),
}).annotate({
  identifier: "Health",
  description: "Without a credential only `status`. With any valid credential also the database, sites, site-lane, writer, rollup, live, rejection, rate-limiter and default-partition counters and memory.",
});
