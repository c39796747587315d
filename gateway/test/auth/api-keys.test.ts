// API keys over real HTTP and a real PostgreSQL: shown once, stored only hashed, listed without secrets,
// scoped to the team, revoked at once, and refused where a session is required.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiKeys } from "../../src/auth/api-keys.ts";
import { silentLogger } from "../../src/log.ts";
import { bearer, call, createApiKey, loginAsAdmin } from "../support/auth.ts";
import { type Harness, startHarness } from "../support/harness.ts";

let h: Harness;
let session: { token: string; cookie: string };
const KEY = /^svc_live_[A-Za-z0-9_-]{43}$/;

beforeAll(async () => {
  h = await startHarness();
  session = await loginAsAdmin(h.base);
});
afterAll(async () => {
  await h?.close();
});

const keys = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  call(h.base, method, path, body === undefined ? { headers } : { headers, body });
const me = (headers: Record<string, string>) => call(h.base, "GET", "/api/auth/me", { headers });

async function waitFor<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = await read();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  return read();
}

describe("create, list, use", () => {
  test("POST /api/keys answers 201 with the key once; the database holds only its hash", async () => {
    const reply = await keys("POST", "/api/keys", { cookie: session.cookie }, { name: "  CI export " });
    expect(reply.status).toBe(201);
    expect(Object.keys(reply.json).sort()).toEqual(["created_at", "id", "key", "name", "scope"]);
    expect(reply.json.name).toBe("CI export");
    expect(reply.json.key).toMatch(KEY);
    expect(reply.json.created_at).toBe(new Date(h.clock.now()).toISOString());
    expect(reply.headers.get("cache-control")).toBe("no-store");

    const key: string = reply.json.key;
    const secretPart = key.slice("svc_live_".length);
    const rows = await h.pool.query("select row_to_json(k)::text as j, key_hash, prefix, last4 from api_keys k where id = $1", [reply.json.id]);
    const row = rows.rows[0];
    expect(row.key_hash).toEqual(createHash("sha256").update(key).digest());
    expect(row.prefix).toBe(key.slice(0, 13));
    expect(row.last4).toBe(key.slice(-4));
    expect(row.j).not.toContain(secretPart);
    expect(row.j).not.toContain(secretPart.slice(4, -4)); // not even the hidden middle
    // Nothing else in the database holds it either (sessions, teams, settings, schema_migrations…).
    const all = await h.pool.query(`
      select string_agg(row_to_json(t)::text, ' ') as j from (
        select * from auth_sessions) t
      union all select string_agg(row_to_json(t)::text, ' ') from teams t`);
    expect(all.rows.map((r: { j: string | null }) => r.j ?? "").join(" ")).not.toContain(secretPart);
    expect(h.logs.join("\n")).not.toContain(secretPart);
  });

  test("every key is different and GET /api/keys lists them without secrets", async () => {
    const a = await createApiKey(h.base, session.token, "alpha");
    const b = await createApiKey(h.base, session.token, "beta");
    expect(a).not.toBe(b);
    const list = await keys("GET", "/api/keys", bearer(session.token));
    expect(list.status).toBe(200);
    const byName = new Map<string, Record<string, unknown>>(list.json.keys.map((k: { name: string }) => [k.name, k]));
    for (const [name, key] of [["alpha", a], ["beta", b]] as const) {
      const entry = byName.get(name)!;
      expect(Object.keys(entry).sort()).toEqual(["created_at", "id", "last4", "last_used_at", "name", "prefix", "scope"]);
      expect(entry["prefix"]).toBe(key.slice(0, 13));
      expect(entry["last4"]).toBe(key.slice(-4));
      expect(entry["last_used_at"]).toBeNull();
    }
    const text = JSON.stringify(list.json);
    expect(text).not.toContain(a.slice(13, -4));
    expect(text).not.toContain(b.slice(13, -4));
  });

  test("a key authenticates as its team and records when it was last used", async () => {
    const key = await createApiKey(h.base, session.token, "last-used");
    const reply = await me(bearer(key));
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ team_id: 1, via: "api_key" });
    expect(reply.json.subject).toMatch(/^api_key:\d+$/);
    const listed = await waitFor(
      async () => (await keys("GET", "/api/keys", bearer(session.token))).json.keys.find((k: { name: string }) => k.name === "last-used"),
      (k) => k.last_used_at !== null,
    );
    expect(listed.last_used_at).toBe(new Date(h.clock.now()).toISOString());
  });

  test.each([
    { name: "too short", key: "svc_live_abc" },
    { name: "right shape, never issued", key: "svc_live_" + "A".repeat(43) },
    { name: "a real key with one character changed", key: null },
  ])("401 for a key that is not live: $name", async ({ key }) => {
    let presented = key;
    if (presented === null) {
      const real = await createApiKey(h.base, session.token, "tamper");
      presented = real.slice(0, -1) + (real.endsWith("A") ? "B" : "A");
    }
    const reply = await me(bearer(presented));
    expect(reply.status).toBe(401);
    expect(reply.json).toEqual({ error: "invalid or revoked API key" });
  });
});

