// Every route of the gateway, described once: method, path, credential, and the Schemas of its query, body
// and responses. /api/openapi.json is generated from this list, and the router is built from it too
// (routes/operation-routes.ts): each handler is bound to an operation's `METHOD path`, authenticated by its
// `security` and given its query and body decoded with its Schemas, so the document cannot drift from what a
// route accepts.
import { BrowserEventBody, ServerHitsBody } from "@svc/core";
import type { Schema } from "effect";
import { IngestQuery } from "./common.ts";
import { CreatedKey, CreateKeyBody, Health, KeyList, LoginBody, LoginResponse, Manifest, Me } from "./other-routes.ts";
import { AnomaliesQuery, AnomaliesResponse, InsightsResponse } from "./insights.ts";
import { AiQuery, AiResponse, BreakdownQuery, BreakdownResponse, StatsQuery, StatsResponse } from "./read.ts";
import { CreateGoal, CreateSite, Goal, GoalsQuery, GoalsReport, PatchSite, Site, SiteList } from "./sites.ts";
import { LlmSettings, PatchLlm } from "./team.ts";

/** none; credential: any (a read key is enough); admin: a session, a JWT or an admin key; session: a person only. */
export type Security = "none" | "credential" | "admin" | "session";

export interface OperationResponse {
  readonly status: number;
  readonly description: string;
  readonly schema?: Schema.Top;
  /** Default application/json when a schema is given. */
  readonly contentType?: string;
}

export interface Operation {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE" | "OPTIONS";
  /** OpenAPI form: `{id}` segments. */
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  readonly security: Security;
  readonly pathParams?: Readonly<Record<string, string>>;
  readonly query?: Schema.Top;
  readonly body?: Schema.Top;
  readonly bodyContentTypes?: readonly string[];
  /**
   * Default "refused": the router decodes the body and a field the Schema does not name is a 400, so the document
   * closes the object (additionalProperties: false). "ignored": the ingest pipeline decodes it with core's decoder
   * of the same Schema, which skips unknown fields so an older gateway still counts a newer tracker's events.
   */
  readonly unknownBodyFields?: "refused" | "ignored";
  readonly responses: readonly OperationResponse[];
  /** Error statuses besides those implied by security, query and body. */
  readonly errors?: readonly number[];
}

const SITE_ID = { id: "The site's numeric id or its domain." };
const ok = (schema: Schema.Top, description = "OK"): OperationResponse => ({ status: 200, description, schema });
const SITE_ERRORS = [403, 404];

