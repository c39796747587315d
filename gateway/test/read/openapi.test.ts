// GET /api/openapi.json: public, OpenAPI 3.1, every route the gateway's route modules register is documented
// (and nothing else), every reference resolves, and each path template's parameters are declared.
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../support/auth.ts";
import { type Harness, startHarness } from "../support/harness.ts";

const ROUTES_DIR = fileURLToPath(new URL("../../src/routes/", import.meta.url));

/** `METHOD /path/{}` for every `.on("METHOD /path/{param}"` (or `.site(`, `.authenticatesItself(`) in the route modules. */
async function registeredRoutes(): Promise<string[]> {
  const out: string[] = [];
  for (const file of (await readdir(ROUTES_DIR)).filter((f) => f.endsWith(".ts"))) {
    const source = await readFile(ROUTES_DIR + file, "utf8");
    for (const m of source.matchAll(/\.(?:on|site|authenticatesItself)\(\s*"([A-Z]+) ([^"]+)"/g)) out.push(`${m[1]} ${m[2]!.replace(/\{\w+\}/g, "{}")}`);
  }
  return out.sort();
}

let h: Harness;
let doc: any;
beforeAll(async () => {
  h = await startHarness();
  const reply = await call(h.base, "GET", "/api/openapi.json");
  expect(reply.status).toBe(200);
  expect(reply.headers.get("content-type")).toContain("application/json");
  doc = reply.json;
});
afterAll(async () => {
  await h?.close();
});

describe("/api/openapi.json", () => {
  it("is an OpenAPI 3.1 document served without a credential", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.title).toBe("svc gateway");
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(["bearer", "session_cookie"]);
  });

  it("documents exactly the routes the route modules register", async () => {
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops as object).map((method) => `${method.toUpperCase()} ${path.replace(/\{\w+\}/g, "{}")}`))
      .sort();
    const registered = await registeredRoutes();
    expect(registered.length).toBeGreaterThanOrEqual(20);
    expect(documented).toEqual(registered);
  });

  it("declares every path parameter, and every $ref resolves to a component", () => {
    const refs = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === "object") {
        for (const [k, v] of Object.entries(node)) {
          if (k === "$ref" && typeof v === "string") refs.add(v);
          else walk(v);
        }
      }
    };
    walk(doc.paths);
    walk(doc.components.schemas);
    expect(refs.size).toBeGreaterThan(10);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(doc.components.schemas[ref.slice("#/components/schemas/".length)], ref).toBeDefined();
    }
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      const placeholders = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      for (const op of Object.values<any>(ops)) {
        const declared = (op.parameters ?? []).filter((p: any) => p.in === "path").map((p: any) => p.name).sort();
        expect(declared, path).toEqual(placeholders);
        expect(Object.keys(op.responses).length).toBeGreaterThan(0);
      }
    }
  });

  it("derives the read routes' parameters and bodies from the schemas the routes validate with", () => {
    const breakdown = doc.paths["/api/sites/{id}/breakdown"].get;
    const param = (name: string) => breakdown.parameters.find((p: any) => p.name === name);
    expect(param("days")).toMatchObject({ in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: 366, default: 30 } });
    expect(param("actor").schema.enum).toEqual(["human", "human_via_ai", "ai_crawler", "ai_agent", "bot", "humans", "all"]);
    expect(param("field")).toMatchObject({ required: true });
    expect(param("limit").schema).toMatchObject({ maximum: 1000, default: 10 });
    expect(breakdown.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Breakdown" });
    expect(Object.keys(breakdown.responses).sort()).toEqual(["200", "400", "401", "403", "404"]);
    expect(doc.paths["/api/sites"].post.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/CreateSite" });
    expect(doc.components.schemas.Stats.required).toEqual(expect.arrayContaining(["current", "previous", "change", "series", "granularity"]));
    expect(doc.paths["/api/team/llm"].patch["x-svc-session-only"]).toBe(true);
    expect(doc.paths["/api/event"].post.security).toEqual([]);
    expect(doc.paths["/api/event"].post.requestBody.content["text/plain"].schema.properties.d).toMatchObject({ type: "string" });
  });
});
