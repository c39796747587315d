// Sites and goals over real HTTP: create, list, change, conflicts and bad input; a domain change makes ingest
// for the old domain 404 at once through the real /api/event.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, call, loginAsAdmin } from "../support/auth.ts";
import { type Harness, UA, post, startHarness } from "../support/harness.ts";

let h: Harness;
let auth: Record<string, string>;

beforeAll(async () => {
  h = await startHarness({ sites: ["existing.example"] });
  auth = bearer((await loginAsAdmin(h.base)).token);
});
afterAll(async () => {
  await h?.close();
});

const req = (method: string, path: string, body?: unknown) => call(h.base, method, path, { headers: auth, ...(body !== undefined ? { body } : {}) });

describe("sites", () => {
  it("POST creates a normalised site (201), GET lists the team's sites", async () => {
    const created = await req("POST", "/api/sites", { domain: "https://Shop.Example.COM:443/path?q", name: "  Shop  ", retention_days: 30 });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ domain: "shop.example.com", name: "Shop", retention_days: 30, team_id: 1 });
    expect(typeof created.json.id).toBe("number");
    expect(Date.parse(created.json.created_at)).not.toBeNaN();
    const defaults = await req("POST", "/api/sites", { domain: "plain.example" });
    expect(defaults.json).toMatchObject({ domain: "plain.example", name: null, retention_days: 395 });
    const list = await req("GET", "/api/sites");
    expect(list.status).toBe(200);
    expect(list.json.sites.map((s: any) => s.domain)).toEqual(["existing.example", "shop.example.com", "plain.example"]);
  });

  it.each([
    [{ domain: "not a domain" }, "domain"],
    [{ domain: "" }, "domain"],
    [{ domain: 42 }, "domain"],
    [{}, "domain"],
    [{ domain: "ok.example", retention_days: 0 }, "retention_days"],
    [{ domain: "ok.example", retention_days: 1.5 }, "retention_days"],
    [{ domain: "ok.example", retention_days: 3661 }, "retention_days"],
    [{ domain: "ok.example", name: "x".repeat(201) }, "name"],
    [{ domain: "ok.example", nmae: "typo" }, "nmae"],
    [{ domain: "ok.example", time_zone: "Mars/Olympus_Mons" }, "time_zone"],
    [{ domain: "ok.example", time_zone: "+05:30" }, "time_zone"],
    [{ domain: "ok.example", time_zone: 5.5 }, "time_zone"],
    [{ domain: "ok.example", time_zone: "" }, "time_zone"],
    [[], ""],
  ])("POST %j → 400 naming %s", async (body, path) => {
    const r = await req("POST", "/api/sites", body);
    expect(r.status).toBe(400);
    expect(r.json.error).toBe("invalid body");
    expect(r.json.details.map((d: any) => d.path)).toContain(path);
  });

  it("POST with malformed JSON → 400; a taken domain (in any spelling) → 409", async () => {
    const bad = await call(h.base, "POST", "/api/sites", { body: "{", headers: auth });
    expect(bad).toMatchObject({ status: 400, json: { error: "malformed JSON" } });
    const taken = await req("POST", "/api/sites", { domain: "EXISTING.example." });
    expect(taken.status).toBe(409);
    expect(taken.json.error).toMatch(/already registered/);
  });

  it("PATCH changes name and retention by id or domain; 404 unknown; 409 taken; 400 bad or empty", async () => {
    const site = (await req("POST", "/api/sites", { domain: "patch.example" })).json;
    const byId = await req("PATCH", `/api/sites/${site.id}`, { name: "Patched", retention_days: 90 });
    expect(byId).toMatchObject({ status: 200, json: { id: site.id, name: "Patched", retention_days: 90, domain: "patch.example" } });
    const byDomain = await req("PATCH", "/api/sites/patch.example", { name: null });
    expect(byDomain.json).toMatchObject({ id: site.id, name: null });
    expect((await req("PATCH", "/api/sites/999999", { name: "x" })).status).toBe(404);
    expect((await req("PATCH", "/api/sites/nobody.example", { name: "x" })).json).toEqual({ error: "unknown site" });
    expect((await req("PATCH", `/api/sites/${site.id}`, { domain: "existing.example" })).status).toBe(409);
    const invalid = await req("PATCH", `/api/sites/${site.id}`, { domain: "bad domain!" });
    expect(invalid.status).toBe(400);
    expect(invalid.json.details).toEqual([{ path: "domain", message: expect.stringContaining("not a valid domain") }]);
    expect((await req("PATCH", `/api/sites/${site.id}`, {})).status).toBe(400);
    expect((await req("PATCH", `/api/sites/${site.id}`, { retention_days: "30" })).status).toBe(400);
  });

  it("time_zone: UTC by default, set on POST and PATCH in the list's spelling; an unknown zone is a 400 that says what to use", async () => {
    expect((await req("POST", "/api/sites", { domain: "utc.example" })).json).toMatchObject({ time_zone: "UTC" });
    const zoned = await req("POST", "/api/sites", { domain: "zoned.example", time_zone: "australia/lord_howe" });
    expect(zoned).toMatchObject({ status: 201, json: { time_zone: "Australia/Lord_Howe" } });
    const patched = await req("PATCH", "/api/sites/zoned.example", { time_zone: "America/St_Johns" });
    expect(patched).toMatchObject({ status: 200, json: { time_zone: "America/St_Johns" } });
    expect((await req("GET", "/api/sites")).json.sites.find((s: any) => s.domain === "zoned.example")).toMatchObject({ time_zone: "America/St_Johns" });
    const unknown = await req("PATCH", "/api/sites/zoned.example", { time_zone: "Europe/Atlantis" });
    expect(unknown).toMatchObject({ status: 400, json: { error: "invalid body" } });
    expect(unknown.json.details).toEqual([{ path: "time_zone", message: expect.stringMatching(/unknown time zone "Europe\/Atlantis": use an IANA name/) }]);
  });

  it("a domain change makes ingest for the old domain 404 at once and the new one 202", async () => {
    const site = (await req("POST", "/api/sites", { domain: "old.example" })).json;
    const event = (domain: string) => post(h.base, "/api/event", { d: domain, u: `https://${domain}/` }, { "user-agent": UA.chrome });
    await expect.poll(async () => (await event("old.example")).status).toBe(202);
    const renamed = await req("PATCH", `/api/sites/${site.id}`, { domain: "new.example" });
    expect(renamed.json.domain).toBe("new.example");
    const old = await event("old.example");
    expect(old).toMatchObject({ status: 404, json: { error: "unknown site" } });
    await expect.poll(async () => (await event("new.example")).status).toBe(202);
  });
});

