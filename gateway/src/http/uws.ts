import uWS from "uWebSockets.js";
import { BODY_METHODS, BodyStream, dispatch, statusLine, type HttpRequest, type HttpResponse, type HttpServer, type HttpTransport, type ListenOptions, type StreamSink } from "./transport.ts";

/** A request as the router sees it; the query string is parsed only when a route reads it (ingest never does). */
class UwsRequest implements HttpRequest {
  private parsedQuery: URLSearchParams | null = null;
  constructor(
    readonly method: string,
    readonly path: string,
    private readonly rawQuery: string,
    readonly headers: Readonly<Record<string, string>>,
    readonly remoteAddress: string,
    readonly body: Buffer | null,
    readonly bodyStream: BodyStream | null,
  ) {}
  get query(): URLSearchParams {
    return (this.parsedQuery ??= new URLSearchParams(this.rawQuery));
  }
}

export const uwsTransport: HttpTransport = {
  name: "uws",
  listen(options: ListenOptions): Promise<HttpServer> {
    const app = uWS.App();
    let inFlight = 0;
    let closing = false;
    let drained: (() => void) | null = null;
    const streams = new Set<StreamSink>();
    const done = () => {
      inFlight--;
      if (inFlight === 0 && drained) drained();
    };

    app.any("/*", (res, req) => {
      // uWS request objects are only valid synchronously: copy what we need first.
      const method = req.getMethod().toUpperCase();
      const headers: Record<string, string> = {};
      req.forEach((k, v) => {
        headers[k] = v;
      });
      const path = req.getUrl();
      const rawQuery = req.getQuery() ?? "";
      const remoteAddress = Buffer.from(res.getRemoteAddressAsText()).toString();
      let aborted = false;
      inFlight++;
      let finished = false;
      const finish = () => {
        if (!finished) {
          finished = true;
          done();
        }
      };
      res.onAborted(() => {
        aborted = true;
        finish();
      });

      const send = (response: HttpResponse, closeConnection = false) => {
        if (aborted) return finish();
        res.cork(() => {
          res.writeStatus(statusLine(response.status));
          // for-in, not Object.entries: no array of pairs per response (~0.23 µs each on this box).
          const headers = response.headers;
          if (headers !== undefined) for (const k in headers) res.writeHeader(k, headers[k]!);
          if ("stream" in response) {
            startStream(response);
            return;
          }
          res.end(response.body ?? "", closeConnection);
        });
        if (!("stream" in response)) finish();
      };

      const startStream = (response: Extract<HttpResponse, { stream: unknown }>) => {
        const listeners: Array<() => void> = [];
        const sink: StreamSink = {
          closed: false,
          write(chunk) {
            if (this.closed) return false;
            let ok = true;
            res.cork(() => {
              ok = res.write(chunk);
            });
            return ok;
          },
          end() {
            if (this.closed) return;
            res.cork(() => res.end());
            close();
          },
          onClose(l) {
            listeners.push(l);
          },
          onDrain(l) {
            res.onWritable(() => {
              l();
              return true;
            });
          },
        };
        const close = () => {
          if (sink.closed) return;
          (sink as { closed: boolean }).closed = true;
          streams.delete(sink);
          for (const l of listeners) l();
          finish();
        };
        res.onAborted(() => {
          aborted = true;
          close();
        });
        streams.add(sink);
        // The stream counts as finished for shutdown purposes: close() ends it explicitly.
        finish();
        response.stream(sink);
      };

      const run = (body: Buffer | null, bodyStream: BodyStream | null = null) => {
        // An answer given before the reader took the whole body (a 401, a refused import) closes the connection:
        // the rest of the body is never read.
        const request = new UwsRequest(method, path, rawQuery, headers, remoteAddress, body, bodyStream);
        dispatch(options, request, bodyStream === null ? send : (r) => send(r, !bodyStream.consumed));
      };

      if (closing) return send(options.closing(), true);
      if (!BODY_METHODS.has(method)) return run(null);
      if (options.streamsBody?.(method, path)) {
        let bodyEnded = false;
        // Never paused on, nor resumed after, the last chunk: resume() re-arms uWS's 10-second idle timeout, which
        // must not run while an import works on its answer (a full-suite run once saw "other side closed" there).
        const stream = new BodyStream(() => {
          if (!aborted && !finished && !bodyEnded) res.resume();
        });
        res.onAborted(() => {
          aborted = true;
          stream.fail(new Error("request aborted"));
          finish();
        });
        res.onData((ab, isLast) => {
          // Answered already (the body was not needed): the connection closes; nothing more is kept.
          if (aborted || finished) return;
          // The ArrayBuffer is only valid during this callback: copy it.
          const below = stream.push(Buffer.from(ab.slice(0)));
          if (isLast) {
            bodyEnded = true;
            stream.end();
          } else if (!below) res.pause();
        });
        return run(null, stream);
      }

      const declared = Number(headers["content-length"] ?? "0");
      if (declared > options.bodyLimit) return send(options.tooLarge(), true);
      const chunks: Buffer[] = [];
      let size = 0;
      let rejected = false;
      res.onData((ab, isLast) => {
        if (rejected) return;
        size += ab.byteLength;
        if (size > options.bodyLimit) {
          rejected = true;
          return send(options.tooLarge(), true);
        }
        // The ArrayBuffer is only valid during this callback: copy it (once), into Node's pooled slab for
        // small bodies rather than a fresh ArrayBuffer per request (ab.slice: a backing store to allocate and sweep).
        const copy = Buffer.allocUnsafe(ab.byteLength);
        copy.set(new Uint8Array(ab));
        chunks.push(copy);
        if (isLast) run(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
      });
    });

    return new Promise((resolve, reject) => {
      app.listen(options.host, options.port, (socket) => {
        if (!socket) return reject(new Error(`cannot listen on ${options.host}:${options.port}`));
        const port = uWS.us_socket_local_port(socket as unknown as uWS.us_socket);
        resolve({
          port,
          close: () =>
            new Promise<void>((resolveClose) => {
              closing = true;
              uWS.us_listen_socket_close(socket);
              const finishClose = () => {
                for (const s of [...streams]) s.end();
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
