// GET/PATCH /api/team/llm over real HTTP: defaults, environment fallbacks, validation, keys never returned,
// and API keys refused (settings need a session).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigInvalid, loadConfig } from "../../src/config.ts";
import { bearer, call, createApiKey, loginAsAdmin } from "../support/auth.ts";
import { type Harness, startHarness } from "../support/harness.ts";

const SECRET = "sk-test-0123456789-never-returned";

describe("SVC_LLM_* at boot", () => {
  it("parses the language-model environment once, with defaults", () => {
    expect(loadConfig({}).llm).toEqual({
      provider: null, model: null, localHost: "http://127.0.0.1:11434", openaiBaseUrl: null, openaiApiKey: null, anthropicApiKey: null, geminiApiKey: null,
      anthropicBaseUrl: "https://api.anthropic.com", geminiBaseUrl: "https://generativelanguage.googleapis.com", timeoutMs: 60_000, insightsEveryHours: 168,
    });
    expect(loadConfig({ SVC_LLM_PROVIDER: "none", SVC_LLM_HOST: "http://gpu-box:11434" }).llm).toMatchObject({ provider: "none", localHost: "http://gpu-box:11434" });
  });

  it("collects every configured secret value for the outbound redaction step", () => {
    const config = loadConfig({ SVC_OPENAI_API_KEY: SECRET, SVC_GEMINI_API_KEY: "gm-key-1", DATABASE_URL: "postgres://svc:db%2Fpass@db:5432/svc" });
    expect([...config.secrets].sort()).toEqual(["db/pass", "gm-key-1", SECRET].sort());
  });

  it.each([
    ["SVC_LLM_PROVIDER", "cloud"],
    ["SVC_LLM_HOST", "gpu-box:11434"],
    ["SVC_OPENAI_BASE_URL", "not a url"],
    ["SVC_LLM_MODEL", "m".repeat(201)],
  ])("refuses %s=%s with a one-line message naming it", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigInvalid);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}=.* is invalid`));
  });
});

describe("with no SVC_LLM_* set", () => {
  let h: Harness;
  let session: Record<string, string>;
  beforeAll(async () => {
    h = await startHarness();
    session = bearer((await loginAsAdmin(h.base)).token);
  });
  afterAll(async () => {
    await h?.close();
  });

  it("defaults to the local provider and its default model", async () => {
    const r = await call(h.base, "GET", "/api/team/llm", { headers: session });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ provider: "local", model: "llama3.2", source: "default" });
    expect(r.json.providers.local).toEqual({ default_model: "llama3.2", endpoint: "http://127.0.0.1:11434", key_configured: false, usable: true });
    expect(r.json.providers.anthropic).toMatchObject({ key_configured: false, usable: false });
  });

  it.each([
    [{ provider: "anthropic" }, "provider", /SVC_ANTHROPIC_API_KEY/],
    [{ provider: "gemini", model: "x" }, "provider", /SVC_GEMINI_API_KEY/],
    [{ provider: "openai" }, "provider", /SVC_OPENAI_API_KEY or SVC_OPENAI_BASE_URL/],
    [{ provider: "cloud" }, "provider", /must be one of/],
    [{ model: "x" }, "provider", /required/],
    [{ provider: "local", model: "" }, "model", /blank/],
    [{ provider: "local", model: "m".repeat(201) }, "model", /200/],
    [{ provider: "local", model: 3 }, "model", /model name/],
    [{ provider: "none", model: "llama3.2" }, "model", /none/],
    [{ provider: "local", api_key: "x" }, "api_key", /./],
  ])("PATCH %j → 400 on %s", async (body, path, message) => {
    const r = await call(h.base, "PATCH", "/api/team/llm", { body, headers: session });
    expect(r.status).toBe(400);
    const detail = r.json.details.find((d: any) => d.path === path);
    expect(detail?.message).toMatch(message);
  });

  it("PATCH stores the team's choice; a later GET returns it; none turns insights off", async () => {
    const set = await call(h.base, "PATCH", "/api/team/llm", { body: { provider: "local", model: "qwen2.5:7b" }, headers: session });
    expect(set.json).toMatchObject({ provider: "local", model: "qwen2.5:7b", source: "team" });
    expect((await call(h.base, "GET", "/api/team/llm", { headers: session })).json).toMatchObject({ provider: "local", model: "qwen2.5:7b", source: "team" });
    const off = await call(h.base, "PATCH", "/api/team/llm", { body: { provider: "none" }, headers: session });
    expect(off.json).toMatchObject({ provider: "none", model: null, source: "team" });
    const back = await call(h.base, "PATCH", "/api/team/llm", { body: { provider: "local", model: null }, headers: session });
    expect(back.json).toMatchObject({ provider: "local", model: "llama3.2" });
  });

  it("an API key may not read or change settings (403); no credential is 401", async () => {
    const key = bearer(await createApiKey(h.base, (await loginAsAdmin(h.base)).token));
    expect((await call(h.base, "GET", "/api/team/llm", { headers: key })).status).toBe(403);
    expect((await call(h.base, "PATCH", "/api/team/llm", { body: { provider: "none" }, headers: key })).status).toBe(403);
    expect((await call(h.base, "GET", "/api/team/llm")).status).toBe(401);
  });

  it("a session cookie works like the bearer token", async () => {
    const { cookie } = await loginAsAdmin(h.base);
    expect((await call(h.base, "GET", "/api/team/llm", { headers: { cookie } })).status).toBe(200);
  });
});

describe("with the environment configured", () => {
  let h: Harness;
  let session: Record<string, string>;
  beforeAll(async () => {
    h = await startHarness({
      env: {
        SVC_LLM_PROVIDER: "anthropic",
        SVC_LLM_MODEL: "claude-test",
        SVC_ANTHROPIC_API_KEY: SECRET,
        SVC_OPENAI_BASE_URL: "http://127.0.0.1:8000/v1",
        SVC_GEMINI_API_KEY: `${SECRET}-gemini`,
      },
    });
    session = bearer((await loginAsAdmin(h.base)).token);
  });
  afterAll(async () => {
    await h?.close();
  });

  it("falls back to SVC_LLM_PROVIDER/SVC_LLM_MODEL and reports keys only as configured", async () => {
    const r = await call(h.base, "GET", "/api/team/llm", { headers: session });
    expect(r.json).toMatchObject({ provider: "anthropic", model: "claude-test", source: "environment" });
    expect(r.json.providers.anthropic).toMatchObject({ key_configured: true, usable: true });
    expect(r.json.providers.openai).toMatchObject({ key_configured: false, usable: true, endpoint: "http://127.0.0.1:8000/v1" });
    expect(JSON.stringify(r.json)).not.toContain(SECRET);
  });

  it("accepts every provider whose environment is complete, and never echoes a key", async () => {
    for (const provider of ["openai", "anthropic", "gemini", "local", "none"]) {
      const r = await call(h.base, "PATCH", "/api/team/llm", { body: { provider }, headers: session });
      expect(r.status, provider).toBe(200);
      expect(r.json.provider).toBe(provider);
      expect(JSON.stringify(r.json)).not.toContain(SECRET);
    }
    expect(h.logs.join("\n")).not.toContain(SECRET);
  });
});
