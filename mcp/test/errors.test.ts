// Every way the upstream can fail becomes a tool result with isError and a sentence saying what to fix, never a
// crash: a wrong or revoked key (401), another team's site (403), an unknown site and a wrong API URL (404), a
// refused connection, a gateway that never answers (timeout), a 503, a page that is not JSON and JSON of
// another shape. The server keeps serving after each.
import http from "node:http";
import net from "node:net";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, call, createApiKey, loginAsAdmin } from "../../gateway/test/support/auth.ts";
import { type Harness, startHarness } from "../../gateway/test/support/harness.ts";
import { connectMcp, text } from "./support/mcp-client.ts";

const SITE = "errors.example";
const OTHER_TEAM_SITE = "other-team.example";

let h: Harness;
let key: string;
let revokedKey: string;
const servers: Array<http.Server | net.Server> = [];
const sockets = new Set<net.Socket>();
let refusedUrl: string;
let silentUrl: string;
let unavailableUrl: string;
let htmlUrl: string;
let foreignUrl: string;

const listen = async <S extends http.Server | net.Server>(server: S): Promise<string> => {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
};

beforeAll(async () => {
  h = await startHarness({ sites: [SITE] });
  const { token } = await loginAsAdmin(h.base);
  key = await createApiKey(h.base, token, "mcp errors");
  const doomed = await call(h.base, "POST", "/api/keys", { body: { name: "doomed" }, headers: bearer(token) });
  revokedKey = doomed.json.key;
  expect((await call(h.base, "DELETE", `/api/keys/${doomed.json.id}`, { headers: bearer(token) })).status).toBe(204);
  await h.pool.query("insert into teams (id, slug, name) values (2, 'other', 'Other team')");
  await h.pool.query("insert into sites (domain, team_id) values ($1, 2)", [OTHER_TEAM_SITE]);

  // A port nobody listens on: bound, then closed.
  const closed = net.createServer();
  refusedUrl = await listen(closed);
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  servers.splice(servers.indexOf(closed), 1);
  // Accepts the connection and never answers.
  silentUrl = await listen(
    net.createServer((socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    }),
  );
  unavailableUrl = await listen(http.createServer((_req, res) => res.writeHead(503, { "content-type": "application/json" }).end('{"error":"overloaded"}')));
  // JSON, but not the read API's: another version's answer, or another service.
  foreignUrl = await listen(http.createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"visitors":3,"status":"fine"}')));
  htmlUrl = await listen(http.createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html><body>Welcome to nginx!</body></html>")));
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  for (const server of servers) {
    if ("closeAllConnections" in server) server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await h?.close();
});

const GATEWAY_TOOLS = ["query_stats", "top_pages", "sources", "ai_traffic", "goals"];
const ALL_TOOLS = [...GATEWAY_TOOLS, "insights"];

interface ErrorCase {
  readonly name: string;
  env(): Record<string, string>;
  readonly says: RegExp;
  /** insights answers the same (not when a gateway without the route answers 404 before it checks anything). */
  readonly insightsToo: boolean;
}

const CASES: readonly ErrorCase[] = [
  {
    name: "a wrong API key (401)",
    env: () => ({ SVC_API_URL: h.base, SVC_API_KEY: `svc_live_${randomBytes(32).toString("base64url")}`, SVC_SITE_ID: SITE }),
    says: /^The API key was refused by the gateway at http:\/\/127\.0\.0\.1:\d+ \(401: [^)]+\)\. Fix SVC_API_KEY/,
    insightsToo: false,
  },
  {
    name: "a revoked API key (401)",
    env: () => ({ SVC_API_URL: h.base, SVC_API_KEY: revokedKey, SVC_SITE_ID: SITE }),
    says: /^The API key was refused .*\(401.*\)\. Fix SVC_API_KEY/,
    insightsToo: false,
  },
  {
    name: "another team's site (403)",
    env: () => ({ SVC_API_URL: h.base, SVC_API_KEY: key, SVC_SITE_ID: OTHER_TEAM_SITE }),
    says: /^The API key may not read site "other-team\.example" \(403: this site belongs to another team\)\. Set SVC_SITE_ID to a site of the key's team/,
    insightsToo: false,
  },
  {
    name: "an unknown site (404)",
    env: () => ({ SVC_API_URL: h.base, SVC_API_KEY: key, SVC_SITE_ID: "nowhere.example" }),
    says: /^There is no site "nowhere\.example" on the gateway at .* \(404: unknown site\)\. Fix SVC_SITE_ID/,
    insightsToo: false,
  },
  {
    name: "an API URL that is not the gateway's root (404 route)",
    env: () => ({ SVC_API_URL: `${h.base}/svc`, SVC_API_KEY: key, SVC_SITE_ID: SITE }),
    says: /^GET \/api\/sites\/errors\.example\/\w+ does not exist on the gateway at http:\/\/127\.0\.0\.1:\d+\/svc \(404: not found\)\. Check that SVC_API_URL points at the svc gateway/,
    insightsToo: false,
  },
  {
    name: "a refused connection",
    env: () => ({ SVC_API_URL: refusedUrl, SVC_API_KEY: key, SVC_SITE_ID: SITE }),
    says: /^Could not connect to the gateway at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)\. Start the gateway \(npm start\) or set SVC_API_URL/,
    insightsToo: true,
  },
  {
    name: "a gateway that never answers (timeout)",
    env: () => ({ SVC_API_URL: silentUrl, SVC_API_KEY: key, SVC_SITE_ID: SITE, SVC_MCP_TIMEOUT_MS: "300" }),
    says: /^The gateway at http:\/\/127\.0\.0\.1:\d+ did not answer GET \/api\/sites\/errors\.example\/\w+ within 300 ms\. .*raise SVC_MCP_TIMEOUT_MS/,
    insightsToo: true,
  },
  {
    name: "a 503",
    env: () => ({ SVC_API_URL: unavailableUrl, SVC_API_KEY: key, SVC_SITE_ID: SITE }),
    says: /^The gateway at .* failed to answer GET .* \(503: overloaded\)\. Try again in a moment/,
    insightsToo: true,
  },
  {
    name: "a page that is not JSON",
    env: () => ({ SVC_API_URL: htmlUrl, SVC_API_KEY: key, SVC_SITE_ID: SITE }),
    says: /^The gateway at .* answered GET .* with something that is not JSON \(200\)\. Check that SVC_API_URL points at the svc gateway/,
    insightsToo: true,
  },
  {
    name: "JSON in a shape the tool does not know",
    env: () => ({ SVC_API_URL: foreignUrl, SVC_API_KEY: key, SVC_SITE_ID: SITE }),
    says: /^The gateway answered GET \/api\/sites\/errors\.example\/\w+ in a shape this server does not know \(.+\)\. Run the MCP server from the same svc version as the gateway\./,
    insightsToo: true,
  },
];

describe("upstream failures are tool errors with a sentence saying what to fix", () => {
  it.each(CASES)("$name", async ({ env, says, insightsToo }) => {
    const mcp = await connectMcp(env());
    try {
      for (const name of insightsToo ? ALL_TOOLS : GATEWAY_TOOLS) {
        const result = await mcp.client.callTool({ name, arguments: {} });
        expect(result.isError, `${name}: ${text(result)}`).toBe(true);
        expect(result.structuredContent, name).toBeUndefined();
        expect(text(result), name).toMatch(says);
      }
      // Still serving: the process did not crash.
      expect((await mcp.client.listTools()).tools).toHaveLength(8);
      expect(mcp.stderr()).not.toMatch(/Error|at .*\.ts:\d+/);
      // The key never reaches a result or the log.
      expect(mcp.stderr()).not.toContain(env()["SVC_API_KEY"]);
    } finally {
      await mcp.close();
    }
  });
});
