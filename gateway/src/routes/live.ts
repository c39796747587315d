// GET /api/sites/{id}/live: text/event-stream. A `snapshot` event on connect (today's totals per actor
// and visitors in the last 5 minutes), then `delta` events from the hub, `: heartbeat` comments every
// 15 s, and `resync` when the client fell behind. Authenticated by session cookie or API key (read scope
// is enough); the credential is checked again at every heartbeat (`revoked`, then the stream ends), and one
// credential holds at most SVC_LIVE_STREAMS_PER_CREDENTIAL streams at once (429 beyond).
import { type Clock, utcDay } from "@svc/core";
import type pg from "pg";
import type { Authenticator } from "../auth/index.ts";
import type { LaneRegistry } from "../lanes/registry.ts";
import { ApiError } from "../errors.ts";
import type { HttpRequest } from "../http/transport.ts";
import { HEARTBEAT_MS, type LiveHub, sse } from "../live/hub.ts";
import { actorTotalsOfDay } from "../read/rollup-reads.ts";
import type { OperationRoutes } from "./operation-routes.ts";

const RECENT_MS = 5 * 60_000;

export interface LiveRouteDeps {
  readonly pool: pg.Pool;
  readonly clock: Clock;
  readonly hub: LiveHub;
  readonly lanes: LaneRegistry;
  /** Checks the credential again at every heartbeat (the router checked it before the stream began). */
  readonly authenticate: Authenticate;
  /** Names the request's credential, for the per-credential stream count. */
  readonly credentialId: (req: HttpRequest) => string | null;
  readonly streamsPerCredential: number;
  /** Resolves once every acknowledged row's counts are in the rollup tables. */
  readonly flushRollups: () => Promise<void>;
}

type Authenticate = Authenticator["authenticate"];

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
  "x-accel-buffering": "no", // nginx would otherwise buffer the stream
};

/** The opening event of a live stream: today's totals per actor and the visitors of the last 5 minutes. */
export async function liveSnapshot(deps: Pick<LiveRouteDeps, "pool" | "clock" | "lanes">, site: { id: number; domain: string }) {
  const now = deps.clock.now();
  const [totals, recent] = await Promise.all([
    actorTotalsOfDay(deps.pool, site.id, utcDay(now)),
    deps.lanes.recentVisitors(site.id, RECENT_MS),
  ]);
  return {
    site: { id: site.id, domain: site.domain },
    at: new Date(now).toISOString(),
    day: utcDay(now),
    totals: Object.fromEntries(totals.map((r) => [r.actor, { pageviews: r.pageviews, events: r.events, hits: r.hits, visitors: r.visitors }])),
    visitors_last_5_minutes: recent,
  };
}

/** False once the credential is refused; a failure that is not about the credential (the database) keeps the stream. */
const stillValid = (authenticate: Authenticate, req: HttpRequest) => (): Promise<boolean> =>
  authenticate(req).then(
    () => true,
    (error: unknown) => !(error instanceof ApiError && (error.reason === "unauthorized" || error.reason === "forbidden")),
  );

export function liveRoutes(routes: OperationRoutes, deps: LiveRouteDeps): void {
  /** Credential digest → open streams. Entries leave when their last stream closes. */
  const open = new Map<string, number>();
  routes.site("GET /api/sites/{id}/live", async ({ req, site }) => {
    const credential = deps.credentialId(req) ?? "";
    if ((open.get(credential) ?? 0) >= deps.streamsPerCredential) {
      throw new ApiError("rate_limited", `at most ${deps.streamsPerCredential} live streams per credential; close one first`, undefined, {
        "retry-after": String(HEARTBEAT_MS / 1000),
      });
    }
    // Flushed after the stream limit, so a connect over it is refused at once.
    await deps.flushRollups();
    const snapshot = await liveSnapshot(deps, site);
    return {
      status: 200,
      headers: SSE_HEADERS,
      stream: (sink) => {
        // Counted only once the stream exists (a client that hung up during the snapshot holds no slot); connects
        // that raced past the check above while their snapshots were read are ended here.
        const held = open.get(credential) ?? 0;
        if (held >= deps.streamsPerCredential) {
          sink.write(sse("limit", { reason: `at most ${deps.streamsPerCredential} live streams per credential` }));
          sink.end();
          return;
        }
        open.set(credential, held + 1);
        sink.onClose(() => {
          const left = (open.get(credential) ?? 1) - 1;
          if (left <= 0) open.delete(credential);
          else open.set(credential, left);
        });
        sink.write(`retry: 2000\n${sse("snapshot", snapshot)}`);
        deps.hub.subscribe(site.id, sink, stillValid(deps.authenticate, req));
      },
    };
  });
}
