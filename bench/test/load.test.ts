// The ingest benchmark's load driver: its response framing, and a run against a real node:http server on a
// real socket, where every acknowledged row, rejection and request must be counted.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completeResponse, driveScenario } from "../src/load.ts";
import type { ScenarioRequest } from "../src/scenario.ts";

const bytes = (s: string) => Buffer.from(s, "latin1");

describe("completeResponse", () => {
  it.each([
    { label: "an empty 202 with Content-Length: 0", data: "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\nNEXT", expected: { status: 202, end: 44 } }, // the next response's bytes stay
    { label: "a JSON 404 body", data: 'HTTP/1.1 404 Not Found\r\nContent-Length: 24\r\n\r\n{"error":"unknown site"}', expected: { status: 404, end: 70 } },
    { label: "a body still arriving", data: "HTTP/1.1 400 Bad Request\r\nContent-Length: 10\r\n\r\n{\"err", expected: null },
    { label: "headers still arriving", data: "HTTP/1.1 202 Accepted\r\ncontent-len", expected: null },
    { label: "a chunked body", data: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", expected: { status: 200, end: 59 } },
    { label: "a chunked body without its last chunk", data: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n", expected: null },
  ])("$label", ({ data, expected }) => {
    const done = completeResponse(bytes(data));
    expect(done).toEqual(expected);
    if (done) expect(data.slice(done.end)).toMatch(/^(NEXT)?$/);
  });
});

describe("driveScenario", () => {
  let server: Server;
  let port: number;
  const seen = { requests: 0, badBodies: 0 };
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        seen.requests++;
        if (JSON.parse(body).ok !== true) seen.badBodies++;
        // Every third request of a hit batch is refused, to check that rejections are not counted as rows.
        if (req.url === "/api/hit" && seen.requests % 3 === 0) {
          res.writeHead(503, { "content-type": "application/json" }).end('{"error":"overloaded"}');
          return;
        }
        res.writeHead(202).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it("counts the rows of every 202, the rejections, and every request it timed", async () => {
    const scenario: ScenarioRequest[] = [
      { path: "/api/event", headers: { "content-type": "text/plain" }, body: JSON.stringify({ ok: true, note: "ünïcode" }), rows: 1 },
      { path: "/api/hit", headers: { "content-type": "application/json" }, body: JSON.stringify({ ok: true }), rows: 10 },
    ];
    const result = await driveScenario(port, scenario, 0.5, 4);
    expect(seen.requests).toBeGreaterThan(50);
    expect(seen.badBodies).toBe(0);
    expect(result.errors).toBe(result.rejected);
    expect(result.rejected).toBeGreaterThan(0);
    // Requests alternate event (1 row) and hit (10 rows); a refused hit adds no row.
    const hitRequests = Math.floor(seen.requests / 2);
    expect(result.accepted).toBe(seen.requests - hitRequests + (hitRequests - result.rejected) * 10);
    expect(result.p50Ms).toBeGreaterThan(0);
    expect(result.p99Ms).toBeGreaterThanOrEqual(result.p50Ms);
  });
});