describe("deleting a site", () => {
  it("needs the domain typed again (400), then removes the site and every row of it; ingest answers 404", async () => {
    const site = (await req("POST", "/api/sites", { domain: "doomed.example" })).json;
    const keep = (await req("POST", "/api/sites", { domain: "kept.example" })).json;
    for (const domain of ["doomed.example", "kept.example"]) {
      await expect.poll(async () => (await post(h.base, "/api/event", { d: domain, u: `https://${domain}/a` }, { "user-agent": UA.chrome })).status).toBe(202);
      const hit = await post(h.base, "/api/hit", [{ domain, method: "GET", path: "/a", status: 200, user_agent: UA.gptbot, referrer: "", ip: "203.0.113.9" }]);
      expect(hit.status).toBe(202);
    }
    await req("POST", `/api/sites/${site.id}/goals`, { name: "Signup" });
    await h.gateway.rollups.flushBeforeRead();
    const rows = async (id: number) => {
      const counts: Record<string, number> = {};
      for (const table of ["events", "hits", "rollup_hourly", "rollup_daily", "salts", "goals"]) {
        counts[table] = (await h.pool.query(`select count(*)::int as n from ${table} where site_id = $1`, [id])).rows[0].n;
      }
      return counts;
    };
    expect(Object.values(await rows(site.id)).every((n) => n > 0)).toBe(true);

    for (const confirm of ["", "kept.example", "doomed"]) {
      const refused = await req("DELETE", `/api/sites/${site.id}?confirm=${confirm}`);
      expect(refused.status, confirm).toBe(400);
      expect(refused.json.details).toEqual([{ path: "confirm", message: expect.stringContaining("doomed.example") }]);
    }
    expect((await req("DELETE", `/api/sites/${site.id}`)).status).toBe(400);
    expect((await req("DELETE", `/api/sites/${site.id}?confirm=DOOMED.example`)).status).toBe(204);

    expect(await rows(site.id)).toEqual({ events: 0, hits: 0, rollup_hourly: 0, rollup_daily: 0, salts: 0, goals: 0 });
    expect(Object.values(await rows(keep.id)).filter((n) => n > 0)).toHaveLength(5); // everything but goals
    expect((await req("GET", "/api/sites")).json.sites.map((s: any) => s.domain)).not.toContain("doomed.example");
    expect(await post(h.base, "/api/event", { d: "doomed.example", u: "https://doomed.example/" }, { "user-agent": UA.chrome })).toMatchObject({ status: 404 });
    expect((await req("DELETE", `/api/sites/${site.id}?confirm=doomed.example`)).status).toBe(404);
    expect((await req("GET", `/api/sites/${site.id}/stats`)).status).toBe(404);
  });
});

describe("goals", () => {
  it("POST → 201 with id; the same name again → 409; bad names → 400; DELETE → 204 then 404", async () => {
    const path = "/api/sites/existing.example/goals";
    const created = await req("POST", path, { name: "Signup" });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: "Signup", site_id: expect.any(Number), id: expect.any(Number) });
    expect((await req("POST", path, { name: " Signup " })).status).toBe(409);
    for (const body of [{ name: "" }, { name: "   " }, { name: "x".repeat(121) }, { name: 7 }, {}, { name: "ok", extra: 1 }]) {
      const r = await req("POST", path, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.details.length).toBeGreaterThan(0);
    }
    expect((await req("POST", path, { name: "x".repeat(120) })).status).toBe(201);
    const list = await req("GET", path);
    expect(list.json.goals.map((g: any) => g.name)).toEqual(["Signup", "x".repeat(120)]);
    expect((await req("DELETE", `${path}/${created.json.id}`)).status).toBe(204);
    expect((await req("DELETE", `${path}/${created.json.id}`)).json).toEqual({ error: "unknown goal" });
    expect((await req("DELETE", `${path}/abc`)).status).toBe(404);
    expect((await req("DELETE", `${path}/99999999999`)).status).toBe(404);
  });

  it("a goal of another site of the team cannot be deleted through this site", async () => {
    const other = (await req("POST", "/api/sites", { domain: "goals-other.example" })).json;
    const goal = (await req("POST", `/api/sites/${other.id}/goals`, { name: "Buy" })).json;
    expect((await req("DELETE", `/api/sites/existing.example/goals/${goal.id}`)).status).toBe(404);
    expect((await req("DELETE", `/api/sites/${other.id}/goals/${goal.id}`)).status).toBe(204);
  });
});
