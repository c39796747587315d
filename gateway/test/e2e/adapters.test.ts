// End to end: a real node:http app and a real Express app wrapped by @svc/adapters report to the real
// gateway's /api/hit, and the hits land in PostgreSQL as the actors the gateway classifies.
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { svc as expressSvc } from "@svc/adapters/express";
import { withSvc } from "@svc/adapters/node";
import { type Harness, UA, startHarness } from "../support/harness.ts";

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

describe("adapters → gateway → database", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sites: ["app.example"] });
  });
  afterAll(async () => {
    await h?.close();
  });

  const hits = async (page: string) => (await h.pool.query("select method, page, status, actor, ai_name, rule from hits where page = $1", [page])).rows;

  it("node:http: a GPTBot fetch lands as ai_crawler / GPTBot with the real status", async () => {
    const listener = withSvc(
      (req, res) => {
        res.statusCode = req.url?.startsWith("/missing") ? 404 : 200;
        res.end("ok");
      },
      { endpoint: `${h.base}/api/hit`, domain: "app.example" },
    );
    const server = http.createServer(listener);
    const base = await listen(server);
    await fetch(`${base}/blog?ref=1`, { headers: { "user-agent": UA.gptbot } });
    await fetch(`${base}/missing`, { headers: { "user-agent": UA.chatgptUser } });
    await fetch(`${base}/blog`, { headers: { "user-agent": UA.chrome } }); // a plain browser: left to svc.js
    await listener.svc.flush();
    await expect.poll(() => hits("/blog"), { timeout: 5000 }).toEqual([{ method: "GET", page: "/blog", status: 200, actor: "ai_crawler", ai_name: "GPTBot", rule: "ai_crawler_token" }]);
    expect(await hits("/missing")).toEqual([{ method: "GET", page: "/missing", status: 404, actor: "ai_agent", ai_name: "ChatGPT-User", rule: "ai_agent_token" }]);
    expect(listener.svc.stats()).toMatchObject({ sent: 2, failed: 0, dropped: 0 });
    await listener.svc.close();
    server.close();
  });

  it("Express: a ClaudeBot fetch lands as ai_crawler / ClaudeBot", async () => {
    const app = express();
    const middleware = expressSvc({ endpoint: `${h.base}/api/hit`, domain: "app.example" });
    app.use(middleware);
    app.get("/docs", (_req, res) => {
      res.send("docs");
    });
    const server = http.createServer(app);
    const base = await listen(server);
    await fetch(`${base}/docs`, { headers: { "user-agent": UA.claudebot } });
    await middleware.svc.flush();
    await expect.poll(() => hits("/docs"), { timeout: 5000 }).toEqual([{ method: "GET", page: "/docs", status: 200, actor: "ai_crawler", ai_name: "ClaudeBot", rule: "ai_crawler_token" }]);
    await middleware.svc.close();
    server.close();
  });
});
