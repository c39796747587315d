// Every operation of api-schema/operations.ts, over real HTTP: reachable with the credential its `security`
// names, that security enforced (no credential, a read key on a write, an API key where a session is needed,
// another team's site, an unknown site), and bad input (malformed JSON, wrong types, unknown fields, oversize,
// bad query values) answered 4xx, never 500 — each status one the OpenAPI document lists for the operation.
// Driven by OPERATIONS itself, so a new operation is tested without editing this file (beyond its fixture,
// which the type of FIXTURES demands).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS, type Operation, type OperationKey, operationKey } from "../../src/api-schema/operations.ts";
import { BODY_LIMIT } from "../../src/layers/gateway-layers.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, call, createApiKey, loginAsAdmin, type Reply } from "../support/auth.ts";
import { createHash } from "node:crypto";
import { type Harness, startHarness, UA } from "../support/harness.ts";
import { type TestSmtp, startSmtp } from "../support/smtp.ts";

let h: Harness;
let smtp: TestSmtp;
let doc: any;
let session: Record<string, string>;
let readKey: Record<string, string>;
let adminKey: Record<string, string>;
let own: { id: number; domain: string };
let other: { id: number; domain: string };

let counter = 0;
const unique = () => `${Date.now().toString(36)}${++counter}`;

/** A request that succeeds: its query, body and the path parameters besides the site's {id}. */
interface Fixture {
  readonly success: number;
  readonly query?: string;
  readonly body?: () => unknown;
  readonly headers?: Record<string, string>;
  /** Made fresh for each request (the thing is deleted by it). */
  readonly params?: () => Promise<Record<string, string>>;
  /** When not the one `security` implies: logout ends the session it is given. */
  readonly credential?: () => Promise<Record<string, string>>;
}

const newSegment = async () => ({ segmentId: String((await h.pool.query("insert into segments (site_id, name, filters) values ($1, $2, '[]') returning id", [own.id, `s${unique()}`])).rows[0].id) });
const newGoal = async () => ({ goalId: String((await h.pool.query("insert into goals (site_id, name) values ($1, $2) returning id", [own.id, `g${unique()}`])).rows[0].id) });
const newFunnel = async () => ({ funnelId: String((await h.pool.query("insert into funnels (site_id, name, steps) values ($1, $2, $3) returning id", [own.id, `f${unique()}`, JSON.stringify([{ page_path: "/" }, { page_path: "/ops" }])])).rows[0].id) });
const newKey = async () => ({ id: String((await call(h.base, "POST", "/api/keys", { body: { name: `k${unique()}` }, headers: session })).json.id) });

/** A shared link of the own site made through the real route: its token and its id. */
const newShare = async (body: Record<string, unknown> = {}) => {
  const reply = await call(h.base, "POST", `/api/sites/${own.id}/shares`, { body, headers: adminKey });
  if (reply.status !== 201) throw new Error(`share creation failed: ${reply.status} ${JSON.stringify(reply.json)}`);
  return { token: reply.json.token as string, shareId: String(reply.json.id) };
};

/** A report recipient with a known confirmation token (the real one travels only in its e-mail). */
const newRecipient = async () => {
  const token = `t${unique()}`.padEnd(43, "x").slice(0, 43);
  const { rows } = await h.pool.query(
    "insert into report_recipients (site_id, email, frequency, confirm_token_hash, unsubscribe_token) values ($1, $2, 'weekly', $3, $4) returning id",
    [own.id, `r${unique()}@example.com`, createHash("sha256").update(token).digest(), token],
  );
  return { token, recipientId: String(rows[0].id) };
};
const newRule = async () => ({ ruleId: String((await h.pool.query("insert into alert_rules (site_id, kind, interval_minutes, webhook_url, webhook_secret) values ($1, 'anomaly', 60, 'http://127.0.0.1:9/', 'whsec_x') returning id", [own.id])).rows[0].id) });

