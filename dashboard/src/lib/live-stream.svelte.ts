// The site's live stream (GET /api/sites/{id}/live, SSE through the dashboard's proxy). The gateway sends a
// snapshot, then deltas every 500 ms while rows commit; a `resync` (we fell behind) or a dropped connection
// is answered by reconnecting for a fresh snapshot, with exponential backoff on failures so a gateway that
// is down is not hammered: 1 s, 2 s, 4 s … capped at 30 s.
//
// An ended session ends the stream for good: the gateway sends `revoked` (it re-checks the credential every
// 15 s: signed out elsewhere, expired, key revoked), and a failed connect asks /api/auth/me whether the
// credential still holds (EventSource never tells the status of a refused connect). Either way `ended` is
// called with the reason and nothing reconnects.
import { ApiFailure, api, sitePath } from "./api";
import type { LiveDelta, LiveSnapshot } from "./types";

export type LiveStatus = "connecting" | "live" | "reconnecting" | "ended";

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

export interface LiveHandlers {
  snapshot(snapshot: LiveSnapshot): void;
  delta(delta: LiveDelta): void;
  /** The credential is no longer valid: the stream stopped and will not reconnect. */
  ended(reason: string): void;
}

export const SESSION_ENDED = "your session ended (signed out, or it expired)";

export class LiveStream {
  status = $state<LiveStatus>("connecting");
  private source: EventSource | null = null;
  private retryMs = FIRST_RETRY_MS;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;

  /** `session: false` for a shared link's view: no session to check, its end is the link's `revoked`. */
  constructor(
    private readonly site: string,
    private readonly handlers: LiveHandlers,
    private readonly options: { readonly session: boolean } = { session: true },
  ) {
    this.connect();
  }

  private connect(): void {
    if (this.stopped) return;
    const source = new EventSource(sitePath(this.site, "/live"));
    this.source = source;
    source.addEventListener("snapshot", (event) => {
      this.status = "live";
      this.retryMs = FIRST_RETRY_MS;
      const data = parse<LiveSnapshot>(event);
      if (data) this.handlers.snapshot(data);
    });
    source.addEventListener("delta", (event) => {
      const data = parse<LiveDelta>(event);
      if (data) this.handlers.delta(data);
    });
    // The gateway ends the stream after `resync`: reconnect at once for a fresh snapshot.
    source.addEventListener("resync", () => this.restart(0));
    source.addEventListener("revoked", (event) => this.end(parse<{ reason?: string }>(event)?.reason ?? SESSION_ENDED));
    source.onerror = () => {
      this.restart(this.nextDelay());
      if (this.options.session) void this.checkCredential();
    };
  }

  /** After a failed connect: is it the session? A 401/403 from /api/auth/me ends the stream; anything else retries. */
  private async checkCredential(): Promise<void> {
    try {
      await api.get("/api/auth/me");
    } catch (error) {
      if (error instanceof ApiFailure && (error.status === 401 || error.status === 403)) this.end(SESSION_ENDED);
    }
  }

  private end(reason: string): void {
    if (this.stopped) return;
    this.close();
    this.status = "ended";
    this.handlers.ended(reason);
  }

  private nextDelay(): number {
    const delay = this.retryMs;
    this.retryMs = Math.min(MAX_RETRY_MS, this.retryMs * 2);
    return delay;
  }

  private restart(delayMs: number): void {
    this.source?.close();
    this.source = null;
    if (this.stopped) return;
    this.status = "reconnecting";
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delayMs);
  }

  close(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.source?.close();
  }
}

function parse<T>(event: Event): T | null {
  try {
    return JSON.parse((event as MessageEvent<string>).data) as T;
  } catch {
    return null;
  }
}
