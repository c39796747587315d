// Whether PostgreSQL is reachable, as seen by every database client of the process. A client that loses
// its connection reports the error here; the first such report marks the database down and starts one
// probe that retries `select 1` with backoff until it answers, then marks it up again. While it is down
// ingest answers 503 with Retry-After at the door (nothing is queued, so memory stays bounded), reads
// answer 503 and /healthz says degraded.
import { Effect, Fiber } from "effect";
import type pg from "pg";
import type { Logger } from "../log.ts";

// The server is restarting or unreachable (SQLSTATE class 08 and 57P01–57P03), or the socket broke: errors
// that say nothing about the query and go away when the server is back.
const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EPIPE", "EAI_AGAIN", "57P01", "57P02", "57P03"]);
const CONNECTION_MESSAGES = /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable|Connection closed/i;

export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // A wrapper (a failed rollup flush) carries the database's error as its cause.
  if (error.cause !== undefined && error.cause !== error && isConnectionError(error.cause)) return true;
  const { code, syscall } = error as { code?: unknown; syscall?: unknown };
  if (typeof code === "string" && (CONNECTION_CODES.has(code) || code.startsWith("08"))) return true;
  // A Unix socket (the embedded server's) whose file is gone: its server is stopped, as ECONNREFUSED says over TCP.
  if (code === "ENOENT" && syscall === "connect") return true;
  return CONNECTION_MESSAGES.test(error.message);
}

// 250 ms doubling to 2 s: a PostgreSQL restart (a few seconds) is noticed within 2 s of its end.
const PROBE_FIRST_MS = 250;
const PROBE_MAX_MS = 2_000;

/** One round trip (`select 1`): resolves when the server answers a query. */
export async function pingDatabase(pool: pg.Pool): Promise<void> {
  await pool.query("select 1");
}

export interface DatabaseHealthStats {
  readonly state: "up" | "down";
  /** When the current outage began (ISO), or null. */
  readonly down_since: string | null;
  readonly outages: number;
}

export class DatabaseHealth {
  private downSince: number | null = null;
  private outages = 0;
  private probe: Fiber.Fiber<void> | null = null;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly log: Logger,
  ) {}

  get up(): boolean {
    return this.downSince === null;
  }

  get stats(): DatabaseHealthStats {
    return { state: this.up ? "up" : "down", down_since: this.downSince === null ? null : new Date(this.downSince).toISOString(), outages: this.outages };
  }

  /**
   * Any client's error. A connection error starts the probe, which asks the server at once: one connection
   * killed on its own (pg_terminate_backend, an idle timeout) while the server is fine marks nothing down.
   */
  report(error: unknown): void {
    if (!isConnectionError(error) || this.closed || this.probe !== null) return;
    this.probe = Effect.runFork(this.probeUntilUp((error as Error).message));
  }

  /** Ends the probe (at shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.probe) await Effect.runPromise(Fiber.interrupt(this.probe));
  }

  private probeUntilUp(reported: string): Effect.Effect<void> {
    const self = this;
    return Effect.gen(function* () {
      let delay = PROBE_FIRST_MS;
      while (!(yield* Effect.promise(() => pingDatabase(self.pool).then(() => true, () => false)))) {
        if (self.downSince === null) {
          self.downSince = Date.now();
          self.outages++;
          self.log.warn("database unreachable; ingest and reads answer 503 until it is back", { error: reported });
        }
        yield* Effect.sleep(delay);
        delay = Math.min(delay * 2, PROBE_MAX_MS);
      }
      if (self.downSince !== null) self.log.info("database reachable again; resuming", { down_ms: Date.now() - self.downSince });
      self.downSince = null;
      self.probe = null;
    });
  }
}
