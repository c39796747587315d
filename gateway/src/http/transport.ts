// The gateway's only view of HTTP. Two implementations: uWebSockets.js (default, fast) and node:http
// (portable fallback and a second transport the ingest tests run against), so either can be swapped.

export interface HttpRequest {
  readonly method: string; // upper-case
  readonly path: string; // without the query string
  readonly query: URLSearchParams;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** Peer address of the TCP connection. Only the ingest pipeline reads it, to hash and drop it. */
  readonly remoteAddress: string;
  /** The whole body for methods that carry one; null otherwise, and for a streamed body. */
  readonly body: Buffer | null;
  /**
   * The body as it arrives, for the requests `ListenOptions.streamsBody` names (no body limit: the NDJSON history
   * import); null otherwise. The socket is paused while more than BODY_STREAM_HIGH_WATER bytes wait unread.
   */
  readonly bodyStream: BodyStream | null;
  /**
   * True once the client closed the connection before its answer (a dashboard that asked a newer question
   * instead): work still waiting for it, such as a query in the engine's line, is dropped.
   */
  readonly aborted: boolean;
}

/** 1 MB of unread body before the socket is paused: a few thousand import lines, read in about a millisecond each. */
export const BODY_STREAM_HIGH_WATER = 1024 * 1024;

/**
 * A request body read as it arrives, with backpressure: `push` answers false once more than the high-water
 * mark waits unread (the transport then pauses the socket), and `onDrain` runs when the reader has taken it
 * down to half of that (the transport resumes). Iterating yields each chunk once; an aborted request ends
 * the iteration with an error.
 */
export class BodyStream implements AsyncIterable<Buffer> {
  private readonly chunks: Buffer[] = [];
  private buffered = 0;
  private paused = false;
  private done = false;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;
  /** Whether the reader took every chunk up to the end (else the connection is closed after the answer). */
  consumed = false;

  constructor(
    private readonly onDrain: () => void,
    private readonly highWater = BODY_STREAM_HIGH_WATER,
  ) {}

  push(chunk: Buffer): boolean {
    if (this.done) return true;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    this.wake?.();
    if (this.buffered > this.highWater) this.paused = true;
    return !this.paused;
  }

  end(): void {
    this.done = true;
    this.wake?.();
  }

