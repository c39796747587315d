// Every route of the read API × every kind of credential (session, cookie, read key, admin key), the CSRF
// check of cookie-authenticated writes, then bad input on every route: each answer is the expected status
// with a JSON error body, never a 500.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, call, createApiKey, loginAsAdmin } from "../support/auth.ts";
import { type Harness, startHarness } from "../support/harness.ts";

let h: Harness;
let session: Record<string, string>;
let cookie: Record<string, string>;
let key: Record<string, string>; // scope read (the default)
let adminKey: Record<string, string>;
let revoked: Record<string, string>;
let own: Site;
let other: Site;
let otherGoal: number;

let counter = 0;
const unique = () => `${Date.now().toString(36)}${++counter}`;

/** A site as a route sees it: `ref` goes into the path (its id, or its domain), `id` into SQL set-up. */
interface Site {
  readonly ref: string;
  readonly id: number;
  readonly domain: string;
}

/** One route: how to call it against a site, and what a valid session / key gets. */
interface RouteCase {
  readonly name: string;
  readonly siteScoped: boolean;
  readonly sessionOnly?: boolean;
  /** Changes something: a read-only key gets 403, and a cookie request must pass the CSRF check. */
  readonly write?: boolean;
  /** A text/event-stream answer: read only its status and headers, then hang up. */
  readonly stream?: boolean;
  readonly success: number;
  request(site: Site): Promise<{ method: string; path: string; body?: unknown }>;
}

const goalOf = async (siteId: number) =>
  (await h.pool.query<{ id: number }>("insert into goals (site_id, name) values ($1, $2) returning id", [siteId, `g-${unique()}`])).rows[0]!.id;

const funnelOf = async (siteId: number) =>
  (await h.pool.query<{ id: number }>("insert into funnels (site_id, name, steps) values ($1, $2, $3) returning id", [siteId, `f-${unique()}`, JSON.stringify([{ page_path: "/" }, { page_path: "/a" }])])).rows[0]!.id;

const ROUTES: readonly RouteCase[] = [
  { name: "GET /api/sites", siteScoped: false, success: 200, request: async () => ({ method: "GET", path: "/api/sites" }) },
  { name: "POST /api/sites", siteScoped: false, write: true, success: 201, request: async () => ({ method: "POST", path: "/api/sites", body: { domain: `m${unique()}.example` } }) },
  { name: "PATCH /api/sites/{id}", siteScoped: true, write: true, success: 200, request: async (s) => ({ method: "PATCH", path: `/api/sites/${s.ref}`, body: { name: `n${unique()}` } }) },
  { name: "GET /stats", siteScoped: true, success: 200, request: async (s) => ({ method: "GET", path: `/api/sites/${s.ref}/stats?days=7` }) },
  { name: "GET /stats by domain", siteScoped: true, success: 200, request: async (s) => ({ method: "GET", path: `/api/sites/${s.domain}/stats` }) },
  { name: "GET /breakdown", siteScoped: true, success: 200, request: async (s) => ({ method: "GET", path: `/api/sites/${s.ref}/breakdown?field=page` }) },
  { name: "GET /ai", siteScoped: true, success: 200, request: async (s) => ({ method: "GET", path: `/api/sites/${s.ref}/ai` }) },
  { name: "GET /goals", siteScoped: true, success: 200, request: async (s) => ({ method: "GET", path: `/api/sites/${s.ref}/goals?days=7&actor=all` }) },
  { name: "POST /goals", siteScoped: true, write: true, success: 201, request: async (s) => ({ method: "POST", path: `/api/sites/${s.ref}/goals`, body: { name: `g${unique()}` } }) },
  { name: "DELETE /goals/{goalId}", siteScoped: true, write: true, success: 204, request: async (s) => ({ method: "DELETE", path: `/api/sites/${s.ref}/goals/${await goalOf(s.id)}` }) },
  { name: "GET /funnels", siteScoped: true, success: 200, request: async (s) => ({ method: "GET", path: `/api/sites/${s.ref}/funnels` }) },
  { name: "POST /funnels", siteScoped: true, write: true, success: 201, request: async (s) => ({ method: "POST", path: `/api/sites/${s.ref}/funnels`, body: { name: `f${unique()}`, steps: [{ page_path: "/" }, { page_path: "/a" }] } }) },
  { name: "GET /funnels/{funnelId}/result", siteScoped: true, success: 200, request: async (s) => ({ method: "GET", path: `/api/sites/${s.ref}/funnels/${await funnelOf(s.id)}/result?days=7&actor=all` }) },
  { name: "GET /anomalies", siteScoped: true, success: 200, request: async (s) => ({ method: "GET", path: `/api/sites/${s.ref}/anomalies?days=2` }) },
  { name: "GET /insights", siteScoped: true, success: 200, request: async (s) => ({ method: "GET", path: `/api/sites/${s.ref}/insights` }) },
  { name: "POST /insights/run", siteScoped: true, write: true, success: 200, request: async (s) => ({ method: "POST", path: `/api/sites/${s.ref}/insights/run` }) },
  { name: "GET /live (SSE)", siteScoped: true, stream: true, success: 200, request: async (s) => ({ method: "GET", path: `/api/sites/${s.ref}/live` }) },
  { name: "GET /api/team/llm", siteScoped: false, sessionOnly: true, success: 200, request: async () => ({ method: "GET", path: "/api/team/llm" }) },
  { name: "PATCH /api/team/llm", siteScoped: false, sessionOnly: true, write: true, success: 200, request: async () => ({ method: "PATCH", path: "/api/team/llm", body: { provider: "local" } }) },
];

