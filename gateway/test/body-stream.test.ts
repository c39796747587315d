// The streamed request body (HttpRequest.bodyStream) on both transports, over a real socket: a body far past
// the 64 KB limit arrives whole and in order through a slow reader (the socket paused and resumed), and an
// answer that takes longer than uWS's 10-second idle timeout after the body ended still reaches the client
// (an import answers after its whole transaction).
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { nodeTransport } from "../src/http/node.ts";
import type { HttpResponse, HttpTransport } from "../src/http/transport.ts";
import { uwsTransport } from "../src/http/uws.ts";
import { streamsBody } from "../src/api-schema/operations.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each<[string, HttpTransport]>([["uws", uwsTransport], ["node", nodeTransport]])("%s transport", (_name, transport) => {
  it("streams a 4 MB body to a slow reader, then answers after 11 s of work", async () => {
    const server = await transport.listen({
      host: "127.0.0.1",
      port: 0,
      bodyLimit: 64 * 1024,
      streamsBody: (method, path) => method === "POST" && path === "/stream",
      tooLarge: () => ({ status: 413, body: "too large" }),
      closing: () => ({ status: 503 }),
      onHandlerError: () => ({ status: 500 }),
      handler: async (req): Promise<HttpResponse> => {
        const hash = createHash("sha256");
        let bytes = 0;
        for await (const chunk of req.bodyStream!) {
          hash.update(chunk);
          bytes += chunk.length;
          await sleep(20); // slower than loopback: the transport pauses the socket
        }
        await sleep(11_000);
        return { status: 200, body: JSON.stringify({ bytes, sha256: hash.digest("hex") }) };
      },
    });
    try {
      const body = Buffer.alloc(4 * 1024 * 1024, "abcdefghij");
      const reply = await fetch(`http://127.0.0.1:${server.port}/stream`, { method: "POST", body });
      expect(reply.status).toBe(200);
      expect(await reply.json()).toEqual({ bytes: body.length, sha256: createHash("sha256").update(body).digest("hex") });
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe("the operations' streamsBody", () => {
  // Only the history import streams its body; an ingest POST is told apart by the path's literal start.
  it.each([
    ["POST", "/api/sites/12/import", true],
    ["POST", "/api/sites/12/import/", true],
    ["GET", "/api/sites/12/import", false],
    ["POST", "/api/sites/12/importx", false],
    ["POST", "/api/sites/12/goals", false],
    ["POST", "/api/sites//import", false],
    ["POST", "/api/event", false],
    ["POST", "/api/hit", false],
  ] as const)("%s %s: %s", (method, path, streams) => {
    expect(streamsBody(method, path)).toBe(streams);
  });
});
