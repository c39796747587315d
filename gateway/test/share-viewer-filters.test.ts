// A shared view's viewer filters over real HTTP on a real PostgreSQL: whatever filters a viewer sends to the
// link's query, funnel and AI routes — another source, the link's own filter negated, an `or` reaching past it,
// an actor the link hides, a pattern matching everything — the answer is the query API's for the link's
// filters and actor *and* the viewer's: never a row outside the link. Bad viewer filters are a 400 naming them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, call, createApiKey, loginAsAdmin } from "./support/auth.ts";
import { type Harness, UA, post, startHarness } from "./support/harness.ts";

const SITE = "viewer.shared.example";
const LINK = [["is", "visit:source", ["Google"]]];
let h: Harness;
let admin: Record<string, string>;
/** Google's people only. */
let humanLink: string;
/** Google's visits, any actor (the AI panel is only for a link without an actor). */
let anyActorLink: string;
let funnelId: number;

const person = (n: number) => UA.chrome.replace("Chrome/131.0.0.0", `Chrome/131.0.${n}.0`);
const visit = (path: string, ua: string, referrer: string) =>
  post(h.base, "/api/event", { d: SITE, u: `https://${SITE}${path}`, r: referrer }, { "user-agent": ua }).then((r) => expect(r.status).toBe(202));

beforeAll(async () => {
  h = await startHarness({ sites: [SITE] });
  const { token } = await loginAsAdmin(h.base);
  admin = bearer(await createApiKey(h.base, token, "admin", "admin"));
  // Google: two people (/ then /pricing; /docs) and one assistant visitor; Bing: two people; direct: one.
  await visit("/", person(1), "https://www.google.com/");
  await visit("/pricing", person(1), "https://www.google.com/");
  await visit("/docs", person(2), "https://www.google.com/");
  await visit("/", UA.chrome, "https://chatgpt.com/");
  await visit("/", person(3), "https://www.bing.com/");
  await visit("/pricing", person(4), "https://www.bing.com/");
  await visit("/pricing", person(5), "");
  humanLink = (await call(h.base, "POST", `/api/sites/${SITE}/shares`, { body: { filters: LINK, actor: "human" }, headers: admin })).json.token;
  anyActorLink = (await call(h.base, "POST", `/api/sites/${SITE}/shares`, { body: { filters: LINK }, headers: admin })).json.token;
  funnelId = (await call(h.base, "POST", `/api/sites/${SITE}/funnels`, { body: { name: "Buy", steps: [{ page_path: "/" }, { page_path: "/pricing" }] }, headers: admin })).json.id;
});
afterAll(() => h?.close());

const ATTEMPTS: ReadonlyArray<readonly [string, unknown[]]> = [
  ["no filter of the viewer's", []],
  ["another source", [["is", "visit:source", ["Bing"]]]],
  ["the link's filter negated", [["is_not", "visit:source", ["Google"]]]],
  ["an `or` reaching past the link", [["or", [["is", "visit:source", ["Bing"]], ["is", "visit:source", ["Google"]]]]]],
  ["a `not` of the link's filter", [["not", ["is", "visit:source", ["Google"]]]]],
  ["an actor the link hides", [["is", "visit:actor", ["bot", "ai_crawler", "human_via_ai"]]]],
  ["a pattern matching every page", [["matches", "event:page", [".*"]]]],
  ["two filters at once", [["is", "event:page", ["/pricing"]], ["is_not", "visit:source", ["Direct / None"]]]],
];

const owners = (body: Record<string, unknown>) => call(h.base, "POST", "/api/v2/query", { body: { site_id: SITE, date_range: "day", ...body }, headers: admin });