const FIXTURES: Record<OperationKey, Fixture> = {
  "POST /api/event": { success: 202, headers: { "user-agent": UA.chrome }, body: () => ({ d: "own.example", u: "https://own.example/ops" }) },
  "OPTIONS /api/event": { success: 204 },
  "POST /api/hit": { success: 202, body: () => ({ domain: "own.example", method: "GET", path: "/ops", status: 200, user_agent: UA.gptbot, referrer: null, ip: "192.0.2.1" }) },
  "GET /js/svc.js": { success: 200 },
  "GET /adapters.tgz": { success: 200 },
  "GET /api/sites/{domain}/manifest": { success: 200 },
  "GET /healthz": { success: 200 },
  "GET /api/openapi.json": { success: 200 },
  "POST /api/auth/login": { success: 200, body: () => ({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }) },
  "POST /api/auth/logout": { success: 204, credential: async () => bearer((await loginAsAdmin(h.base)).token) },
  "GET /api/auth/me": { success: 200 },
  "GET /api/keys": { success: 200 },
  "POST /api/keys": { success: 201, body: () => ({ name: `k${unique()}` }) },
  "DELETE /api/keys/{id}": { success: 204, params: newKey },
  // The site every operation here uses must stay: a wrong confirmation (400) is the answer reached; the deletion
  // itself is tested in sites-goals.test.ts.
  "DELETE /api/sites/{id}": { success: 400, query: "confirm=not-this.example" },
  "GET /api/sites": { success: 200 },
  "POST /api/sites": { success: 201, body: () => ({ domain: `s${unique()}.example` }) },
  "PATCH /api/sites/{id}": { success: 200, body: () => ({ name: `n${unique()}` }) },
  "POST /api/sites/{id}/import": {
    success: 200,
    headers: { "content-type": "application/x-ndjson" },
    body: () => `${JSON.stringify({ timestamp: new Date(Date.now() - 3 * 86_400_000).toISOString(), name: "pageview", visitor: unique() })}\n`,
  },
  "GET /api/sites/{id}/goals": { success: 200, query: "days=7" },
  "POST /api/sites/{id}/goals": { success: 201, body: () => ({ name: `g${unique()}` }) },
  "DELETE /api/sites/{id}/goals/{goalId}": { success: 204, params: newGoal },
  "GET /api/sites/{id}/funnels": { success: 200 },
  "POST /api/sites/{id}/funnels": { success: 201, body: () => ({ name: `f${unique()}`, steps: [{ page_path: "/" }, { page_path: "/blog/**" }] }) },
  "PATCH /api/sites/{id}/funnels/{funnelId}": { success: 200, params: newFunnel, body: () => ({ name: `f${unique()}` }) },
  "DELETE /api/sites/{id}/funnels/{funnelId}": { success: 204, params: newFunnel },
  "GET /api/sites/{id}/funnels/{funnelId}/result": { success: 200, params: newFunnel, query: "days=7&actor=humans" },
  "GET /api/sites/{id}/segments": { success: 200 },
  "POST /api/sites/{id}/segments": { success: 201, body: () => ({ name: `s${unique()}`, filters: [["is", "visit:source", ["Google"]]] }) },
  "DELETE /api/sites/{id}/segments/{segmentId}": { success: 204, params: newSegment },
  "GET /api/sites/{id}/stats": { success: 200, query: "days=7&actor=all" },
  "POST /api/v2/query": { success: 200, body: () => ({ site_id: "own.example", metrics: ["visitors", "bounce_rate"], date_range: "7d", dimensions: ["visit:source"] }) },
  "GET /api/sites/{id}/breakdown": { success: 200, query: "field=page" },
  "GET /api/sites/{id}/ai": { success: 200, query: `limit=5&filters=${encodeURIComponent('[["is","visit:source",["Google"]]]')}` },
  "GET /api/sites/{id}/props": { success: 200, query: "days=7" },
  "GET /api/sites/{id}/anomalies": { success: 200, query: "days=2" },
  "GET /api/sites/{id}/insights": { success: 200 },
  "POST /api/sites/{id}/insights/run": { success: 200 },
  "GET /api/sites/{id}/live": { success: 200 },
  "GET /api/sites/{id}/export": { success: 200, query: "from=2026-01-01&to=2026-12-31" },
  "POST /api/sites/{id}/shares": { success: 201, body: () => ({ actor: "human", frame_origins: ["https://own.example"] }) },
  "GET /api/sites/{id}/shares": { success: 200 },
  "DELETE /api/sites/{id}/shares/{shareId}": { success: 204, params: () => newShare() },
  "GET /api/share/{token}": { success: 200, params: () => newShare() },
  "POST /api/share/{token}/unlock": { success: 200, params: () => newShare({ password: "open sesame" }), body: () => ({ password: "open sesame" }) },
  "GET /api/share/{token}/stats": { success: 200, query: "days=7", params: () => newShare() },
  "GET /api/share/{token}/breakdown": { success: 200, query: "field=page", params: () => newShare() },
  "GET /api/share/{token}/ai": { success: 200, query: "limit=5", params: () => newShare() },
  "GET /api/share/{token}/goals": { success: 200, query: "days=7", params: () => newShare() },
  "POST /api/share/{token}/query": { success: 200, params: () => newShare(), body: () => ({ site_id: "own.example", metrics: ["visitors", "bounce_rate"], date_range: "7d", dimensions: ["visit:entry_page"] }) },
  "GET /api/share/{token}/props": { success: 200, query: "days=7", params: () => newShare() },
  "GET /api/share/{token}/funnels": { success: 200, params: () => newShare() },
  "GET /api/share/{token}/funnels/{funnelId}/result": { success: 200, query: "days=7", params: async () => ({ ...(await newShare()), ...(await newFunnel()) }) },
  "GET /api/share/{token}/live": { success: 200, params: () => newShare() },
  "GET /api/share/{token}/counter/live": { success: 200, params: () => newShare() },
  "POST /api/sites/{id}/reports": { success: 201, body: () => ({ email: `r${unique()}@example.com`, frequency: "weekly" }) },
  "GET /api/sites/{id}/reports": { success: 200 },
  "DELETE /api/sites/{id}/reports/{recipientId}": { success: 204, params: newRecipient },
  "GET /api/reports/confirm/{token}": { success: 200, params: newRecipient },
  "GET /api/reports/unsubscribe/{token}": { success: 200, params: newRecipient },
  "POST /api/reports/unsubscribe/{token}": { success: 200, params: newRecipient },
  "POST /api/sites/{id}/alerts": { success: 201, body: () => ({ kind: "visitors_last_hour", threshold: 100, webhook_url: "https://hooks.example/svc" }) },
  "GET /api/sites/{id}/alerts": { success: 200 },
  "DELETE /api/sites/{id}/alerts/{ruleId}": { success: 204, params: newRule },
  "GET /api/team/llm": { success: 200 },
  "PATCH /api/team/llm": { success: 200, body: () => ({ provider: "local" }) },
};