// Kept with its literal types (each method, path and Schema), from which the handlers' request types derive.
const DEFINED = [
  // Ingest (routes/ingest.ts)
  {
    method: "POST", path: "/api/event", tag: "ingest", security: "none", summary: "Record a browser event (the tracker script)",
    description: "CORS-open; the body may be sent as text/plain by sendBeacon. 202 once the row is committed. At most SVC_EVENT_RATE_PER_CLIENT requests a second per client (bursts of 30 s worth), then 429 with Retry-After.",
    query: IngestQuery, body: BrowserEventBody, bodyContentTypes: ["application/json", "text/plain"], unknownBodyFields: "ignored",
    responses: [{ status: 202, description: "Accepted and durably written." }], errors: [404, 422, 429, 503],
  },
  { method: "OPTIONS", path: "/api/event", tag: "ingest", security: "none", summary: "CORS preflight for /api/event", responses: [{ status: 204, description: "CORS headers." }] },
  {
    method: "POST", path: "/api/hit", tag: "ingest", security: "none", summary: "Record server hits (the middleware), one object or an array of up to 100",
    description: "A site with a hit token needs `Authorization: Bearer svc_hit_…` (401 otherwise). At most SVC_HIT_RATE_PER_SITE hits a second per site (bursts of 30 s worth), then 429 with Retry-After.",
    query: IngestQuery, body: ServerHitsBody, unknownBodyFields: "ignored", responses: [{ status: 202, description: "Accepted and durably written." }], errors: [401, 404, 422, 429, 503],
  },
  // Public (routes/public.ts)
  { method: "GET", path: "/js/svc.js", tag: "public", security: "none", summary: "The tracker script (cacheable 5 minutes)", responses: [{ status: 200, description: "JavaScript.", contentType: "application/javascript" }], errors: [404] },
  {
    method: "GET", path: "/api/sites/{domain}/manifest", tag: "public", security: "none", summary: "The site's collection manifest",
    pathParams: { domain: "The site's domain." }, responses: [ok(Manifest)], errors: [404],
  },
  { method: "GET", path: "/healthz", tag: "public", security: "none", summary: "Health (`status` only without a credential; counters with one)", responses: [ok(Health), { status: 503, description: "Database down.", schema: Health }] },
  { method: "GET", path: "/api/openapi.json", tag: "public", security: "none", summary: "This document (OpenAPI 3.1)", responses: [{ status: 200, description: "OpenAPI 3.1 JSON." }] },
  // Authentication and keys (routes/auth.ts)
  {
    method: "POST", path: "/api/auth/login", tag: "auth", security: "none", summary: "Sign in as the operator (admin mode)",
    description: "Sets the HttpOnly `svc_session` cookie too. At most 10 attempts per minute per client.",
    body: LoginBody, responses: [ok(LoginResponse)], errors: [401, 404, 429],
  },
  { method: "POST", path: "/api/auth/logout", tag: "auth", security: "session", summary: "End the session", responses: [{ status: 204, description: "Session ended; cookie cleared." }] },
  { method: "GET", path: "/api/auth/me", tag: "auth", security: "credential", summary: "Who the credential is", responses: [ok(Me)] },
  { method: "GET", path: "/api/keys", tag: "auth", security: "session", summary: "List the team's API keys (no secrets)", responses: [ok(KeyList)] },
  { method: "POST", path: "/api/keys", tag: "auth", security: "session", summary: "Create an API key (its secret is shown once)", body: CreateKeyBody, responses: [{ status: 201, description: "Created.", schema: CreatedKey }] },
  {
    method: "DELETE", path: "/api/keys/{id}", tag: "auth", security: "session", summary: "Revoke an API key at once",
    pathParams: { id: "The key's id." }, responses: [{ status: 204, description: "Revoked." }], errors: [400, 404],
  },
  // Sites (routes/sites.ts)
  { method: "GET", path: "/api/sites", tag: "sites", security: "credential", summary: "The team's sites", responses: [ok(SiteList)] },
  { method: "POST", path: "/api/sites", tag: "sites", security: "admin", summary: "Register a site", body: CreateSite, responses: [{ status: 201, description: "Created.", schema: Site }], errors: [409] },
  {
    method: "PATCH", path: "/api/sites/{id}", tag: "sites", security: "admin", summary: "Change a site's domain, name or retention",
    description: "A new domain takes effect at once: ingest for the old domain answers 404 immediately.",
    pathParams: SITE_ID, body: PatchSite, responses: [ok(Site)], errors: [...SITE_ERRORS, 409],
  },
  // Goals (routes/goals.ts)
  {
    method: "GET", path: "/api/sites/{id}/goals", tag: "goals", security: "credential", summary: "Goals with their conversions in the window",
    pathParams: SITE_ID, query: GoalsQuery, responses: [ok(GoalsReport)], errors: SITE_ERRORS,
  },
  {
    method: "POST", path: "/api/sites/{id}/goals", tag: "goals", security: "admin", summary: "Create a goal (an exact event name)",
    pathParams: SITE_ID, body: CreateGoal, responses: [{ status: 201, description: "Created.", schema: Goal }], errors: [...SITE_ERRORS, 409],
  },
  {
    method: "DELETE", path: "/api/sites/{id}/goals/{goalId}", tag: "goals", security: "admin", summary: "Delete a goal (its events remain)",
    pathParams: { ...SITE_ID, goalId: "The goal's id." }, responses: [{ status: 204, description: "Deleted." }], errors: SITE_ERRORS,
  },
  // Read routes (routes/read.ts)
  {
    method: "GET", path: "/api/sites/{id}/stats", tag: "read", security: "credential", summary: "Totals, the previous window, change and a series",
    pathParams: SITE_ID, query: StatsQuery, responses: [ok(StatsResponse)], errors: SITE_ERRORS,
  },
  {
    method: "GET", path: "/api/sites/{id}/breakdown", tag: "read", security: "credential", summary: "Top values of one dimension",
    pathParams: SITE_ID, query: BreakdownQuery, responses: [ok(BreakdownResponse)], errors: SITE_ERRORS,
  },
  {
    method: "GET", path: "/api/sites/{id}/ai", tag: "read", security: "credential", summary: "The AI Traffic panel",
    description: "Assistants (human_via_ai), crawlers (ai_crawler), agents (ai_agent), crawl-to-referral per page and agent task metrics. `actor` does not apply.",
    pathParams: SITE_ID, query: AiQuery, responses: [ok(AiResponse)], errors: SITE_ERRORS,
  },
  // Anomalies and insights (routes/anomalies.ts, routes/insights.ts)
  {
    method: "GET", path: "/api/sites/{id}/anomalies", tag: "read", security: "credential", summary: "Anomaly flags from the rollup series",
    description: "Crawler spikes, a drop in human visitors and pages crawled but never referred; every number labelled observed or inferred. Cached up to 5 minutes.",
    pathParams: SITE_ID, query: AnomaliesQuery, responses: [ok(AnomaliesResponse)], errors: SITE_ERRORS,
  },
  {
    method: "GET", path: "/api/sites/{id}/insights", tag: "read", security: "credential", summary: "The last insights run, with the exact input sent",
    description: "status empty with reason `provider none` (insights off) or `no run yet`.",
    pathParams: SITE_ID, responses: [ok(InsightsResponse)], errors: SITE_ERRORS,
  },
  {
    method: "POST", path: "/api/sites/{id}/insights/run", tag: "read", security: "admin", summary: "Run insights now (spends the team's model budget: a session or an admin key)",
    description: "Sends the aggregate to the team's provider and stores the result (status error with the reason when the provider failed). With provider none nothing is sent: status empty, reason `provider none`. 409 while a run of the site is in flight.",
    pathParams: SITE_ID, responses: [ok(InsightsResponse)], errors: [...SITE_ERRORS, 409],
  },
  // Live stream
  {
    method: "GET", path: "/api/sites/{id}/live", tag: "read", security: "credential", summary: "Live rollup deltas (Server-Sent Events)",
    description: "On connect a snapshot (today's totals per actor, visitors in the last 5 minutes), then one delta per writer flush; a heartbeat every 15 s, at which the credential is checked again (`revoked`, then the end, once it is revoked, logged out or expired). A client that falls behind is told to resync and dropped. At most SVC_LIVE_STREAMS_PER_CREDENTIAL (20) streams per credential: 429 beyond.",
    pathParams: SITE_ID, responses: [{ status: 200, description: "text/event-stream.", contentType: "text/event-stream" }], errors: [...SITE_ERRORS, 429],
  },
  // Team settings (routes/team.ts)
  { method: "GET", path: "/api/team/llm", tag: "team", security: "session", summary: "The team's language-model settings (keys never returned)", responses: [ok(LlmSettings)] },
  { method: "PATCH", path: "/api/team/llm", tag: "team", security: "session", summary: "Choose the team's language-model provider and model", body: PatchLlm, responses: [ok(LlmSettings)] },
] as const satisfies readonly Operation[];

export const OPERATIONS: readonly Operation[] = DEFINED;

type AnyOperation = (typeof DEFINED)[number];
/** `METHOD path` of one operation (distributes over the union, never mixing one's method with another's path). */
type KeyOf<O> = O extends Operation ? `${O["method"]} ${O["path"]}` : never;
/** The name a handler is bound by: `"GET /api/sites/{id}/stats"`. */
export type OperationKey = KeyOf<AnyOperation>;
export type OperationAt<K extends OperationKey> = AnyOperation extends infer O ? (O extends Operation ? (KeyOf<O> extends K ? O : never) : never) : never;

export const operationKey = (op: Operation): string => `${op.method} ${op.path}`;