describe("revoke", () => {
  test("DELETE /api/keys/{id} revokes at once; a second delete is 404", async () => {
    const created = await keys("POST", "/api/keys", bearer(session.token), { name: "short-lived" });
    const key: string = created.json.key;
    expect((await me(bearer(key))).status).toBe(200);
    const del = await keys("DELETE", `/api/keys/${created.json.id}`, bearer(session.token));
    expect(del.status).toBe(204);
    expect((await me(bearer(key))).json).toEqual({ error: "invalid or revoked API key" });
    const list = await keys("GET", "/api/keys", bearer(session.token));
    expect(list.json.keys.map((k: { id: number }) => k.id)).not.toContain(created.json.id);
    expect((await keys("DELETE", `/api/keys/${created.json.id}`, bearer(session.token))).json).toEqual({ error: "unknown API key" });
  });

  test("another team's key is invisible: not listed, 404 on delete, and still valid for its own team", async () => {
    await h.pool.query("insert into teams (slug, name) values ('other', 'Other team') on conflict do nothing");
    const other = (await h.pool.query("select id from teams where slug = 'other'")).rows[0].id as number;
    const store = new ApiKeys(h.pool, h.clock, silentLogger);
    const theirs = await store.create(other, "theirs", "read", "test");
    const list = await keys("GET", "/api/keys", bearer(session.token));
    expect(list.json.keys.map((k: { id: number }) => k.id)).not.toContain(theirs.id);
    expect((await keys("DELETE", `/api/keys/${theirs.id}`, bearer(session.token))).status).toBe(404);
    expect((await me(bearer(theirs.key))).json).toMatchObject({ team_id: other, via: "api_key" });
  });
});

describe("key management needs a session", () => {
  test.each([
    { method: "GET", path: "/api/keys", body: undefined },
    { method: "POST", path: "/api/keys", body: { name: "made by a key" } },
    { method: "DELETE", path: "/api/keys/1", body: undefined },
  ])("403 for $method $path with an API key, 401 without a credential", async ({ method, path, body }) => {
    const key = await createApiKey(h.base, session.token, "scripted");
    const withKey = await keys(method, path, bearer(key), body);
    expect(withKey.status).toBe(403);
    expect(withKey.json).toEqual({ error: "API keys cannot manage keys or settings: sign in for a session" });
    expect((await keys(method, path, {}, body)).status).toBe(401);
    expect((await keys(method, path, bearer("svc_live_" + "Z".repeat(43)), body)).status).toBe(401);
  });
});

describe("bad input", () => {
  test.each([
    { name: "not JSON", body: "{", error: "malformed JSON", details: undefined },
    { name: "no name", body: {}, error: "invalid body", details: [{ path: "name", message: "is required" }] },
    { name: "blank name", body: { name: "   " }, error: "invalid body", details: [{ path: "name", message: "must not be blank" }] },
    { name: "name too long", body: { name: "k".repeat(101) }, error: "invalid body", details: [{ path: "name", message: "must be at most 100 characters" }] },
    { name: "name not a string", body: { name: 7 }, error: "invalid body", details: [{ path: "name", message: "must be a key name" }] },
  ])("POST /api/keys → 400: $name", async ({ body, error, details }) => {
    const reply = await keys("POST", "/api/keys", bearer(session.token), body);
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual(details ? { error, details } : { error });
  });

  test.each(["abc", "0", "-1", "1.5", "99999999999", "2147483648"])("DELETE /api/keys/%s → 400", async (id) => {
    const reply = await keys("DELETE", `/api/keys/${id}`, bearer(session.token));
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ error: "invalid key id", details: [{ path: "id", message: "must be a positive integer" }] });
  });

  test("DELETE of a well-formed unknown id → 404", async () => {
    expect((await keys("DELETE", "/api/keys/2147483647", bearer(session.token))).status).toBe(404);
  });
});
