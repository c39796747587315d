// Starting the server without what it needs: a clear message per missing or bad variable on stderr, nothing on
// stdout (which belongs to the protocol), exit code 2. And the configuration as the server reads it.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ConfigInvalid, DEFAULT_TIMEOUT_MS, loadConfig } from "../src/config.ts";
import { BIN, REPO_ROOT } from "./support/mcp-client.ts";

function run(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN], { cwd: REPO_ROOT, env: { PATH: process.env["PATH"] ?? "", ...env }, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

interface StartCase {
  readonly env: Record<string, string>;
  readonly says: readonly string[];
}

describe("a missing or bad variable stops the server at start with exit code 2", () => {
  it.each<StartCase>([
    { env: {}, says: ["SVC_API_KEY is not set: expected an API key", "SVC_SITE_ID is not set: expected the site's domain (example.com) or numeric id"] },
    { env: { SVC_SITE_ID: "example.com" }, says: ["SVC_API_KEY is not set"] },
    { env: { SVC_API_KEY: "svc_live_abc" }, says: ["SVC_SITE_ID is not set"] },
    { env: { SVC_API_KEY: "svc_live_abc", SVC_SITE_ID: "" }, says: ["SVC_SITE_ID is not set"] },
    { env: { SVC_API_KEY: "svc_live_abc", SVC_SITE_ID: "example.com/../x" }, says: ['SVC_SITE_ID="example.com/../x" is invalid'] },
    { env: { SVC_API_KEY: "svc_live_abc", SVC_SITE_ID: "example.com", SVC_API_URL: "localhost:8080" }, says: ['SVC_API_URL="localhost:8080" is invalid: expected the gateway\'s http(s) URL'] },
    { env: { SVC_API_KEY: "svc_live_abc", SVC_SITE_ID: "example.com", SVC_MCP_TIMEOUT_MS: "soon" }, says: ['SVC_MCP_TIMEOUT_MS="soon" is invalid: expected an integer 100..120000'] },
  ])("$env", async ({ env, says }) => {
    const { code, stdout, stderr } = await run(env);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^svc-mcp: invalid configuration:\n/);
    for (const line of says) expect(stderr).toContain(line);
  });

  it("never prints the API key, even a malformed one", async () => {
    const { code, stderr } = await run({ SVC_API_KEY: "svc_live_secret with spaces", SVC_SITE_ID: "example.com" });
    expect(code).toBe(2);
    expect(stderr).toContain("SVC_API_KEY=(hidden) is invalid");
    expect(stderr).not.toContain("secret");
  });
});

describe("loadConfig", () => {
  it("defaults the URL and the timeout, and drops a trailing slash", () => {
    expect(loadConfig({ SVC_API_KEY: "svc_live_x", SVC_SITE_ID: "42" })).toEqual({ apiUrl: "http://localhost:8080", apiKey: "svc_live_x", siteId: "42", timeoutMs: DEFAULT_TIMEOUT_MS });
    expect(loadConfig({ SVC_API_KEY: "k", SVC_SITE_ID: "example.com", SVC_API_URL: "https://stats.example.com/", SVC_MCP_TIMEOUT_MS: "2500" })).toMatchObject({
      apiUrl: "https://stats.example.com",
      timeoutMs: 2500,
    });
  });

  it("lists every problem at once", () => {
    try {
      loadConfig({ SVC_API_URL: "ftp://x", SVC_MCP_TIMEOUT_MS: "50" });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigInvalid);
      expect((error as ConfigInvalid).problems.map((p) => p.split(/[ =]/)[0])).toEqual(["SVC_API_URL", "SVC_API_KEY", "SVC_SITE_ID", "SVC_MCP_TIMEOUT_MS"]);
    }
  });
});
