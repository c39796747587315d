// GET /api/sites/{id}/live: text/event-stream. A `snapshot` event on connect (today's totals per actor
// and visitors in the last 5 minutes), then `delta` events from the hub, `: heartbeat` comments every
// 15 s, and `resync` when the client fell behind. Authenticated by session cookie or API key.
import { type Clock, utcDay } from "@svc/core";
import type pg from "pg";
import type { ActorRegistry } from "../actors/registry.ts";
import type { Router } from "../http/router.ts";
import { type LiveHub, sse } from "../live/hub.ts";
import { type Authenticate, resolveTeamSite } from "./sites.ts";

const RECENT_MS = 5 * 60_000;

export interface LiveRouteDeps {
  readonly pool: pg.Pool;
  readonly clock: Clock;
  readonly hub: LiveHub;
  readonly actors: ActorRegistry;
  readonly authenticate: Authenticate;
  /** Resolves once every acknowledged row's counts are in the rollup tables. */
  readonly settle: () => Promise<void>;
}

export function liveRoutes(router: Router, deps: LiveRouteDeps): void {
  router.on("GET", "/api/sites/:id/live", async (req, params) => {
    const principal = await deps.authenticate(req);
    const site = await resolveTeamSite(deps.pool, params["id"]!, principal);
    await deps.settle();
    const now = deps.clock.now();
    const [totals, recent] = await Promise.all([
      deps.pool.query(
        `select actor, pageviews::int, events::int, hits::int, visitors::int from rollup_daily
          where site_id = $1 and bucket = $2 and dim = 'total' and value = ''`,
        [site.id, utcDay(now)],
      ),
      deps.actors.get(site.id).recentVisitors(RECENT_MS),
    ]);
    const snapshot = {
      site: { id: site.id, domain: site.domain },
      at: new Date(now).toISOString(),
      day: utcDay(now),
      totals: Object.fromEntries(totals.rows.map((r) => [r.actor, { pageviews: r.pageviews, events: r.events, hits: r.hits, visitors: r.visitors }])),
      visitors_last_5_minutes: recent,
    };
    return {
      status: 200,
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        "x-accel-buffering": "no", // nginx would otherwise buffer the stream
      },
      stream: (sink) => {
        sink.write(`retry: 2000\n${sse("snapshot", snapshot)}`);
        deps.hub.subscribe(site.id, sink);
      },
    };
  });
}