  fail(error: Error): void {
    if (this.done) return;
    this.failure = error;
    this.done = true;
    this.chunks.length = 0;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    while (true) {
      const chunk = this.chunks.shift();
      if (chunk !== undefined) {
        this.buffered -= chunk.length;
        if (this.paused && this.buffered <= this.highWater / 2) {
          this.paused = false;
          this.onDrain();
        }
        yield chunk;
        continue;
      }
      if (this.failure !== null) throw this.failure;
      if (this.done) {
        this.consumed = true;
        return;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
  }
}

export interface StreamSink {
  /** Returns false when the client is not keeping up (the caller decides what to drop). */
  write(chunk: string): boolean;
  end(): void;
  /** Called once when the client goes away or the stream is ended. */
  onClose(listener: () => void): void;
  /** Called once when the data of a `write` that returned false has gone out (a producer that can wait: exports). */
  onDrain(listener: () => void): void;
  readonly closed: boolean;
}

export type HttpResponse =
  | { readonly status: number; readonly headers?: Readonly<Record<string, string>>; readonly body?: string | Buffer }
  | { readonly status: number; readonly headers?: Readonly<Record<string, string>>; readonly stream: (sink: StreamSink) => void };

/** Where a `LaterResponse` is answered: the transport's request (uws.ts) or a wrapper of its send (node.ts). */
export interface ResponseSink {
  answer(response: HttpResponse): void;
}

/**
 * An answer given later without a promise: a handler returns it (or a promise of it), the transport hands it the
 * request's sink, and the work behind it calls `answer` once, before or after that. The ingest routes answer
 * their commit this way: a promise per request, the route's `then` and the transport's `then` with its two
 * callbacks, all alive until the batch commits, cost ~0.2 µs a request against ~0.04 for one object answered by
 * a method call (measured alone, 32 requests a commit; the README's "Fifth pass").
 */
export abstract class LaterResponse {
  private sink: ResponseSink | null = null;
  /** An answer given before the transport handed over its sink. */
  private response: HttpResponse | null = null;
  private given = false;

  /** Whether `answer` was called (a later answer is not made: making it may count a rejection twice). */
  protected get answered(): boolean {
    return this.given;
  }

  /** Called by the transport, once. */
  answerTo(sink: ResponseSink): void {
    if (this.response !== null) sink.answer(this.response);
    else this.sink = sink;
  }

  /** The answer; later calls are ignored, as a settled promise ignores them (a refused batch answers twice). */
  protected answer(response: HttpResponse): void {
    if (this.given) return;
    this.given = true;
    const sink = this.sink;
    if (sink === null) this.response = response;
    else {
      this.sink = null;
      sink.answer(response);
    }
  }
}

export type HandlerResult = Promise<HttpResponse | LaterResponse> | HttpResponse | LaterResponse;

export type HttpHandler = (req: HttpRequest) => HandlerResult;

export interface ListenOptions {
  readonly host: string;
  readonly port: number; // 0 = any free port
  /** Bodies over this many bytes are answered 413 by the transport without being buffered whole. */
  readonly bodyLimit: number;
  /** Requests whose body the handler reads as a stream (`HttpRequest.bodyStream`), past `bodyLimit`. */
  readonly streamsBody?: (method: string, path: string) => boolean;
  /**
   * The only headers (lower-case) a request's handler reads, for the requests it names; null: all of them. The
   * uWebSockets.js transport then copies just these (`getHeader`) instead of every header the client sent (a
   * callback and two strings each); a header sent empty reads as absent. `content-length` is the transport's own.
   */
  readonly headersRead?: (method: string, path: string) => readonly string[] | null;
  readonly tooLarge: () => HttpResponse;
  /** The answer (sent with Connection: close) to requests arriving on kept-alive connections after close() began. */
  readonly closing: () => HttpResponse;
  readonly handler: HttpHandler;
  /** Called when the handler itself throws; must return a response (never reached by bad input). */
  readonly onHandlerError: (error: unknown) => HttpResponse;
}

export interface HttpServer {
  readonly port: number;
  /** Stops accepting connections, waits for in-flight requests, then closes open streams. */
  close(): Promise<void>;
}

export interface HttpTransport {
  readonly name: "uws" | "node";
  listen(options: ListenOptions): Promise<HttpServer>;
}

/** Runs the handler for one request and sends what it answers; a throw becomes `onHandlerError`'s response. */
export function dispatch(options: ListenOptions, request: HttpRequest, send: (response: HttpResponse) => void): void {
  let result: HandlerResult;
  try {
    result = options.handler(request);
  } catch (error) {
    return send(options.onHandlerError(error));
  }
  if (result instanceof LaterResponse) return result.answerTo({ answer: send });
  Promise.resolve(result).then(
    (response) => (response instanceof LaterResponse ? response.answerTo({ answer: send }) : send(response)),
    (error: unknown) => send(options.onHandlerError(error)),
  );
}

export const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export const STATUS_TEXT: Record<number, string> = {
  200: "200 OK", 201: "201 Created", 202: "202 Accepted", 204: "204 No Content", 304: "304 Not Modified",
  400: "400 Bad Request", 401: "401 Unauthorized", 403: "403 Forbidden", 404: "404 Not Found",
  405: "405 Method Not Allowed", 409: "409 Conflict", 413: "413 Payload Too Large", 415: "415 Unsupported Media Type",
  429: "429 Too Many Requests", 500: "500 Internal Server Error", 503: "503 Service Unavailable",
};
export const statusLine = (status: number): string => STATUS_TEXT[status] ?? `${status} Status`;