beforeAll(async () => {
  h = await startHarness({ sites: ["own.example"] });
  const login = await loginAsAdmin(h.base);
  session = bearer(login.token);
  cookie = { cookie: login.cookie };
  key = bearer(await createApiKey(h.base, login.token, "matrix"));
  adminKey = bearer(await createApiKey(h.base, login.token, "matrix admin", "admin"));
  const doomed = await call(h.base, "POST", "/api/keys", { body: { name: "doomed" }, headers: session });
  revoked = bearer(doomed.json.key);
  expect((await call(h.base, "DELETE", `/api/keys/${doomed.json.id}`, { headers: session })).status).toBe(204);
  own = (await h.pool.query("select id, id::text as ref, domain from sites where domain = 'own.example'")).rows[0];
  await h.pool.query("insert into teams (id, slug, name) values (2, 'other', 'Other team')");
  other = (await h.pool.query("insert into sites (domain, team_id) values ('other-team.example', 2) returning id, id::text as ref, domain")).rows[0];
  otherGoal = await goalOf(other.id);
});
afterAll(async () => {
  await h?.close();
});

const send = async (rc: RouteCase, site: Site, headers: Record<string, string>) => {
  const r = await rc.request(site);
  if (rc.stream) {
    const abort = new AbortController();
    const res = await fetch(h.base + r.path, { headers, signal: abort.signal });
    if (res.status !== 200) return { status: res.status, headers: res.headers, json: await res.json() };
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    abort.abort();
    return { status: res.status, headers: res.headers, json: null };
  }
  return call(h.base, r.method, r.path, { headers, ...(r.body !== undefined ? { body: r.body } : {}) });
};

const expectJsonError = (reply: { status: number; json: any; headers: Headers }, status: number) => {
  expect(reply.status, JSON.stringify(reply.json)).toBe(status);
  expect(reply.headers.get("content-type")).toContain("application/json");
  expect(typeof reply.json.error).toBe("string");
};

