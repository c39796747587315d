// Builds the OpenAPI 3.1 document from OPERATIONS: every Schema goes through effect's JSON Schema compiler in
// one multi-document, so named schemas (Site, Actor, Derived…) become shared components.
import { JsonSchema, Schema, SchemaRepresentation } from "effect";
import { ErrorBody } from "./common.ts";
import { type Operation, OPERATIONS } from "./operations.ts";

const ERROR_TEXT: Record<number, string> = {
  400: "Invalid query or body (`details` lists every bad field).",
  401: "No credential, or a malformed, wrong, expired or revoked one.",
  403: "The site belongs to another team, a read-only API key was used for a write, an API key where a session is needed, or a cookie-authenticated write came from another origin.",
  404: "Unknown site (or goal, key).",
  409: "Conflict: the domain or goal name is taken, an insights run of the site is in flight, or another history import is running.",
  413: "Body over 64 KB.",
  422: "Valid, but the database refused a row made from it; nothing of the request was stored, and retrying cannot help.",
  415: "A cookie-authenticated write that is not application/json.",
  429: "Rate limited.",
  503: "Overloaded or shutting down.",
};

type Json = Record<string, unknown>;

function errorStatuses(op: Operation): number[] {
  const set = new Set<number>(op.errors ?? []);
  if (op.security !== "none") set.add(401);
  if (op.security === "session" || op.security === "admin") set.add(403);
  // Cookie-authenticated writes must be JSON (auth/csrf.ts).
  if (op.security !== "none" && op.method !== "GET") set.add(415);
  if (op.query || op.body || op.lines) set.add(400);
  // Every body passes the transport's limit (BODY_LIMIT in layers/gateway-layers.ts).
  if (op.body) set.add(413);
  return [...set].sort((a, b) => a - b);
}

export function buildOpenApiDocument(version: string): Json {
  // Collect every schema once, in a fixed order, to compile them together.
  const schemas: Schema.Top[] = [ErrorBody];
  const index = new Map<Schema.Top, number>([[ErrorBody, 0]]);
  const use = (s: Schema.Top): number => {
    let i = index.get(s);
    if (i === undefined) {
      i = schemas.length;
      schemas.push(s);
      index.set(s, i);
    }
    return i;
  };
  for (const op of OPERATIONS) {
    if (op.query) use(op.query);
    if (op.body) use(op.body);
    if (op.lines) use(op.lines);
    for (const r of op.responses) if (r.schema) use(r.schema);
  }
  const asts = schemas.map((s) => Schema.toCodecJson(s).ast) as [Schema.Top["ast"], ...Schema.Top["ast"][]];
  const multi = JsonSchema.toMultiDocumentOpenApi3_1(SchemaRepresentation.toJsonSchemaMultiDocument(SchemaRepresentation.toRepresentations(asts)));
  const compiled = (s: Schema.Top) => multi.schemas[index.get(s)!] as Json;
  const errorRef = compiled(ErrorBody);
  for (const op of OPERATIONS) {
    const lineOrBody = op.lines ?? op.body;
    if (!lineOrBody || op.unknownBodyFields === "ignored") continue;
    const body = compiled(lineOrBody);
    const ref = typeof body["$ref"] === "string" ? body["$ref"].split("/").pop()! : undefined;
    const object = (ref === undefined ? body : (multi.definitions as Record<string, Json>)[ref]!);
    if (object["type"] === "object") object["additionalProperties"] = false;
  }

  const paths: Record<string, Record<string, Json>> = {};
  for (const op of OPERATIONS) {
    const parameters: Json[] = Object.entries(op.pathParams ?? {}).map(([name, description]) => ({ name, in: "path", required: true, description, schema: { type: "string" } }));
    if (op.query) {
      const q = compiled(op.query) as { properties?: Record<string, Json>; required?: string[] };
      for (const [name, schema] of Object.entries(q.properties ?? {})) {
        const { description, ...rest } = schema;
        parameters.push({ name, in: "query", required: (q.required ?? []).includes(name), ...(description ? { description } : {}), schema: rest });
      }
    }
    const responses: Record<string, Json> = {};
    for (const r of op.responses) {
      const type = r.contentType ?? "application/json";
      responses[String(r.status)] = { description: r.description, ...(r.schema ? { content: { [type]: { schema: compiled(r.schema) } } } : r.contentType ? { content: { [type]: {} } } : {}) };
    }
    for (const status of errorStatuses(op)) {
      responses[String(status)] ??= { description: ERROR_TEXT[status] ?? "Error.", content: { "application/json": { schema: errorRef } } };
    }
    const operation: Json = {
      operationId: `${op.method.toLowerCase()}${op.path.replace(/\{(\w+)\}/g, "By_$1").replace(/[^A-Za-z0-9]+(\w)/g, (_m, c: string) => c.toUpperCase())}`,
      tags: [op.tag],
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      security: op.security === "none" ? [] : [{ bearer: [] }, { session_cookie: [] }],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(op.lines
        ? { requestBody: { required: true, description: "NDJSON: one JSON object per line, each of this schema.", content: Object.fromEntries((op.bodyContentTypes ?? []).map((t) => [t, { schema: compiled(op.lines!) }])) } }
        : {}),
      ...(op.body
        ? { requestBody: { required: true, content: Object.fromEntries((op.bodyContentTypes ?? ["application/json"]).map((t) => [t, { schema: compiled(op.body!) }])) } }
        : {}),
      responses,
    };
    if (op.security === "session") operation["x-svc-session-only"] = true;
    if (op.security === "admin") operation["x-svc-scope"] = "admin";
    (paths[op.path] ??= {})[op.method.toLowerCase()] = operation;
  }

  return {
    openapi: "3.1.0",
    info: {
      title: "svc gateway",
      version,
      description:
        "Privacy-first, cookieless analytics. Every row carries one of five actors (human, human_via_ai, ai_crawler, ai_agent, bot). " +
        "Read routes answer from rollups for whole days ending today (UTC days, or the site's local days when its time_zone is not UTC): `days` 1..366 (default 30), `actor` one of the five or `all` (default human). " +
        "Errors are JSON `{error, details?}`. Operations marked x-svc-session-only refuse API keys with 403; those marked x-svc-scope: admin refuse read-only API keys with 403.",
    },
    servers: [{ url: "/" }],
    tags: ["ingest", "public", "auth", "sites", "goals", "funnels", "read", "team"].map((name) => ({ name })),
    paths,
    components: {
      schemas: multi.definitions,
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "A session token from /api/auth/login, an API key `svc_live_…`, or (jwt mode) the identity provider's JWT." },
        session_cookie: { type: "apiKey", in: "cookie", name: "svc_session", description: "The HttpOnly cookie set by /api/auth/login." },
      },
    },
  };
}
