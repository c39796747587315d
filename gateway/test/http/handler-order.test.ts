// A request with a body runs its handler after the reads of the event loop's turn that brought it (uws.ts
// `runHandlersDue`): PostgreSQL's reply to a commit, read in the same turn, is then answered before the turn's ingest
// work. Over real sockets: requests written on connections already open, in one tick of this process, so that the
// server's next turn reads them all.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpServer } from "../../src/http/transport.ts";
import { uwsTransport } from "../../src/http/uws.ts";

let server: HttpServer;
const log: string[] = [];
beforeAll(async () => {
  server = await uwsTransport.listen({
    host: "127.0.0.1", port: 0, bodyLimit: 64 * 1024,
    // Called as uWS parses each request, before its body and its handler: its read.
    headersRead: (method, path) => {
      log.push(`read ${method} ${path}`);
      return null;
    },
    handler: (req) => {
      log.push(`ran ${req.method} ${req.path}`);
      return { status: 200, body: `${req.method} ${req.path} ${req.body?.toString() ?? ""}` };
    },
    tooLarge: () => ({ status: 413 }), closing: () => ({ status: 503 }), onHandlerError: () => ({ status: 500 }),
  });
});
afterAll(async () => {
  await server?.close();
});

const post = (path: string, body: string) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;

/** An open connection: `answer` resolves with the body of the first response on it. */
async function connection(): Promise<{ socket: net.Socket; answer: Promise<string> }> {
  const socket = net.connect(server.port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  const answer = new Promise<string>((resolve, reject) => {
    let text = "";
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      const head = text.indexOf("\r\n\r\n");
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? -1);
      if (head >= 0 && length >= 0 && text.length >= head + 4 + length) {
        socket.destroy();
        resolve(text.slice(head + 4, head + 4 + length));
      }
    });
    socket.on("error", reject);
  });
  return { socket, answer };
}

describe("the uWebSockets.js transport's handlers", () => {
  it.each([
    { label: "two bodies: both are read before either handler runs", requests: [post("/a", "1"), post("/b", "22")], answers: ["POST /a 1", "POST /b 22"] },
    { label: "a request without a body beside one: it runs at once", requests: [post("/a", "1"), get("/c")], answers: ["POST /a 1", "GET /c "] },
  ])("$label", async ({ requests, answers }) => {
    const connections = await Promise.all(requests.map(() => connection()));
    // Let the server accept both before anything is sent.
    await new Promise((resolve) => setTimeout(resolve, 50));
    log.length = 0;
    requests.forEach((request, i) => connections[i]!.socket.write(request));
    expect(await Promise.all(connections.map((c) => c.answer))).toEqual(answers);
    const firstBodyRun = log.findIndex((line) => line.startsWith("ran POST"));
    // Every request was read before the first handler of a request with a body ran.
    expect(log.filter((line) => line.startsWith("read")).length).toBe(requests.length);
    expect(log.slice(0, firstBodyRun).filter((line) => line.startsWith("read")).length).toBe(requests.length);
    // A request without a body ran as it was read, before the body's handler.
    const getRun = log.indexOf("ran GET /c");
    if (getRun >= 0) expect(getRun).toBeLessThan(firstBodyRun);
  });
});