describe.each(ROUTES)("$name", (rc) => {
  it.each([
    ["no credential", {}],
    ["a malformed Authorization header", { authorization: "Basic YWRtaW46eA==" }],
    ["an empty bearer", { authorization: "Bearer " }],
    ["a wrong API key", { authorization: `Bearer svc_live_${randomBytes(32).toString("base64url")}` }],
    ["a forged session token", { authorization: "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl" }],
  ])("401 with %s", async (_label, headers) => {
    expectJsonError(await send(rc, own, headers), 401);
  });

  it("401 with a revoked API key", async () => {
    expectJsonError(await send(rc, own, revoked), 401);
  });

  it(`succeeds with a session (bearer and cookie)`, async () => {
    expect((await send(rc, own, session)).status).toBe(rc.success);
    expect((await send(rc, own, cookie)).status).toBe(rc.success);
  });

  it(rc.sessionOnly ? "403 with an API key (settings need a session)" : rc.write ? "403 with a read key (writes need scope admin)" : "succeeds with a read key", async () => {
    const reply = await send(rc, own, key);
    if (rc.sessionOnly || rc.write) expectJsonError(reply, 403);
    else expect(reply.status, JSON.stringify(reply.json)).toBe(rc.success);
  });

  it(rc.sessionOnly ? "403 with an admin key too" : "succeeds with an admin key", async () => {
    const reply = await send(rc, own, adminKey);
    if (rc.sessionOnly) expectJsonError(reply, 403);
    else expect(reply.status, JSON.stringify(reply.json)).toBe(rc.success);
  });

  if (rc.write) {
    it.each([
      ["another site's Origin", { origin: "https://evil.example" }, 403],
      ["Sec-Fetch-Site: cross-site", { "sec-fetch-site": "cross-site" }, 403],
      ["Sec-Fetch-Site: same-site (a sibling subdomain) with its Origin", { "sec-fetch-site": "same-site", origin: "https://sub.own.example" }, 403],
      ["Origin: null (a sandboxed frame)", { origin: "null" }, 403],
      ["a form's content type", { "content-type": "application/x-www-form-urlencoded" }, 415],
      ["text/plain", { "content-type": "text/plain" }, 415],
      ["its own Origin", { origin: "__own__" }, "success"],
      ["Sec-Fetch-Site: same-origin", { "sec-fetch-site": "same-origin", origin: "https://elsewhere.example" }, "success"],
      ["Sec-Fetch-Site: none (typed by the user)", { "sec-fetch-site": "none" }, "success"],
    ] as const)("with the cookie and %s → %s", async (_label, extra, expected) => {
      const headers: Record<string, string> = { ...cookie, ...extra };
      if (headers["origin"] === "__own__") headers["origin"] = h.base;
      // A body-less DELETE sends no content type; give it one only when the case is about the content type.
      const r = await rc.request(own);
      const reply = await call(h.base, r.method, r.path, { headers, ...(r.body !== undefined ? { body: r.body } : headers["content-type"] ? { body: "{}" } : {}) });
      if (expected === "success") expect(reply.status, JSON.stringify(reply.json)).toBe(rc.success);
      else expectJsonError(reply, expected);
    });

    it("a bearer credential skips the Origin check (a browser never attaches it by itself)", async () => {
      const reply = await send(rc, own, { ...session, origin: "https://evil.example", "sec-fetch-site": "cross-site" });
      expect(reply.status, JSON.stringify(reply.json)).toBe(rc.success);
    });
  }

  if (rc.siteScoped) {
    it("403 for another team's site, by id and by domain, with a session or a key", async () => {
      for (const headers of [session, key, adminKey]) {
        expectJsonError(await send(rc, other, headers), 403);
      }
      expectJsonError(await send(rc, { ...other, ref: other.domain }, key), 403);
    });
  }
});

describe("team scoping without a site in the path", () => {
  it("GET /api/sites lists only the caller's team; another team's goal cannot be deleted through it", async () => {
    const list = await call(h.base, "GET", "/api/sites", { headers: key });
    expect(list.json.sites.map((s: any) => s.domain)).not.toContain("other-team.example");
    expect(list.json.sites.every((s: any) => s.team_id === 1)).toBe(true);
    expectJsonError(await call(h.base, "DELETE", `/api/sites/${other.id}/goals/${otherGoal}`, { headers: adminKey }), 403);
    const created = await call(h.base, "POST", "/api/sites", { body: { domain: `t${unique()}.example` }, headers: adminKey });
    expect(created.json.team_id).toBe(1);
  });
});