const fixture = (op: Operation): Fixture => FIXTURES[operationKey(op) as OperationKey];
const isSiteScoped = (op: Operation) => op.path.startsWith("/api/sites/{id}");

/** The credential the operation's security asks for: nothing, a read key, an admin key, a session. */
const credentialFor = (op: Operation): Record<string, string> =>
  ({ none: {}, credential: readKey, admin: adminKey, session: session })[op.security];

async function send(op: Operation, options: { site?: { id: number; domain: string } | string; headers?: Record<string, string>; body?: unknown; query?: string } = {}): Promise<Reply> {
  const f = fixture(op);
  const site = options.site ?? own;
  const params: Record<string, string> = {
    id: typeof site === "string" ? site : String(site.id),
    domain: typeof site === "string" ? site : site.domain,
    ...(f.params ? await f.params() : {}),
  };
  const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(params[name]!));
  const query = options.query ?? f.query;
  const url = query ? `${path}?${query}` : path;
  const headers = { ...f.headers, ...options.headers };
  const body = "body" in options ? options.body : f.body?.();
  if (op.path.endsWith("/live")) {
    // A stream: its status and headers, then hang up.
    const abort = new AbortController();
    const res = await fetch(h.base + url, { headers, signal: abort.signal });
    const json = res.status === 200 ? null : await res.json();
    abort.abort();
    return { status: res.status, headers: res.headers, json };
  }
  return call(h.base, op.method, url, { headers, ...(body !== undefined ? { body } : {}) });
}

/** The answer has a status the document lists for this operation, and an error is the JSON error body. */
function expectDocumented(op: Operation, reply: Reply, status: number): void {
  expect(reply.status, JSON.stringify(reply.json)).toBe(status);
  expect(Object.keys(doc.paths[op.path][op.method.toLowerCase()].responses)).toContain(String(status));
  if (status >= 400) expect(typeof reply.json.error).toBe("string");
}

beforeAll(async () => {
  smtp = await startSmtp();
  h = await startHarness({ sites: ["own.example"], env: { SVC_SMTP_URL: smtp.url, SVC_MAIL_FROM: "svc <reports@svc.test>", SVC_PUBLIC_URL: "https://stats.svc.test" } });
  doc = (await call(h.base, "GET", "/api/openapi.json")).json;
  const login = await loginAsAdmin(h.base);
  session = bearer(login.token);
  readKey = bearer(await createApiKey(h.base, login.token, "ops read"));
  adminKey = bearer(await createApiKey(h.base, login.token, "ops admin", "admin"));
  own = (await h.pool.query("select id, domain from sites where domain = 'own.example'")).rows[0];
  await h.pool.query("insert into teams (id, slug, name) values (2, 'other', 'Other team')");
  other = (await h.pool.query("insert into sites (domain, team_id) values ('other-team.example', 2) returning id, domain")).rows[0];
});
afterAll(async () => {
  await h?.close();
  await smtp?.close();
});

