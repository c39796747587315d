import { Buffer } from "node:buffer";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { BODY_METHODS, BodyStream, dispatch, type HttpRequest, type HttpResponse, type HttpServer, type HttpTransport, type ListenOptions, type StreamSink } from "./transport.ts";

export const nodeTransport: HttpTransport = {
  name: "node",
  listen(options: ListenOptions): Promise<HttpServer> {
    let inFlight = 0;
    let closing = false;
    let drained: (() => void) | null = null;
    const streams = new Set<StreamSink>();

    const server = http.createServer((req, res) => {
      inFlight++;
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        inFlight--;
        if (inFlight === 0 && drained) drained();
      };
      res.on("close", finish);

      const send = (response: HttpResponse, closeConnection = false) => {
        if (res.destroyed || res.headersSent) return finish();
        const headers: Record<string, string> = { ...response.headers };
        if (closeConnection) headers["connection"] = "close";
        if ("stream" in response) {
          res.writeHead(response.status, headers);
          res.flushHeaders();
          const listeners: Array<() => void> = [];
          const sink: StreamSink = {
            closed: false,
            write(chunk) {
              if (this.closed) return false;
              return res.write(chunk);
            },
            end() {
              if (!this.closed) res.end();
            },
            onClose(l) {
              listeners.push(l);
            },
            onDrain(l) {
              res.once("drain", l);
            },
          };
          res.on("close", () => {
            (sink as { closed: boolean }).closed = true;
            streams.delete(sink);
            for (const l of listeners) l();
          });
          streams.add(sink);
          finish();
          response.stream(sink);
          return;
        }
        res.writeHead(response.status, headers);
        res.end(response.body ?? "");
        if (closeConnection) res.once("finish", () => req.socket.destroy());
      };

      const url = req.url ?? "/";
      const q = url.indexOf("?");
      const path = q === -1 ? url : url.slice(0, q);
      const query = new URLSearchParams(q === -1 ? "" : url.slice(q + 1));
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
      const method = (req.method ?? "GET").toUpperCase();

      const run = (body: Buffer | null, bodyStream: BodyStream | null = null) => {
        const request: HttpRequest = {
          method, path, query, headers, remoteAddress: req.socket.remoteAddress ?? "", body, bodyStream,
          // Closed before the answer was written whole: the client went away.
          get aborted() {
            return res.destroyed && !res.writableFinished;
          },
        };
        // An answer given before the reader took the whole body closes the connection: the rest is never read.
        dispatch(options, request, (r) => send(r, bodyStream !== null && !bodyStream.consumed));
      };

      if (closing) {
        req.resume();
        return send(options.closing(), true);
      }
      if (!BODY_METHODS.has(method)) {
        req.resume();
        return run(null);
      }
      if (options.streamsBody?.(method, path)) {
        const stream = new BodyStream(() => req.resume());
        req.on("data", (chunk: Buffer) => {
          if (!stream.push(chunk)) req.pause();
        });
        req.on("end", () => stream.end());
        req.on("error", (error) => stream.fail(error));
        req.on("aborted", () => stream.fail(new Error("request aborted")));
        res.on("close", () => {
          if (!req.complete) stream.fail(new Error("request aborted"));
        });
        return run(null, stream);
      }
      if (Number(headers["content-length"] ?? "0") > options.bodyLimit) {
        req.pause();
        return send(options.tooLarge(), true);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let rejected = false;
      req.on("data", (chunk: Buffer) => {
        if (rejected) return;
        size += chunk.length;
        if (size > options.bodyLimit) {
          rejected = true;
          req.pause();
          return send(options.tooLarge(), true);
        }
        chunks.push(chunk);
      });
      req.on("end", () => {
        if (!rejected) run(Buffer.concat(chunks, size));
      });
      req.on("error", () => finish());
    });
    server.keepAliveTimeout = 5_000;

    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port, options.host, () => {
        const port = (server.address() as AddressInfo).port;
        resolve({
          port,
          close: () =>
            new Promise<void>((resolveClose) => {
              closing = true;
              server.close();
              server.closeIdleConnections();
              const finishClose = () => {
                for (const s of [...streams]) s.end();
                server.closeAllConnections();
                resolveClose();
              };
              if (inFlight === 0) finishClose();
              else drained = finishClose;
            }),
        });
      });
    });
  },
};