describe("a viewer's filters only narrow the link's view", () => {
  it.each(ATTEMPTS)("%s: the link's query answers the API's for both, inside the link", async (_name, viewer) => {
    const body = { site_id: SITE, date_range: "day", metrics: ["visitors", "pageviews"], dimensions: ["visit:source", "visit:actor"], filters: viewer };
    const shared = await call(h.base, "POST", `/api/share/${humanLink}/query`, { body });
    expect(shared.status, JSON.stringify(shared.json)).toBe(200);
    const want = await owners({ ...body, filters: [...LINK, ...viewer, ["is", "visit:actor", ["human"]]] });
    expect(shared.json.results).toEqual(want.json.results);
    for (const row of shared.json.results as { dimensions: string[] }[]) expect(row.dimensions).toEqual(["Google", "human"]);
    const linkOnly = await owners({ metrics: ["visitors"], filters: [...LINK, ["is", "visit:actor", ["human"]]] });
    const total = (shared.json.results as { metrics: number[] }[]).reduce((n, r) => n + r.metrics[0]!, 0);
    expect(total).toBeLessThanOrEqual(linkOnly.json.results[0].metrics[0]);
    // Not vacuous: the link alone has its two people.
    if (viewer.length === 0) expect(total).toBe(2);
  });

  it.each(ATTEMPTS)("%s: the link's funnel counts the link's rows and the viewer's only", async (_name, viewer) => {
    const q = `days=1&filters=${encodeURIComponent(JSON.stringify(viewer))}`;
    const shared = await call(h.base, "GET", `/api/share/${humanLink}/funnels/${funnelId}/result?${q}`);
    expect(shared.status, JSON.stringify(shared.json)).toBe(200);
    const owner = await call(h.base, "GET", `/api/sites/${SITE}/funnels/${funnelId}/result?days=1&actor=human&filters=${encodeURIComponent(JSON.stringify([...LINK, ...viewer]))}`, { headers: admin });
    expect(shared.json.steps).toEqual(owner.json.steps);
    expect(shared.json.visitors).toBe(owner.json.visitors);
    // Google's people: one reached both steps; nobody from Bing or direct ever counts.
    expect(shared.json.steps[0].visitors).toBeLessThanOrEqual(1);
  });

  it.each(ATTEMPTS)("%s: the link's AI panel is the owner's panel for both filters", async (_name, viewer) => {
    const q = viewer.length > 0 ? `filters=${encodeURIComponent(JSON.stringify(viewer))}` : "";
    const shared = await call(h.base, "GET", `/api/share/${anyActorLink}/ai?${q}`);
    expect(shared.status, JSON.stringify(shared.json)).toBe(200);
    const owner = await call(h.base, "GET", `/api/sites/${SITE}/ai?filters=${encodeURIComponent(JSON.stringify([...LINK, ...viewer]))}`, { headers: admin });
    expect(shared.json).toEqual(owner.json);
  });
});

describe("bad viewer filters", () => {
  it.each([
    ["not JSON", "nope", "filters"],
    ["not an array", encodeURIComponent('{"is":1}'), "filters"],
    ["an unknown dimension", encodeURIComponent('[["is","visit:nope",["x"]]]'), "filters[0][1]"],
    ["a bad pattern", encodeURIComponent('[["matches","event:page",["("]]]'), "filters[0][2][0]"],
  ])("%s: a 400 naming the viewer's field, on the funnel and AI routes", async (_name, value, path) => {
    for (const route of [`/api/share/${humanLink}/funnels/${funnelId}/result?days=1&filters=${value}`, `/api/share/${anyActorLink}/ai?filters=${value}`]) {
      const reply = await call(h.base, "GET", route);
      expect(reply.status, `${route}: ${JSON.stringify(reply.json)}`).toBe(400);
      expect(reply.json.details).toEqual([expect.objectContaining({ path })]);
    }
  });

  it("an unknown funnel is a 404; a link's actor is the only one its funnel answers (403 for another)", async () => {
    expect((await call(h.base, "GET", `/api/share/${humanLink}/funnels/999999/result?days=1`)).status).toBe(404);
    expect((await call(h.base, "GET", `/api/share/${humanLink}/funnels/abc/result?days=1`)).status).toBe(404);
    expect((await call(h.base, "GET", `/api/share/${humanLink}/funnels/${funnelId}/result?days=1&actor=bot`)).status).toBe(403);
    const list = await call(h.base, "GET", `/api/share/${humanLink}/funnels`);
    expect(list.json.funnels.map((f: { id: number }) => f.id)).toEqual([funnelId]);
  });
});
