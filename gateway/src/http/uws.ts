import { Buffer } from "node:buffer";
import uWS from "uWebSockets.js";
import { BODY_METHODS, BodyStream, type HandlerResult, LaterResponse, statusLine, type HttpRequest, type HttpResponse, type HttpServer, type HttpTransport, type ListenOptions, type ResponseSink, type StreamSink } from "./transport.ts";

// Per request the transport used to make a headers callback, seven closures (finish, send, run, startStream, the
// abort and data handlers, the cork callback) and a request object beside them. Now one object holds a request's
// state and is the request the router sees; the two handlers uWS needs per request are its only closures, and
// headers and responses go through module-level callbacks (`collectHeaders`, `writeCorked`), and the peer's
// address is read only when asked. `npm run bench:http` (a 202 after one microtask, 6,000 requests/s, 6 rounds
// alternated, load average 11–13): 21.4 → 16.9 µs of CPU a request (medians), against 14.3 for the bare
// uWebSockets.js app: the transport's own share 7.1 → 2.6 µs.

/** uWS gives the method lower-case; the router compares upper-case. Known methods without a new string each. */
const UPPER_METHODS: Readonly<Record<string, string>> = { get: "GET", post: "POST", put: "PUT", patch: "PATCH", delete: "DELETE", options: "OPTIONS", head: "HEAD" };

/**
 * The upper-case method. POST and GET are compared first: the string uWS makes is new each request, and a property
 * lookup by it has V8 hash it and look it up in its string table (0.4 % of the gateway's perf samples at full ingest
 * load, where a comparison with a constant is a few instructions).
 */
function upperMethod(lower: string): string {
  if (lower === "post") return "POST";
  if (lower === "get") return "GET";
  return UPPER_METHODS[lower] ?? lower.toUpperCase();
}

let headersInto: Record<string, string> = {};
const collectHeader = (k: string, v: string): void => {
  headersInto[k] = v;
};
/** The request's headers as an object (uWS request objects are only valid synchronously). */
function collectHeaders(req: uWS.HttpRequest): Record<string, string> {
  const headers: Record<string, string> = (headersInto = {});
  req.forEach(collectHeader);
  headersInto = {};
  return headers;
}

// uWS reads every string it is given as UTF-8 anew (`v8::String::Utf8Value`: its length, then a copy), but takes
// bytes as they are. So what is the same for every request is handed over as bytes made once: the status
// lines, the header names a route reads, and the headers of a response object that is frozen (a constant, such
// as the ingest routes' 202). Those conversions were ~1 % of the gateway's CPU at full ingest load (perf:
// `Utf8Length` + `WriteUtf8` under `Utf8Value`, four to six a request).
const statusBytes = new Map<number, Buffer>();
function statusBytesOf(status: number): Buffer {
  let bytes = statusBytes.get(status);
  if (bytes === undefined) statusBytes.set(status, (bytes = Buffer.from(statusLine(status), "latin1")));
  return bytes;
}
const NO_BODY = Buffer.alloc(0);

/** Names and values, alternating, of a frozen headers object. */
const constantHeaders = new WeakMap<object, readonly Buffer[]>();
function constantHeaderBytes(headers: Readonly<Record<string, string>>): readonly Buffer[] | null {
  // Frozen first: a WeakMap lookup would give every per-response headers object an identity hash.
  if (!Object.isFrozen(headers)) return null;
  const known = constantHeaders.get(headers);
  if (known !== undefined) return known;
  const bytes: Buffer[] = [];
  for (const k in headers) bytes.push(Buffer.from(k, "utf8"), Buffer.from(headers[k]!, "utf8"));
  constantHeaders.set(headers, bytes);
  return bytes;
}

type HeaderPicker = (req: uWS.HttpRequest) => Record<string, string>;

/**
 * The reader of one list of header names (ListenOptions.headersRead), generated as straight-line code: each name a
 * constant, so each store into the headers object is a named store V8 caches by the object's shape, where a loop's
 * `headers[names[i]] = value` went megamorphic (V8's stub cache on every header of every ingest request: 0.2 % of the
 * gateway's perf samples at full ingest load). uWS answers "" for a header that is absent; it is left out.
 */
function headerPicker(names: readonly string[]): HeaderPicker {
  const reads = names.map((name, i) => `v = req.getHeader(n[${i}]); if (v !== "") h[${JSON.stringify(name)}] = v;`);
  const encoded = names.map((name) => Buffer.from(name, "latin1"));
  return new Function("n", `return function pickHeaders(req) { const h = {}; let v; ${reads.join(" ")} return h; }`)(encoded) as HeaderPicker;
}

const headerPickers = new WeakMap<readonly string[], HeaderPicker>();
/** Only the named headers (ListenOptions.headersRead). */
function pickHeaders(req: uWS.HttpRequest, names: readonly string[]): Record<string, string> {
  let picker = headerPickers.get(names);
  if (picker === undefined) headerPickers.set(names, (picker = headerPicker(names)));
  return picker(req);
}

