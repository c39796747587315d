// Issue 20 end to end: a language-model provider that refuses the key and echoes it (with its own address) used
// to have both shown to every assistant by the insights tool. A real gateway with a fake OpenAI-compatible
// provider (node:http on 127.0.0.1) answering 401 with the key in its message; the run goes through the API;
// the SDK's client reads the insights tool: the text and structuredContent name the provider and the status,
// and hold neither the key nor the address.
import { afterAll, beforeAll, expect, it } from "vitest";
import { bearer, call, createApiKey, loginAsAdmin } from "../../gateway/test/support/auth.ts";
import { FakeProvider } from "../../gateway/test/support/fake-llm.ts";
import { type Harness, startHarness } from "../../gateway/test/support/harness.ts";
import { connectMcp, type McpSession, text } from "./support/mcp-client.ts";

const SITE = "redaction.example";
const PROVIDER_KEY = "sk-proj-Leaky0123456789abcdef";

let h: Harness;
let fake: FakeProvider;
let mcp: McpSession;

beforeAll(async () => {
  fake = await FakeProvider.start("openai");
  h = await startHarness({ sites: [SITE], env: { SVC_LLM_PROVIDER: "openai", SVC_OPENAI_BASE_URL: fake.base, SVC_OPENAI_API_KEY: PROVIDER_KEY, SVC_INSIGHTS_EVERY_HOURS: "0" } });
  const { token } = await loginAsAdmin(h.base);
  fake.script = [{ status: 401, body: JSON.stringify({ error: { message: `Incorrect API key provided: Bearer ${PROVIDER_KEY}. Served by ${fake.base}/v1 at 127.0.0.1.` } }) }];
  const run = await call(h.base, "POST", `/api/sites/${SITE}/insights/run`, { headers: bearer(token) });
  expect(run.json.status).toBe("error");
  // A read key, as an assistant would hold.
  mcp = await connectMcp({ SVC_API_URL: h.base, SVC_API_KEY: await createApiKey(h.base, token, "assistant"), SVC_SITE_ID: SITE });
});
afterAll(async () => {
  await mcp?.close();
  await h?.close();
  await fake?.close();
});

it("the insights tool names the provider and the status, never the key or the provider's address", async () => {
  const result = await mcp.client.callTool({ name: "insights", arguments: {} });
  expect(result.isError ?? false, text(result)).toBe(false);
  expect(text(result)).toMatch(/^The last insights run failed at .+: openai answered HTTP 401: .*Incorrect API key provided: Bearer \(redacted\)\. Served by \(url\) at \(address\)\..*check SVC_OPENAI_API_KEY/);
  const everything = `${text(result)}\n${JSON.stringify(result.structuredContent)}`;
  for (const leak of [PROVIDER_KEY, "sk-proj", fake.base, "127.0.0.1"]) expect(everything).not.toContain(leak);
});