describe("bad input on every route: 400/404/405/409 JSON errors, never 500", () => {
  const cases: ReadonlyArray<readonly [string, string, unknown, number]> = [
    ["GET", "/api/sites/{id}/stats?days=0", undefined, 400],
    ["GET", "/api/sites/{id}/stats?days=367", undefined, 400],
    ["GET", "/api/sites/{id}/stats?days=abc", undefined, 400],
    ["GET", "/api/sites/{id}/stats?days=1.5", undefined, 400],
    ["GET", "/api/sites/{id}/stats?days=1e2", undefined, 400],
    ["GET", "/api/sites/{id}/stats?days=99999999999999999999", undefined, 400],
    ["GET", "/api/sites/{id}/stats?actor=robot", undefined, 400],
    ["GET", "/api/sites/{id}/stats?actor=", undefined, 400],
    ["GET", "/api/sites/999999/stats", undefined, 404],
    ["GET", "/api/sites/99999999999999/stats", undefined, 404],
    ["GET", "/api/sites/not%20a%20domain!/stats", undefined, 404],
    ["GET", "/api/sites/%E0%A4%A/stats", undefined, 404],
    ["GET", "/api/sites/{id}/breakdown", undefined, 400],
    ["GET", "/api/sites/{id}/breakdown?field=city", undefined, 400],
    ["GET", "/api/sites/{id}/breakdown?field=page&limit=0", undefined, 400],
    ["GET", "/api/sites/{id}/breakdown?field=page&limit=1001", undefined, 400],
    ["GET", "/api/sites/{id}/breakdown?field=page&limit=ten", undefined, 400],
    ["GET", "/api/sites/{id}/breakdown?field=page&actor=ALL", undefined, 400],
    ["GET", "/api/sites/999999/breakdown?field=page", undefined, 404],
    ["GET", "/api/sites/{id}/ai?days=-1", undefined, 400],
    ["GET", "/api/sites/{id}/ai?limit=5000", undefined, 400],
    ["GET", "/api/sites/nobody.example/ai", undefined, 404],
    ["GET", "/api/sites/{id}/goals?days=400", undefined, 400],
    ["GET", "/api/sites/{id}/goals?actor=people", undefined, 400],
    ["GET", "/api/sites/999999/goals", undefined, 404],
    ["POST", "/api/sites/{id}/goals", "{not json", 400],
    ["POST", "/api/sites/{id}/goals", { name: ["a"] }, 400],
    ["POST", "/api/sites/{id}/goals", null, 400],
    ["POST", "/api/sites/999999/goals", { name: "x" }, 404],
    ["DELETE", "/api/sites/{id}/goals/0", undefined, 404],
    ["DELETE", "/api/sites/{id}/goals/-1", undefined, 404],
    ["POST", "/api/sites", "", 400],
    ["POST", "/api/sites", { domain: "own.example" }, 409],
    ["POST", "/api/sites", { domain: "a".repeat(300) + ".example" }, 400],
    ["PATCH", "/api/sites/{id}", "[]", 400],
    ["PATCH", "/api/sites/{id}", { retention_days: null }, 400],
    ["PATCH", "/api/sites/999999", { name: "x" }, 404],
    ["PATCH", "/api/team/llm", "nope", 400],
    ["PATCH", "/api/team/llm", { provider: null }, 400],
    ["GET", "/api/sites/{id}/anomalies?days=0", undefined, 400],
    ["GET", "/api/sites/{id}/anomalies?days=31", undefined, 400],
    ["GET", "/api/sites/999999/anomalies", undefined, 404],
    ["GET", "/api/sites/999999/insights", undefined, 404],
    ["POST", "/api/sites/999999/insights/run", undefined, 404],
    ["GET", "/api/sites/{id}/insights/run", undefined, 405],
    ["PUT", "/api/sites", { domain: "x.example" }, 405],
    ["DELETE", "/api/sites/{id}/stats", undefined, 405],
  ];
  it.each(cases)("%s %s %j → %i", async (method, path, body, status) => {
    const headers = path.startsWith("/api/team/") ? session : adminKey;
    const reply = await call(h.base, method, path.replace("{id}", String(own.id)), { headers, ...(body !== undefined ? { body } : {}) });
    expectJsonError(reply, status);
    // An empty body is "empty body", the same answer as login and ingest give it.
    if (status === 400) expect(["malformed JSON", "empty body"].includes(reply.json.error) || reply.json.details.length > 0).toBe(true);
  });

  it("the 400 names each bad query parameter", async () => {
    const reply = await call(h.base, "GET", `/api/sites/${own.id}/breakdown?field=city&days=0&actor=x&limit=0`, { headers: key });
    expect(reply.json.details.map((d: any) => d.path).sort()).toEqual(["actor", "days", "field", "limit"]);
    expect(h.logs.some((l) => l.includes("unhandled error"))).toBe(false);
  });
});