interface ServerState {
  inFlight: number;
  drained: (() => void) | null;
  readonly streams: Set<StreamSink>;
  readonly options: ListenOptions;
}

let corkedExchange: UwsExchange | null = null;
let corkedResponse: HttpResponse | null = null;
let corkedClose = false;
/** Status, headers and body inside one cork: one write to the socket. */
function writeCorked(): void {
  const x = corkedExchange!;
  const response = corkedResponse!;
  const res = x.res;
  res.writeStatus(statusBytesOf(response.status));
  const headers = response.headers;
  if (headers !== undefined) {
    const bytes = constantHeaderBytes(headers);
    if (bytes !== null) for (let i = 0; i < bytes.length; i += 2) res.writeHeader(bytes[i]!, bytes[i + 1]!);
    // for-in, not Object.entries: no array of pairs per response (~0.23 µs each on this box).
    else for (const k in headers) res.writeHeader(k, headers[k]!);
  }
  if ("stream" in response) x.startStream(response);
  else {
    x.ended = true;
    res.end(response.body ?? NO_BODY, corkedClose);
  }
}

// A request with a body runs its handler after the reads of the event loop's turn that brought it (in the turn's check
// phase), not inside its own read. At full ingest load one turn reads dozens of requests, and with them PostgreSQL's
// reply to the commit in flight; run inline, each ingest handler (parse, classify, enrich: ~15 µs) stood between that
// reply and its 202s and the next commit, in whatever order epoll listed the sockets. Now the reply is handled among
// the reads, and the commit's answers and the next COPY leave before the turn's handlers run. `npm run bench --
// --commit-ceiling --against <the build before>`, four quiet alternated rounds: 36,824 / 39,103 / 39,664 / 38,717
// events/s against 32,618 / 35,546 / 36,836 / 35,665 (+8 to +13 %), the cores idle 18–20 % of the load against 23–24 %
// (gateway/README.md "Sixteenth pass"). Running them in slices of 8 or 16, with a poll between, gained nothing.
// Requests without a body (reads, the dashboard) run at once. A client that pipelines a request behind one whose answer
// is pending has its connection closed by uWS; so it was already for every request answered after an await (an
// ingest 202 waits for its commit), and now also for a body request answered at once.
let handlersDue: UwsExchange[] = [];
let handlersScheduled = false;
function runHandlersDue(): void {
  handlersScheduled = false;
  const due = handlersDue;
  handlersDue = [];
  // An exchange aborted since its body arrived runs too, as it did inline: a client that hangs up once it has sent a
  // whole body (a fire-and-forget hit) still has its rows stored; the answer is dropped (`send` checks `aborted`).
  for (const x of due) x.run();
}

/** One request and its answer: the request the router sees, and the uWS response's state. */
class UwsExchange implements HttpRequest, ResponseSink {
  private parsedQuery: URLSearchParams | null = null;
  body: Buffer | null = null;
  bodyStream: BodyStream | null = null;
  aborted = false;
  finished = false;
  /** The response was ended (uWS then refuses any access to it). */
  ended = false;
  private address: string | null = null;
  /** A body arriving in several chunks (over ~512 KB, or a slow client); one chunk is `body` directly. */
  private chunks: Buffer[] | null = null;
  private size = 0;
  private rejected = false;

  constructor(
    private readonly server: ServerState,
    readonly res: uWS.HttpResponse,
    readonly method: string,
    readonly path: string,
    private readonly rawQuery: string,
    readonly headers: Readonly<Record<string, string>>,
  ) {}

  get query(): URLSearchParams {
    return (this.parsedQuery ??= new URLSearchParams(this.rawQuery));
  }

  /**
   * Read from the socket when first asked (ingest behind a proxy trusted by hop count never asks); "" once the
   * response is gone, when uWS no longer allows the read.
   */
  get remoteAddress(): string {
    if (this.address === null) this.address = this.aborted || this.ended ? "" : Buffer.from(this.res.getRemoteAddressAsText()).toString("latin1");
    return this.address;
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    const server = this.server;
    if (--server.inFlight === 0 && server.drained) server.drained();
  }

  send(response: HttpResponse, closeConnection = false): void {
    if (this.aborted) return this.finish();
    corkedExchange = this;
    corkedResponse = response;
    corkedClose = closeConnection;
    try {
      this.res.cork(writeCorked);
    } finally {
      corkedExchange = null;
      corkedResponse = null;
    }
    if (!("stream" in response)) this.finish();
  }

  /** A handler's answer (ResponseSink, for a LaterResponse). */
  answer(response: HttpResponse): void {
    // An answer given before the reader took the whole body (a 401, a refused import) closes the connection:
    // the rest of the body is never read.
    const stream = this.bodyStream;
    this.send(response, stream !== null && !stream.consumed);
  }