describe.each(OPERATIONS.map((op) => ({ key: operationKey(op), op })))("$key", ({ op }) => {
  it("is reachable with the credential its security names", async () => {
    const f = fixture(op);
    const reply = await send(op, { headers: f.credential ? await f.credential() : credentialFor(op) });
    // The tracker script answers 404 in a checkout where it was not built; that is the route's own answer.
    if (op.path === "/js/svc.js" && reply.status === 404) expect(reply.json.error).toContain("tracker not built");
    else if (op.path === "/adapters.tgz" && reply.status === 404) expect(reply.json.error).toContain("npm run build:adapters");
    else expectDocumented(op, reply, f.success);
  });

  if (op.security !== "none") {
    it("401 without a credential", async () => {
      expectDocumented(op, await send(op), 401);
    });
  }

  if (op.security === "admin" || op.security === "session") {
    it(`403 with a read key (${op.security} operation)`, async () => {
      expectDocumented(op, await send(op, { headers: readKey }), 403);
    });
  }
  if (op.security === "session") {
    it("403 with an admin key too (a session is needed)", async () => {
      expectDocumented(op, await send(op, { headers: adminKey }), 403);
    });
  }

  if (isSiteScoped(op)) {
    it("403 for another team's site, 404 for an unknown one (by id and by domain)", async () => {
      const credential = credentialFor(op);
      expectDocumented(op, await send(op, { site: other, headers: credential }), 403);
      expectDocumented(op, await send(op, { site: "999999", headers: credential }), 404);
      expectDocumented(op, await send(op, { site: "nobody.example", headers: credential }), 404);
    });
  }

  if (op.body !== undefined) {
    it.each([
      ["malformed JSON", "{"],
      ["a number", 42],
      ["an array of numbers", [1, 2]],
      ["null", "null"],
    ])("400 for a body that is %s", async (_label, body) => {
      expectDocumented(op, await send(op, { headers: credentialFor(op), body }), 400);
    });

    it("an unknown field is refused exactly when the document closes the body", async () => {
      const valid = fixture(op).body!() as Record<string, unknown>;
      const reply = await send(op, { headers: credentialFor(op), body: { ...valid, surely_not_a_field: 1 } });
      const schema = doc.paths[op.path][op.method.toLowerCase()].requestBody.content["application/json"].schema;
      const compiled = schema.$ref ? doc.components.schemas[schema.$ref.split("/").pop()] : schema;
      expectDocumented(op, reply, compiled.additionalProperties === false ? 400 : fixture(op).success);
    });

    it("413 for a body over the limit, before it is read whole", async () => {
      const body = JSON.stringify({ pad: "x".repeat(BODY_LIMIT) });
      expectDocumented(op, await send(op, { headers: credentialFor(op), body }), 413);
    });
  }

  if (op.lines !== undefined) {
    it("415 for a body that is not NDJSON; bad lines are reported, never a 4xx or a 500", async () => {
      expectDocumented(op, await send(op, { headers: { ...credentialFor(op), "content-type": "application/json" } }), 415);
      const reply = await send(op, { headers: credentialFor(op), body: '{\n42\nnull\n{"timestamp": 5}\n' });
      expectDocumented(op, reply, fixture(op).success);
      expect(reply.json).toMatchObject({ status: "empty", imported: 0, refused: 4 });
    });
  }

  if (op.query !== undefined) {
    it("400 for every query parameter given a value of the wrong type", async () => {
      const documented = doc.paths[op.path][op.method.toLowerCase()].parameters as { in: string; name: string }[];
      for (const p of documented.filter((q) => q.in === "query")) {
        const query = new URLSearchParams(fixture(op).query);
        query.set(p.name, `not-a-${p.name}`);
        const reply = await send(op, { headers: credentialFor(op), query: query.toString() });
        expectDocumented(op, reply, 400);
        expect(reply.json.details.map((d: { path: string }) => d.path)).toContain(p.name);
      }
    });
  }
});

describe("the paths", () => {
  it.each([...new Set(OPERATIONS.map((op) => op.path))])("%s: another method is 405 with Allow naming the documented ones", async (path) => {
    const reply = await call(h.base, "PUT", path.replace(/\{\w+\}/g, "1"), { headers: session });
    expect(reply.status).toBe(405);
    const allow = reply.headers.get("allow")!.split(", ").sort();
    expect(allow).toEqual(Object.keys(doc.paths[path]).map((m) => m.toUpperCase()).sort());
  });
});
