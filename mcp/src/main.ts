// `npm run mcp` / `npx svc-mcp`: read the environment, then serve the six tools over stdio until the client
// closes stdin. Stdout carries the protocol only; every message for a person goes to stderr.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ConfigInvalid, loadConfig } from "./config.ts";
import { createServer } from "./server.ts";

let config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigInvalid)) throw error;
  process.stderr.write(`svc-mcp: ${error.message}\n`);
  // 2: a usage error, as the gateway exits on a bad configuration.
  process.exit(2);
}

const server = createServer(config);
const transport = new StdioServerTransport();
// The client ends the session by closing our stdin; a signal from a terminal ends it too.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void server.close().finally(() => process.exit(0)));
process.stdin.on("end", () => void server.close().finally(() => process.exit(0)));
await server.connect(transport);
process.stderr.write(`svc-mcp: serving site ${JSON.stringify(config.siteId)} from ${config.apiUrl} over stdio\n`);
