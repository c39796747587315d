// Saved segments over real HTTP on real PostgreSQL: saved by an admin, listed by a read key of the team,
// refused names and filters answered 400 naming the field (the query engine's own parser and RE2 check),
// a second segment of the same name 409, another team's site 404, deleted once. (Every credential and the
// generic bad input — malformed JSON, wrong types, oversize — are driven for every route by operations.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, call, createApiKey, loginAsAdmin } from "../support/auth.ts";
import { type Harness, startHarness } from "../support/harness.ts";

const DOMAIN = "segments.example";
let h: Harness;
let admin: Record<string, string>;
let reader: Record<string, string>;

beforeAll(async () => {
  h = await startHarness({ sites: [DOMAIN] });
  const { token } = await loginAsAdmin(h.base);
  admin = bearer(token);
  reader = bearer(await createApiKey(h.base, token, "segments reader", "read"));
});
afterAll(() => h?.close());

const path = `/api/sites/${DOMAIN}/segments`;

describe("segments", () => {
  it("an admin saves one; a read key lists it with its filters; the same name again is 409; deleted once", async () => {
    const filters = [["is", "visit:source", ["Google"]], ["contains", "event:page", ["/docs"]]];
    const created = await call(h.base, "POST", path, { headers: admin, body: { name: "  Google docs readers ", filters } });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json).toMatchObject({ name: "Google docs readers", filters });
    const listed = await call(h.base, "GET", path, { headers: reader });
    expect(listed.status).toBe(200);
    expect(listed.json.segments).toEqual([created.json]);
    expect((await call(h.base, "POST", path, { headers: reader, body: { name: "x", filters } })).status).toBe(403);
    const again = await call(h.base, "POST", path, { headers: admin, body: { name: "Google docs readers", filters } });
    expect(again.status).toBe(409);
    expect((await call(h.base, "DELETE", `${path}/${created.json.id}`, { headers: admin })).status).toBe(204);
    expect((await call(h.base, "DELETE", `${path}/${created.json.id}`, { headers: admin })).status).toBe(404);
    expect((await call(h.base, "GET", path, { headers: reader })).json.segments).toEqual([]);
  });

  it.each([
    [{ name: "", filters: [["is", "visit:source", ["a"]]] }, "name"],
    [{ name: "   ", filters: [["is", "visit:source", ["a"]]] }, "name"],
    [{ name: "x".repeat(121), filters: [["is", "visit:source", ["a"]]] }, "name"],
    [{ name: "n", filters: [] }, "filters"],
    [{ name: "n", filters: "source=Google" }, "filters"],
    [{ name: "n", filters: [["is", "visit:nope", ["a"]]] }, "filters[0][1]"],
    [{ name: "n", filters: [["equals", "visit:source", ["a"]]] }, "filters[0][0]"],
    [{ name: "n", filters: [["matches", "event:page", ["(?=lookahead)"]]] }, "filters[0][2][0]"],
    [{ name: "n", filters: [["is", "visit:source", [42]]] }, "filters[0][2][0]"],
  ])("%j is refused with 400 naming %s", async (body, field) => {
    const reply = await call(h.base, "POST", path, { headers: admin, body });
    expect(reply.status, JSON.stringify(reply.json)).toBe(400);
    expect(JSON.stringify(reply.json)).toContain(field);
  });

  it("an unknown site is 404, never a 500", async () => {
    expect((await call(h.base, "POST", "/api/sites/nobody.example/segments", { headers: admin, body: { name: "n", filters: [["is", "visit:source", ["a"]]] } })).status).toBe(404);
    expect((await call(h.base, "GET", "/api/sites/nobody.example/segments", { headers: reader })).status).toBe(404);
  });
});
