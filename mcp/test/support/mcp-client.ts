// The SDK's own Client over StdioClientTransport, spawning the real server (mcp/bin/svc-mcp.mjs, or `npm run
// mcp` from the repository root) with the environment a user would set.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

export const MCP_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const REPO_ROOT = path.resolve(MCP_DIR, "..");
export const BIN = path.join(MCP_DIR, "bin", "svc-mcp.mjs");

export interface McpSession {
  readonly client: Client;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

export async function connectMcp(env: Record<string, string>, how: "bin" | "npm" = "bin"): Promise<McpSession> {
  const transport = new StdioClientTransport({
    // `npm run mcp` exactly as the README says; npm's own banner lines on stdout are not JSON-RPC, and the
    // SDK's client skips them (clients that do not are told to add --silent).
    ...(how === "bin" ? { command: process.execPath, args: [BIN] } : { command: "npm", args: ["run", "mcp"] }),
    cwd: REPO_ROOT,
    env,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "svc-mcp-test", version: "0.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** The text content of a tool result, its parts joined by newlines. */
export const text = (result: unknown): string =>
  ((result as { content?: Array<{ type: string; text?: string }> }).content ?? []).map((c) => c.text ?? "").join("\n");
