// Every route of the gateway, described once: method, path, credential, and the Schemas of its query, body
// and responses. /api/openapi.json is generated from this list, and the router is built from it too
// (routes/operation-routes.ts): each handler is bound to an operation's `METHOD path`, authenticated by its
// `security` and given its query and body decoded with its Schemas, so the document cannot drift from what a
// route accepts.
import { BrowserEventBody, ServerHitsBody } from "@svc/core";
import type { Schema } from "effect";
import { ImportLine, ImportQuery, ImportReport } from "./import.ts";
import { IngestQuery } from "./common.ts";
import { CreatedKey, CreateKeyBody, Health, KeyList, LoginBody, LoginResponse, Manifest, Me } from "./other-routes.ts";
import { AnomaliesQuery, AnomaliesResponse, InsightsResponse } from "./insights.ts";
import { QueryBody, QueryResponse } from "./query.ts";
import { AiResponse, BreakdownQuery, BreakdownResponse, PropKeysQuery, PropKeysResponse, SiteAiQuery, StatsQuery, StatsResponse } from "./read.ts";
import { CreateGoal, CreateSite, DeleteSiteQuery, Goal, GoalsQuery, GoalsReport, PatchSite, Site, SiteList } from "./sites.ts";
import { RawExportQuery } from "./exports.ts";
import { CreateFunnel, Funnel, FunnelList, FunnelResult, FunnelResultQuery, PatchFunnel } from "./funnels.ts";
import { CreateSegment, Segment, SegmentList } from "./segments.ts";
import { AlertList, CreateAlertRule, CreatedAlertRule, CreateRecipient, Recipient, RecipientList } from "./notifications.ts";
import { CreatedShare, CreateShare, ShareAccess, SharedView, ShareList, UnlockShare } from "./shares.ts";
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
   * An NDJSON body of these lines instead of one JSON `body`: the transport streams it to the handler
   * (`req.bodyStream`, past the 64 KB limit) and the handler checks each line itself.
   */
  readonly lines?: Schema.Top;
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
const SHARE_TOKEN = { token: "The shared link's token (43 url-safe characters)." };
const SHARED_READ =
  "No account: the token is the credential. A link with a password needs `?access=` (from /unlock). The link's actor replaces `actor` (403 when another is asked); with fixed filters, stats, breakdowns, goals, the AI panel (without HTTP status classes: `agent_tasks.status` null) and the counter's visitors now are answered by the query engine with the filters applied (the numbers of POST /api/v2/query with the same filters); the bot rule breakdown is not filterable (409).";
