import { buildHit, type FinishedRequest, type Hit } from "./hit.ts";
import { isPlainBrowser } from "./browser-ua.ts";
import { resolveOptions, type ResolvedOptions, type SvcOptions } from "./options.ts";
import { registerForExit, unregisterForExit } from "./exit-flush.ts";

const JSON_HEADERS = { "content-type": "application/json" } as const;

export interface SenderStats {
  /** Hits the collector acknowledged with a 2xx. */
  readonly sent: number;
  /** Hits never sent: the queue was full, or they arrived after close(). */
  readonly dropped: number;
  /** Hits sent in a batch that failed: timeout, connection error or a non-2xx answer. They are not retried. */
  readonly failed: number;
  /** Hits waiting in the queue now. */
  readonly queued: number;
  /** Hits in the POST in flight now. */
  readonly inFlight: number;
}

/** A delivery failure handed to onError; its message names the collector's answer, never a visitor's data. */
export class SvcSendError extends Error {
  override readonly name = "SvcSendError";
}

// The collector refuses bodies over 64 KB (SPEC "Limits"); 1 KB of margin for the array brackets and any
// proxy that counts differently.
const MAX_BODY_BYTES = 63 * 1024;

// A 503 means nothing of the batch was stored (the gateway's rule; HAProxy's own 503 never reached one), so the
// same body is sent again: at most 3 more times, after the answer's Retry-After capped at 5 s. 503s last while a
// site moves between gateways or the database restarts: seconds, not minutes.
const RETRIES_503 = 3;
const MAX_RETRY_WAIT_MS = 5_000;

function retryWaitMs(header: string | null): number {
  const seconds = Number(header ?? 1);
  return Math.min(Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 1000, MAX_RETRY_WAIT_MS);
}

function utf8Length(s: string): number {
  let bytes = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) bytes += c >= 0x800 && (c < 0xd800 || c > 0xdfff) ? 2 : 1;
  }
  return bytes;
}

interface Waiter {
  readonly seq: number;
  readonly resolve: () => void;
}

type Timer = ReturnType<typeof setTimeout>;

function unref(timer: Timer): Timer {
  // Node timers have unref(); browsers and workerd return a number. An unref'd timer never keeps a host process alive.
  const t = timer as { unref?: () => void };
  if (typeof t.unref === "function") t.unref();
  return timer;
}

/**
 * The one sender behind every adapter. Two ways in, one POST format (JSON arrays of up to `batchSize` hits and
 * 63 KB):
 * - `record()` (Node: node:http, Express, Hono on Node): a bounded FIFO sent in the background when a batch is
 *   full or `flushIntervalMs` after its first hit, one POST at a time.
 * - `recordAndWait()` (runtimes with `waitUntil`: workers, Next middleware): workerd runs a promise only inside
 *   the request that created it and cancels one that waits on another request's I/O, so every POST belongs to
 *   one request: the request that opens a batch keeps it open for `flushIntervalMs` (its waitUntil covers the
 *   timer and the POST), requests arriving meanwhile join it, and the one that fills it sends it at once.
 * Nothing it does throws into, or waits inside, the host's request handling.
 */
export class HitSender {
  readonly options: ResolvedOptions;
  /** The endpoint with `?d=<domain>`: what a load balancer in front of several gateways routes the site by. */
  readonly #url: string;
  #queue: Hit[] = [];
  /** Sequence number of the last hit accepted into the queue; hits are numbered from 1 in FIFO order. */
  #enqueued = 0;
  /** Every hit with a sequence number up to this one has left the queue and its POST has settled. */
  #settled = 0;
  /** Hits up to this sequence number are to be sent now, full batch or not (timer, flush, close). */
  #dueUpTo = 0;
  #waiters: Waiter[] = [];
  /** The batch a waitUntil request opened and is still collecting; see the class comment. */
  #open: Hit[] | undefined;
  #openTimer: Timer | undefined;
  /** Ends the waitUntil of the request that opened #open when someone else takes the batch. */
  #openRelease: (() => void) | undefined;
  /** Hits in waitUntil POSTs now (several requests may each have one in flight). */
  #openInFlight = 0;
  #timer: Timer | undefined;
  #timerDelay = 0;
  #running: Promise<void> | undefined;
  #inFlight = 0;
  #sent = 0;
  #dropped = 0;
  #failed = 0;
  #closed = false;

  constructor(options: SvcOptions) {
    this.options = resolveOptions(options);
    const url = new URL(this.options.endpoint);
    url.searchParams.set("d", this.options.domain);
    this.#url = url.href;
    if (this.options.flushOnExit) registerForExit(this);
  }

  /** Whether a request with this user agent is reported (`humans: false` skips plain browsers). */
  wants(userAgent: string | null | undefined): boolean {
    return this.options.humans || !isPlainBrowser(userAgent);
  }

  /** Queue the hit of a finished request. Never throws; returns at once. */
  record(request: FinishedRequest): void {
    this.#accept(request);
  }

