// End to end: a real node:http app and a real Express app wrapped by @svc/adapters report to the real
// gateway's /api/hit, and the hits land in PostgreSQL as the actors the gateway classifies.
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { svc as expressSvc } from "@svc/adapters/express";
import { withSvc } from "@svc/adapters/node";
import { bearer, call, loginAsAdmin } from "../support/auth.ts";
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

  it("a site with a hit token: the middleware's `token` option gets its hits in; without it they are refused (401)", async () => {
    const admin = await loginAsAdmin(h.base);
    const made = await call(h.base, "POST", "/api/sites", { body: { domain: "locked.example", hit_token: true }, headers: bearer(admin.token) });
    expect(made.status).toBe(201);
    const handler: http.RequestListener = (_req, res) => res.end("ok");
    const errors: Error[] = [];
    const withToken = withSvc(handler, { endpoint: `${h.base}/api/hit`, domain: "locked.example", token: made.json.hit_token });
    const without = withSvc(handler, { endpoint: `${h.base}/api/hit`, domain: "locked.example", onError: (e) => errors.push(e) });
    const [a, b] = [http.createServer(withToken), http.createServer(without)];
    const [baseA, baseB] = await Promise.all([listen(a), listen(b)]);
    await fetch(`${baseA}/with-token`, { headers: { "user-agent": UA.gptbot } });
    await fetch(`${baseB}/without-token`, { headers: { "user-agent": UA.gptbot } });
    await Promise.all([withToken.svc.flush(), without.svc.flush()]);
    await expect.poll(() => hits("/with-token"), { timeout: 5000 }).toHaveLength(1);
    expect(await hits("/without-token")).toEqual([]);
    expect(without.svc.stats()).toMatchObject({ sent: 0, failed: 1 });
    expect(errors.map((e) => e.message)).toEqual(["svc: the collector answered 401 to a batch of 1 hits"]);
    await Promise.all([withToken.svc.close(), without.svc.close()]);
    a.close();
    b.close();
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
