// The site's live stream (GET /api/sites/{id}/live, SSE through the dashboard's proxy). The gateway sends a
// snapshot, then deltas every 500 ms while rows commit; a `resync` (we fell behind) or a dropped connection
// is answered by reconnecting for a fresh snapshot, with exponential backoff on failures so a gateway that
// is down is not hammered: 1 s, 2 s, 4 s … capped at 30 s.
import { sitePath } from "./api";
import type { LiveDelta, LiveSnapshot } from "./types";

export type LiveStatus = "connecting" | "live" | "reconnecting";

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

export interface LiveHandlers {
  snapshot(snapshot: LiveSnapshot): void;
  delta(delta: LiveDelta): void;
}

export class LiveStream {
  status = $state<LiveStatus>("connecting");
  private source: EventSource | null = null;
  private retryMs = FIRST_RETRY_MS;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;

  constructor(
    private readonly site: string,
    private readonly handlers: LiveHandlers,
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
    source.onerror = () => this.restart(this.nextDelay());
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