  /**
   * Queue the hit for a runtime that ends work when the response is sent, and return the promise to hand to
   * `waitUntil`: it settles (never rejects) once the work this request took on is done — at once if its hit
   * joined a batch another request opened, else after that batch's timer and POST.
   */
  recordAndWait(request: FinishedRequest): Promise<void> {
    const hit = this.#build(request);
    if (hit === undefined || !this.#admit()) return Promise.resolve();
    const open = this.#open;
    if (open !== undefined) {
      open.push(hit);
      return open.length < this.options.batchSize ? Promise.resolve() : this.#postHits(this.#takeOpen()!);
    }
    const batch = [hit];
    if (batch.length >= this.options.batchSize) return this.#postHits(batch);
    return new Promise<void>((resolve) => {
      this.#open = batch;
      this.#openTimer = unref(
        setTimeout(() => {
          this.#openTimer = undefined;
          if (this.#open !== batch) return;
          this.#open = undefined;
          this.#openRelease = undefined;
          void this.#postHits(batch)
            .catch((error: unknown) => this.#report(internalError(error)))
            .then(resolve);
        }, this.options.flushIntervalMs),
      );
      // Taken by a request that filled it, or by flush(): that caller carries the POST, this request is done.
      this.#openRelease = resolve;
    });
  }

  /** Queue a ready-made hit (for custom adapters). Returns false when it was dropped. */
  enqueue(hit: Hit): boolean {
    return this.#enqueue(hit) !== 0;
  }

  /**
   * Send everything queued so far now; settles (never rejects) when those hits were delivered or given up.
   * On workers, call it inside the request that should carry the POST (its waitUntil); it does not wait for
   * POSTs other requests have in flight.
   */
  flush(): Promise<void> {
    const open = this.#takeOpen();
    const openSent = open === undefined ? Promise.resolve() : this.#postHits(open);
    const target = this.#enqueued;
    if (target <= this.#settled) return openSent;
    this.#dueUpTo = Math.max(this.#dueUpTo, target);
    this.#kick();
    return Promise.all([openSent, this.#waitFor(target)]).then(() => undefined);
  }

  /** Flush, then refuse further hits (they count as dropped) and release the exit hooks. */
  async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      unregisterForExit(this);
    }
    await this.flush();
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  stats(): SenderStats {
    return {
      sent: this.#sent,
      dropped: this.#dropped,
      failed: this.#failed,
      queued: this.#queue.length + (this.#open?.length ?? 0),
      inFlight: this.#inFlight + this.#openInFlight,
    };
  }

  #build(request: FinishedRequest): Hit | undefined {
    try {
      const hit = buildHit(this.options, request);
      if (hit === undefined) this.#dropped++;
      return hit;
    } catch (error) {
      // A request object no adapter foresaw must not break the host: count it and tell the operator.
      this.#dropped++;
      this.#report(new SvcSendError(`svc: could not build a hit: ${error instanceof Error ? error.message : String(error)}`));
      return undefined;
    }
  }

  #takeOpen(): Hit[] | undefined {
    const open = this.#open;
    if (this.#openTimer !== undefined) clearTimeout(this.#openTimer);
    this.#openRelease?.();
    this.#open = undefined;
    this.#openTimer = undefined;
    this.#openRelease = undefined;
    return open;
  }

  /** Room for one more hit? Counts it as dropped when not. */
  #admit(): boolean {
    const held = this.#queue.length + (this.#open?.length ?? 0) + this.#openInFlight;
    if (this.#closed || held >= this.options.maxQueue) {
      this.#dropped++;
      return false;
    }
    return true;
  }

  #accept(request: FinishedRequest): number {
    const hit = this.#build(request);
    return hit === undefined ? 0 : this.#enqueue(hit);
  }

  #enqueue(hit: Hit): number {
    if (!this.#admit()) return 0;
    this.#queue.push(hit);
    const seq = ++this.#enqueued;
    if (this.#running === undefined) {
      // Deferred even when the batch is full: the caller may be on the host's response path (Hono), and
      // starting a fetch there would cost it ~0.1 ms.
      this.#arm(this.#queue.length >= this.options.batchSize ? 0 : this.options.flushIntervalMs);
    }
    return seq;
  }

  #arm(delay: number): void {
    if (this.#timer !== undefined) {
      if (this.#timerDelay <= delay) return;
      clearTimeout(this.#timer);
    }
    this.#timerDelay = delay;
    this.#timer = unref(
      setTimeout(() => {
        this.#timer = undefined;
        // The interval makes every waiting hit due; a 0 delay only means "a full batch is waiting", and marking
        // hits due then would send the one that arrived meanwhile as a batch of its own.
        if (delay > 0) this.#dueUpTo = Math.max(this.#dueUpTo, this.#enqueued);
        this.#kick();
      }, delay),
    );
  }

  #sendNow(): boolean {
    const waiting = this.#queue.length;
    if (waiting === 0) return false;
    const headSeq = this.#enqueued - waiting + 1;
    return waiting >= this.options.batchSize || headSeq <= this.#dueUpTo;
  }