const SHARED_ERRORS = [401, 403, 404, 409];
const MAIL_TOKEN = { token: "The link's token, from the e-mail." };

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
  { method: "GET", path: "/adapters.tgz", tag: "public", security: "none", summary: "The middleware package, packed (`npm install https://{gateway}/adapters.tgz`)", responses: [{ status: 200, description: "The npm tarball of @svc/adapters.", contentType: "application/gzip" }], errors: [404] },
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
  {
    method: "DELETE", path: "/api/sites/{id}", tag: "sites", security: "admin", summary: "Delete a site and all of its data",
    description:
      "Ingest for the domain answers 404 at once; then every raw row, rollup, daily salt, visitor-state snapshot, goal and insights run of the site is deleted. `confirm` must repeat the domain.",
    pathParams: SITE_ID, query: DeleteSiteQuery, responses: [{ status: 204, description: "Deleted." }], errors: [...SITE_ERRORS, 400],
  },
  // History import (routes/import.ts)
  {
    method: "POST", path: "/api/sites/{id}/import", tag: "sites", security: "admin", summary: "Import history: NDJSON, one event per line, streamed",
    description: "Body `application/x-ndjson` (no size limit; read as it arrives). Each line is checked like ingest; refused lines are reported with their line number and reason and never stop the others. All good lines are stored in one transaction or none. The same body again (SHA-256) is answered `duplicate` and changes nothing. Only settled days (before today; before yesterday until 00:15 UTC) within the site's retention; imported rows store no address and show in every read and rollup. One import at a time per database (409 otherwise).",
    pathParams: SITE_ID, query: ImportQuery, lines: ImportLine, bodyContentTypes: ["application/x-ndjson"],
    responses: [ok(ImportReport)], errors: [...SITE_ERRORS, 409, 415, 422, 503],
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
  // Funnels (routes/funnels.ts)
  { method: "GET", path: "/api/sites/{id}/funnels", tag: "funnels", security: "credential", summary: "The site's funnels", pathParams: SITE_ID, responses: [ok(FunnelList)], errors: SITE_ERRORS },
  {
    method: "POST", path: "/api/sites/{id}/funnels", tag: "funnels", security: "admin", summary: "Define a funnel: 2 to 8 ordered steps, each a page pattern or a goal",
    description: "Each step is {page_path} (Plausible's wildcards: `*` any characters but `/`, `**` any) or {goal} (the name of one of the site's goals; 400 naming the step otherwise). 409 when the site has a funnel of that name.",
    pathParams: SITE_ID, body: CreateFunnel, responses: [{ status: 201, description: "Created.", schema: Funnel }], errors: [...SITE_ERRORS, 409],
  },
  {
    method: "PATCH", path: "/api/sites/{id}/funnels/{funnelId}", tag: "funnels", security: "admin", summary: "Rename a funnel or replace its steps",
    pathParams: { ...SITE_ID, funnelId: "The funnel's id." }, body: PatchFunnel, responses: [ok(Funnel)], errors: [...SITE_ERRORS, 409],
  },
  {
    method: "DELETE", path: "/api/sites/{id}/funnels/{funnelId}", tag: "funnels", security: "admin", summary: "Delete a funnel (the events stay)",
    pathParams: { ...SITE_ID, funnelId: "The funnel's id." }, responses: [{ status: 204, description: "Deleted." }], errors: SITE_ERRORS,
  },
  {
    method: "GET", path: "/api/sites/{id}/funnels/{funnelId}/result", tag: "funnels", security: "credential", summary: "A funnel over the window: visitors reaching each step within a visit, conversion and drop-off",
    description:
      "Computed by the query engine over the rows POST /api/v2/query reads for the same `date_range` (echoed), actor (a visit:actor filter) and `filters`. A visit reaches step 1 at its first row matching it, and each later step at its first matching row after the previous step's; a step's visitors are the distinct visitors with such a visit. Visits as the query API's (30 minutes without a row ends one; never across 00:00 UTC).",
    pathParams: { ...SITE_ID, funnelId: "The funnel's id." }, query: FunnelResultQuery, responses: [ok(FunnelResult)], errors: SITE_ERRORS,
  },
  // Saved segments (routes/segments.ts)
  {
    method: "GET", path: "/api/sites/{id}/segments", tag: "sites", security: "credential", summary: "The site's saved segments (a name and filters each)",
    pathParams: SITE_ID, responses: [ok(SegmentList)], errors: SITE_ERRORS,
  },
  {
    method: "POST", path: "/api/sites/{id}/segments", tag: "sites", security: "admin", summary: "Save a segment: a name and POST /api/v2/query filters, shared with the team",
    pathParams: SITE_ID, body: CreateSegment, responses: [{ status: 201, description: "Created.", schema: Segment }], errors: [...SITE_ERRORS, 409],
  },
  {
    method: "DELETE", path: "/api/sites/{id}/segments/{segmentId}", tag: "sites", security: "admin", summary: "Delete a saved segment",
    pathParams: { ...SITE_ID, segmentId: "The segment's id." }, responses: [{ status: 204, description: "Deleted." }], errors: SITE_ERRORS,
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
    description: "Assistants (human_via_ai), crawlers (ai_crawler), agents (ai_agent), crawl-to-referral per page and agent task metrics. `actor` does not apply. With `filters`, counted by the query engine with them (the numbers of POST /api/v2/query with the same filters; HTTP status classes unknown: `agent_tasks.status` null); a bad filter is a 400 naming it.",
    pathParams: SITE_ID, query: SiteAiQuery, responses: [ok(AiResponse)], errors: SITE_ERRORS,
  },
  {
    method: "GET", path: "/api/sites/{id}/props", tag: "read", security: "credential", summary: "The custom property names of the window",
    description: "The `props` keys of the window's rows (any actor), the most used first: what the dashboard's Properties card offers to pick. Read by the query engine from its rows (Parquet day files and today's rows), as POST /api/v2/query reads them.",
    pathParams: SITE_ID, query: PropKeysQuery, responses: [ok(PropKeysResponse)], errors: SITE_ERRORS,
  },
  // Query API (routes/query.ts)
  {
    method: "POST", path: "/api/v2/query", tag: "read", security: "credential", summary: "Plausible's Stats API v2 query, plus the actor",
    description: "Any key of the site's team (read is enough), a session or a hosted JWT. Bad input is a 400 naming the field (gateway/README.md \"Query API\").",
    body: QueryBody, responses: [ok(QueryResponse)], errors: SITE_ERRORS,
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
    description: "Sends the aggregate to the team's provider and stores the result (status error with the reason when the provider failed; the last good findings stay). With provider none nothing is sent: status empty, reason `provider none`. A run that has not ended within 5 s goes on in the background: 202 with the stored view and `running: true`; GET shows the result. 409 while a run of the site is in flight.",
    pathParams: SITE_ID, responses: [ok(InsightsResponse), { status: 202, description: "Still running: the stored view with running true.", schema: InsightsResponse }], errors: [...SITE_ERRORS, 409],
  },
  // Live stream
  {
    method: "GET", path: "/api/sites/{id}/live", tag: "read", security: "credential", summary: "Live rollup deltas (Server-Sent Events)",
    description: "On connect a snapshot (today's totals per actor, visitors in the last 5 minutes), then one delta per writer flush; a heartbeat every 15 s, at which the credential is checked again (`revoked`, then the end, once it is revoked, logged out or expired). A client that falls behind is told to resync and dropped. At most SVC_LIVE_STREAMS_PER_CREDENTIAL (20) streams per credential: 429 beyond.",
    pathParams: SITE_ID, responses: [{ status: 200, description: "text/event-stream.", contentType: "text/event-stream" }], errors: [...SITE_ERRORS, 429],
  },
  // Raw export (routes/export.ts)
  {
    method: "GET", path: "/api/sites/{id}/export", tag: "sites", security: "admin", summary: "The site's raw browser rows of a date range, as NDJSON in the history import's format (streamed)",
    description: "One JSON object per line: timestamp, name, visitor (the row's day-scoped hash: one visitor within one UTC day, never linked across days), hostname, pathname, referrer, source, utm_*, browser, os, device, country, props, actor. Middleware hits are not included (the import format has no line for them). At most 2 exports at once per gateway (429). A failure after the first byte ends the file with a line {\"error\"} that no import accepts.",
    pathParams: SITE_ID, query: RawExportQuery, responses: [{ status: 200, description: "application/x-ndjson.", contentType: "application/x-ndjson" }], errors: [...SITE_ERRORS, 429],
  },
  // Shared links (routes/shares.ts)
  {
    method: "POST", path: "/api/sites/{id}/shares", tag: "shares", security: "admin", summary: "Make a shared link (read-only view of the site; its token is shown once)",
    description: "Optional password (viewers unlock first), fixed filters (Plausible v2 filter arrays the viewer cannot remove), an actor restriction, and the origins allowed to frame the embed and counter.",
    pathParams: SITE_ID, body: CreateShare, responses: [{ status: 201, description: "Created.", schema: CreatedShare }], errors: SITE_ERRORS,
  },
  { method: "GET", path: "/api/sites/{id}/shares", tag: "shares", security: "admin", summary: "The site's shared links (no tokens)", pathParams: SITE_ID, responses: [ok(ShareList)], errors: SITE_ERRORS },
  {
    method: "DELETE", path: "/api/sites/{id}/shares/{shareId}", tag: "shares", security: "admin", summary: "Revoke a shared link: its reads fail at once, its open streams end within 2 s",
    pathParams: { ...SITE_ID, shareId: "The link's id." }, responses: [{ status: 204, description: "Revoked." }], errors: SITE_ERRORS,
  },
  {
    method: "GET", path: "/api/share/{token}", tag: "shares", security: "none", summary: "What a shared link shows (or only that it needs its password)",
    pathParams: SHARE_TOKEN, responses: [ok(SharedView)], errors: [404],
  },
  {
    method: "POST", path: "/api/share/{token}/unlock", tag: "shares", security: "none", summary: "Trade a shared link's password for an access key (12 hours)",
    description: "At most 10 attempts per minute per client; after 5 wrong passwords in a row each attempt on the link waits 1 s, 2 s, 4 s… up to 60 s.",
    pathParams: SHARE_TOKEN, body: UnlockShare, responses: [ok(ShareAccess)], errors: [401, 404, 409, 429],
  },
  {
    method: "GET", path: "/api/share/{token}/stats", tag: "shares", security: "none", summary: "A shared view's totals and series (as /api/sites/{id}/stats)",
    description: SHARED_READ, pathParams: SHARE_TOKEN, query: StatsQuery, responses: [ok(StatsResponse)], errors: SHARED_ERRORS,
  },
  {
    method: "GET", path: "/api/share/{token}/breakdown", tag: "shares", security: "none", summary: "A shared view's breakdown (as /api/sites/{id}/breakdown)",
    description: SHARED_READ, pathParams: SHARE_TOKEN, query: BreakdownQuery, responses: [ok(BreakdownResponse)], errors: SHARED_ERRORS,
  },
  {
    method: "GET", path: "/api/share/{token}/ai", tag: "shares", security: "none", summary: "A shared view's AI Traffic panel (403 for a link restricted to one actor)",
    description: `${SHARED_READ} \`filters\` (the viewer's) are added to the link's with "and" and counted by the query engine.`, pathParams: SHARE_TOKEN, query: SiteAiQuery, responses: [ok(AiResponse)], errors: SHARED_ERRORS,
  },
  {
    method: "POST", path: "/api/share/{token}/query", tag: "shares", security: "none", summary: "POST /api/v2/query for a shared view (its own site, within the link's filters and actor)",
    description:
      "The query API's body, answered for the link's site only (`site_id` its domain; 403 otherwise) with the link's fixed filters and its actor (when it names one) added to the body's own filters, so a viewer can narrow the link's view and never widen it. A link with a password needs `?access=`. Bad input is a 400 naming the field of the body.",
    pathParams: SHARE_TOKEN, body: QueryBody, responses: [ok(QueryResponse)], errors: [400, ...SHARED_ERRORS],
  },
  {
    method: "GET", path: "/api/share/{token}/goals", tag: "shares", security: "none", summary: "A shared view's goals (read-only)",
    description: SHARED_READ, pathParams: SHARE_TOKEN, query: GoalsQuery, responses: [ok(GoalsReport)], errors: SHARED_ERRORS,
  },
  {
    method: "GET", path: "/api/share/{token}/props", tag: "shares", security: "none", summary: "A shared view's custom property names (as /api/sites/{id}/props, the link's rows only)",
    description: `${SHARED_READ} The keys of the rows of the link's actor (every actor when it names none) passing its filters.`,
    pathParams: SHARE_TOKEN, query: PropKeysQuery, responses: [ok(PropKeysResponse)], errors: SHARED_ERRORS,
  },
  {
    method: "GET", path: "/api/share/{token}/funnels", tag: "shares", security: "none", summary: "A shared view's funnels (their definitions, read-only)",
    description: SHARED_READ, pathParams: SHARE_TOKEN, responses: [ok(FunnelList)], errors: SHARED_ERRORS,
  },
  {
    method: "GET", path: "/api/share/{token}/funnels/{funnelId}/result", tag: "shares", security: "none", summary: "A funnel over a shared view's rows (as /api/sites/{id}/funnels/{funnelId}/result)",
    description: `${SHARED_READ} \`filters\` (the viewer's) are added to the link's with "and": they narrow the link's rows, never widen them.`,
    pathParams: { ...SHARE_TOKEN, funnelId: "The funnel's id." }, query: FunnelResultQuery, responses: [ok(FunnelResult)], errors: [400, ...SHARED_ERRORS],
  },
  {
    method: "GET", path: "/api/share/{token}/live", tag: "shares", security: "none", summary: "A shared view's live stream (as /api/sites/{id}/live, restricted to the link)",
    description: `${SHARED_READ} At most 1,000 streams per link per gateway (429 beyond), all fed by one subscription to the live hub.`,
    pathParams: SHARE_TOKEN, responses: [{ status: 200, description: "text/event-stream.", contentType: "text/event-stream" }], errors: [...SHARED_ERRORS, 429],
  },
  {
    method: "GET", path: "/api/share/{token}/counter/live", tag: "shares", security: "none", summary: "The embeddable counter's stream: `count` events with the visitors of the last 5 minutes",
    description: "People (human and human_via_ai) unless the link names an actor; 409 for a link with filters. Capped and fanned out like the shared live stream.",
    pathParams: SHARE_TOKEN, responses: [{ status: 200, description: "text/event-stream.", contentType: "text/event-stream" }], errors: [...SHARED_ERRORS, 429],
  },
  // E-mail reports and alerts (routes/notifications.ts)
  {
    method: "POST", path: "/api/sites/{id}/reports", tag: "reports", security: "admin", summary: "Send a weekly or monthly e-mail report to an address (after it confirms)",
    description: "Sends the confirmation e-mail at once; nothing else goes out until its link is followed. 409 when e-mail is not configured or the address already gets that report; 503 when the confirmation could not be sent (nothing is saved).",
    pathParams: SITE_ID, body: CreateRecipient, responses: [{ status: 201, description: "Added, unconfirmed.", schema: Recipient }], errors: [...SITE_ERRORS, 409, 503],
  },
  { method: "GET", path: "/api/sites/{id}/reports", tag: "reports", security: "admin", summary: "The site's report recipients", pathParams: SITE_ID, responses: [ok(RecipientList)], errors: SITE_ERRORS },
  {
    method: "DELETE", path: "/api/sites/{id}/reports/{recipientId}", tag: "reports", security: "admin", summary: "Stop a recipient's reports",
    pathParams: { ...SITE_ID, recipientId: "The recipient's id." }, responses: [{ status: 204, description: "Removed." }], errors: SITE_ERRORS,
  },
  { method: "GET", path: "/api/reports/confirm/{token}", tag: "reports", security: "none", summary: "The confirmation link of a report e-mail (an HTML page)", pathParams: MAIL_TOKEN, responses: [{ status: 200, description: "Confirmed.", contentType: "text/html" }], errors: [404] },
  { method: "GET", path: "/api/reports/unsubscribe/{token}", tag: "reports", security: "none", summary: "The unsubscribe link of every report e-mail (an HTML page)", pathParams: MAIL_TOKEN, responses: [{ status: 200, description: "Unsubscribed.", contentType: "text/html" }], errors: [404] },
  { method: "POST", path: "/api/reports/unsubscribe/{token}", tag: "reports", security: "none", summary: "One-click unsubscribe (List-Unsubscribe-Post, RFC 8058)", pathParams: MAIL_TOKEN, responses: [{ status: 200, description: "Unsubscribed.", contentType: "text/html" }], errors: [404] },
  {
    method: "POST", path: "/api/sites/{id}/alerts", tag: "reports", security: "admin", summary: "Alert on anomaly flags or on people in the last hour above a threshold",
    description: "To an e-mail, a webhook or both; at most one alert per rule per interval. The webhook gets a JSON POST with X-Svc-Signature: t=<unix>,v1=<hex HMAC-SHA-256 of \"<t>.<body>\">, retried after 1, 2 and 4 s on errors, timeouts, 429 and 5xx. The secret is in this answer only.",
    pathParams: SITE_ID, body: CreateAlertRule, responses: [{ status: 201, description: "Created.", schema: CreatedAlertRule }], errors: [...SITE_ERRORS, 409],
  },
  { method: "GET", path: "/api/sites/{id}/alerts", tag: "reports", security: "admin", summary: "The site's alert rules and their delivery log", pathParams: SITE_ID, responses: [ok(AlertList)], errors: SITE_ERRORS },
  {
    method: "DELETE", path: "/api/sites/{id}/alerts/{ruleId}", tag: "reports", security: "admin", summary: "Delete an alert rule (and its log)",
    pathParams: { ...SITE_ID, ruleId: "The rule's id." }, responses: [{ status: 204, description: "Deleted." }], errors: SITE_ERRORS,
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

// The operations with a streamed NDJSON body, as path patterns ({name} = one segment), each with the literal start
// of its path: the transport asks about every POST, and an ingest path is told apart by that prefix without the
// regex (its test was 0.2 % of the gateway's perf samples at full ingest load).
const STREAMED = OPERATIONS.filter((op) => op.lines !== undefined).map((op) => ({
  method: op.method as string,
  prefix: op.path.split("{")[0]!,
  pattern: new RegExp(`^${op.path.replace(/\{\w+\}/g, "[^/]+")}/?$`),
}));

/** Whether the transport hands this request's body to the handler as a stream (`ListenOptions.streamsBody`). */
export function streamsBody(method: string, path: string): boolean {
  for (const s of STREAMED) if (s.method === method && path.startsWith(s.prefix) && s.pattern.test(path)) return true;
  return false;
}
