// The server of `npm run bench:http`: a checkout's uWebSockets.js transport (gateway/src/http/uws.ts) and router
// with the two ingest routes answering 202 after one microtask, as the ingest route does after its commit, and
// reading what the pipeline reads of a request (its User-Agent, and its address as the bench's gateway, behind
// one trusted proxy, does). No parse, no row, no database: the
// CPU it takes over the bare app (ceiling-server.ts) is the transport's own per-request cost.
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { HttpResponse, HttpTransport } from "../../gateway/src/http/transport.ts";
import type { Router as RouterClass } from "../../gateway/src/http/router.ts";
import { clientIp, parseTrustProxy } from "../../gateway/src/ingest/client-ip.ts";

const ONE_PROXY = parseTrustProxy("1")!;
const root = path.resolve(process.argv[2] ?? ".");
const { uwsTransport } = (await import(pathToFileURL(path.join(root, "gateway/src/http/uws.ts")).href)) as { uwsTransport: HttpTransport };
const { Router } = (await import(pathToFileURL(path.join(root, "gateway/src/http/router.ts")).href)) as { Router: typeof RouterClass };

// Frozen, as the gateway's (routes/ingest.ts): a transport may write a frozen response's headers from bytes made once.
const EVENT: HttpResponse = { status: 202, headers: Object.freeze({ "access-control-allow-origin": "*" }) };
const HIT: HttpResponse = { status: 202 };
let seen = 0;
const router = new Router()
  .on("POST", "/api/event", (req) => {
    seen += req.headers["user-agent"] === undefined || clientIp(req, req.headers["x-forwarded-for"], ONE_PROXY) === null ? 0 : 1;
    return Promise.resolve(EVENT);
  })
  .on("POST", "/api/hit", () => Promise.resolve(HIT));
// The checkout's list of the headers the ingest routes read, when it has one (ListenOptions.headersRead): the
// transport then copies only those, as in the gateway.
const { ingestHeadersRead } = (await import(pathToFileURL(path.join(root, "gateway/src/ingest/pipeline.ts")).href)) as {
  ingestHeadersRead?: (method: string, path: string) => readonly string[] | null;
};
const server = await uwsTransport.listen({
  host: "127.0.0.1", port: 0, bodyLimit: 64 * 1024, handler: router.handler(), headersRead: ingestHeadersRead,
  tooLarge: () => ({ status: 413 }), closing: () => ({ status: 503 }), onHandlerError: () => ({ status: 500 }),
});
console.log(JSON.stringify({ msg: "transport listening", port: server.port, seen }));
process.on("SIGTERM", () => process.exit(0));