  #kick(): void {
    if (this.#running !== undefined) return;
    if (!this.#sendNow()) {
      if (this.#queue.length > 0) this.#arm(this.options.flushIntervalMs);
      return;
    }
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    // #drain catches every failure of a POST; the catch only keeps a bug of ours from becoming an unhandled
    // rejection in the host.
    this.#running = this.#drain().catch((error: unknown) => this.#report(internalError(error)));
  }

  async #drain(): Promise<void> {
    try {
      while (this.#sendNow()) {
        const { body, count } = this.#takeBatch();
        this.#inFlight = count;
        await this.#post(body, count);
        this.#inFlight = 0;
        this.#settled += count;
        this.#wake();
      }
    } finally {
      this.#running = undefined;
      if (this.#queue.length > 0) this.#arm(this.#sendNow() ? 0 : this.options.flushIntervalMs);
    }
  }

  #takeBatch(): { body: string; count: number } {
    const batch = encodeBatch(this.#queue, Math.min(this.options.batchSize, this.#queue.length));
    this.#queue.splice(0, batch.count);
    return batch;
  }

  /** POST hits that left the queue (a waitUntil batch), in as many bodies as the size limit needs. */
  async #postHits(hits: Hit[]): Promise<void> {
    this.#openInFlight += hits.length;
    let start = 0;
    while (start < hits.length) {
      const { body, count } = encodeBatch(hits.slice(start), hits.length - start);
      await this.#post(body, count);
      this.#openInFlight -= count;
      start += count;
    }
  }

  async #post(body: string, count: number): Promise<void> {
    try {
      let response: Response;
      for (let retry = 0; ; retry++) {
        response = await fetch(this.#url, {
          method: "POST",
          headers: this.options.token === undefined ? JSON_HEADERS : { ...JSON_HEADERS, authorization: `Bearer ${this.options.token}` },
          body,
          signal: AbortSignal.timeout(this.options.timeoutMs),
        });
        // Read the (empty) body so the connection goes back to the pool.
        await response.arrayBuffer().catch(() => undefined);
        if (response.status !== 503 || retry === RETRIES_503) break;
        await new Promise((r) => setTimeout(r, retryWaitMs(response.headers.get("retry-after"))));
      }
      if (response.ok) {
        this.#sent += count;
      } else {
        this.#failed += count;
        this.#report(new SvcSendError(`svc: the collector answered ${response.status} to a batch of ${count} hits`));
      }
    } catch (error) {
      this.#failed += count;
      const reason = error instanceof Error ? (error.name === "TimeoutError" ? `no answer within ${this.options.timeoutMs} ms` : describe(error)) : String(error);
      this.#report(new SvcSendError(`svc: could not deliver a batch of ${count} hits to ${this.options.endpoint}: ${reason}`, { cause: error }));
    }
  }

  #report(error: Error): void {
    const onError = this.options.onError;
    if (onError === undefined) return;
    try {
      const result: unknown = onError(error);
      // An async onError that rejects must not become an unhandled rejection in the host.
      if (result !== null && typeof result === "object" && typeof (result as PromiseLike<unknown>).then === "function") {
        (result as PromiseLike<unknown>).then(undefined, () => undefined);
      }
    } catch {
      // onError is the host's code; its failure is not ours to rethrow.
    }
  }

  #waitFor(seq: number): Promise<void> {
    if (seq <= this.#settled) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#waiters.push({ seq, resolve });
    });
  }

  #wake(): void {
    // flush() waiters are few (one per call); a filter keeps this correct without relying on their order.
    if (this.#waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const w of this.#waiters) {
      if (w.seq <= this.#settled) w.resolve();
      else still.push(w);
    }
    this.#waiters = still;
  }
}

/** The first hits of `hits` (at most `limit`) that fit one request body, as that body. */
function encodeBatch(hits: readonly Hit[], limit: number): { body: string; count: number } {
  const parts: string[] = [];
  let bytes = 2;
  for (let i = 0; i < limit; i++) {
    const json = JSON.stringify(hits[i]);
    const size = utf8Length(json) + 1;
    // A single hit is at most ~31 KB (capped fields, worst-case escaping), so a batch always takes at least one.
    if (i > 0 && bytes + size > MAX_BODY_BYTES) break;
    parts.push(json);
    bytes += size;
  }
  return { body: `[${parts.join(",")}]`, count: parts.length };
}

function internalError(error: unknown): SvcSendError {
  return new SvcSendError(`svc: internal error while sending: ${error instanceof Error ? error.message : String(error)}`);
}

function describe(error: Error): string {
  const cause = (error as { cause?: unknown }).cause;
  const code = cause !== null && typeof cause === "object" ? (cause as { code?: unknown }).code : undefined;
  return typeof code === "string" ? `${error.message} (${code})` : error.message;
}

/** Build a sender, or pass through one that adapters share. */
export function createSender(options: SvcOptions | HitSender): HitSender {
  return options instanceof HitSender ? options : new HitSender(options);
}