  /** Runs the handler; a throw or a rejection becomes `onHandlerError`'s response. */
  run(): void {
    const options = this.server.options;
    let result: HandlerResult;
    try {
      result = options.handler(this);
    } catch (error) {
      return this.send(options.onHandlerError(error));
    }
    // The ingest routes' answer after their commit: no promise and no `then` pair per request.
    if (result instanceof LaterResponse) return result.answerTo(this);
    Promise.resolve(result).then(
      (response) => (response instanceof LaterResponse ? response.answerTo(this) : this.answer(response)),
      (error: unknown) => this.answer(options.onHandlerError(error)),
    );
  }

  /** Runs the handler once the event loop's turn has read what it brought (see `runHandlersDue`). */
  private runAfterReads(): void {
    handlersDue.push(this);
    if (!handlersScheduled) {
      handlersScheduled = true;
      setImmediate(runHandlersDue);
    }
  }

  /** A chunk of a buffered body (`onData`): copied (the ArrayBuffer is only valid during the call); the last one runs the handler. */
  data(ab: ArrayBuffer, isLast: boolean): void {
    if (this.rejected) return;
    const limit = this.server.options.bodyLimit;
    this.size += ab.byteLength;
    if (this.size > limit) {
      this.rejected = true;
      return this.send(this.server.options.tooLarge(), true);
    }
    // Copied once, into Node's pooled slab for small bodies rather than a fresh ArrayBuffer per request (ab.slice:
    // a backing store to allocate and sweep).
    const copy = Buffer.allocUnsafe(ab.byteLength);
    copy.set(new Uint8Array(ab));
    if (isLast && this.chunks === null) {
      this.body = copy;
      return this.runAfterReads();
    }
    (this.chunks ??= []).push(copy);
    if (isLast) {
      this.body = Buffer.concat(this.chunks, this.size);
      this.chunks = null;
      this.runAfterReads();
    }
  }

  startStream(response: Extract<HttpResponse, { stream: unknown }>): void {
    const res = this.res;
    const streams = this.server.streams;
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
      this.ended = true;
      streams.delete(sink);
      for (const l of listeners) l();
      this.finish();
    };
    res.onAborted(() => {
      this.aborted = true;
      close();
    });
    streams.add(sink);
    // The stream counts as finished for shutdown purposes: close() ends it explicitly.
    this.finish();
    response.stream(sink);
  }
}

export const uwsTransport: HttpTransport = {
  name: "uws",
  listen(options: ListenOptions): Promise<HttpServer> {
    const app = uWS.App();
    let closing = false;
    const server: ServerState = { inFlight: 0, drained: null, streams: new Set(), options };

    app.any("/*", (res, req) => {
      // uWS request objects are only valid synchronously: copy what we need first.
      const method = upperMethod(req.getMethod());
      const path = req.getUrl();
      const named = options.headersRead?.(method, path) ?? null;
      const headers = named === null ? collectHeaders(req) : pickHeaders(req, named);
      const rawQuery = req.getQuery() ?? "";
      const x = new UwsExchange(server, res, method, path, rawQuery, headers);
      server.inFlight++;

      if (closing) {
        res.onAborted(() => {
          x.aborted = true;
          x.finish();
        });
        return x.send(options.closing(), true);
      }
      if (!BODY_METHODS.has(method)) {
        res.onAborted(() => {
          x.aborted = true;
          x.finish();
        });
        return x.run();
      }
      if (options.streamsBody?.(method, path)) {
        let bodyEnded = false;
        // Never paused on, nor resumed after, the last chunk: resume() re-arms uWS's 10-second idle timeout, which
        // must not run while an import works on its answer (a full-suite run once saw "other side closed" there).
        const stream = (x.bodyStream = new BodyStream(() => {
          if (!x.aborted && !x.finished && !bodyEnded) res.resume();
        }));
        res.onAborted(() => {
          x.aborted = true;
          stream.fail(new Error("request aborted"));
          x.finish();
        });
        res.onData((ab, isLast) => {
          // Answered already (the body was not needed): the connection closes; nothing more is kept.
          if (x.aborted || x.finished) return;
          // The ArrayBuffer is only valid during this callback: copy it.
          const below = stream.push(Buffer.from(ab.slice(0)));
          if (isLast) {
            bodyEnded = true;
            stream.end();
          } else if (!below) res.pause();
        });
        return x.run();
      }

      res.onAborted(() => {
        x.aborted = true;
        x.finish();
      });
      const declared = Number(headers["content-length"] ?? "0");
      if (declared > options.bodyLimit) return x.send(options.tooLarge(), true);
      res.onData((ab, isLast) => x.data(ab, isLast));
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
                for (const s of [...server.streams]) s.end();
                resolveClose();
              };
              if (server.inFlight === 0) finishClose();
              else server.drained = finishClose;
            }),
        });
      });
    });
  },
};
