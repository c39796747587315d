// The gateway process, composed: sites, actors, writer, maintenance and HTTP. `startGateway` is what
// main.ts runs and what the tests start in-process against a real PostgreSQL.
import { type Clock, systemClock } from "@svc/core";
import type { GatewayConfig } from "./config.ts";
import { errorResponse, ApiError, RejectionCounters } from "./errors.ts";
import { openCountryLookup } from "./geo/country.ts";
import { nodeTransport } from "./http/node.ts";
import { Router } from "./http/router.ts";
import type { HttpServer, HttpTransport } from "./http/transport.ts";
import { uwsTransport } from "./http/uws.ts";
import type { Logger } from "./log.ts";
import { ActorRegistry } from "./actors/registry.ts";
import { type Authenticator, authRoutes, createAuthenticator } from "./auth/index.ts";
import { Maintenance } from "./maintenance.ts";
import { AnomalyDetector } from "./anomalies/detector.ts";
import { anomalyScan } from "./anomalies/scan.ts";
import { InsightsService } from "./insights/service.ts";
import { insightsSchedule } from "./insights/schedule.ts";
import { SettledCache } from "./read/settled-cache.ts";
import { anomalyRoutes } from "./routes/anomalies.ts";
import { insightRoutes } from "./routes/insights.ts";
import { goalRoutes } from "./routes/goals.ts";
import { ingestRoutes } from "./routes/ingest.ts";
import { liveRoutes } from "./routes/live.ts";
import { LiveHub } from "./live/hub.ts";
import { openapiRoutes } from "./routes/openapi.ts";
import { publicRoutes } from "./routes/public.ts";
import { readRoutes } from "./routes/read.ts";
import { siteRoutes } from "./routes/sites.ts";
import { teamRoutes } from "./routes/team.ts";
import { loadTrackerAsset } from "./routes/tracker-asset.ts";
import { SiteCache } from "./sites/site-cache.ts";
import { createIngestLimits } from "./ingest/rate-limits.ts";
import type { Database } from "./storage/database.ts";
import { saltForDay } from "./storage/salts.ts";
import { commitRows } from "./storage/writer.ts";
import { replaceDayRollups } from "./storage/rollup-writes.ts";
import { RollupFlusher, type WriteRollupsFn, repairAfterCrash } from "./rollups/flusher.ts";
import { loadDayStates, saveDayStates } from "./actors/day-state-store.ts";
import { type CommitFn, GroupCommitWriter } from "./writer/group-commit.ts";

export const BODY_LIMIT = 64 * 1024;

export interface GatewayOptions {
  readonly config: GatewayConfig;
  readonly database: Database;
  readonly log: Logger;
  readonly clock?: Clock;
  readonly transport?: HttpTransport;
  /** The batch write, replaceable by tests that need a failing database at a chosen moment. */
  readonly commit?: CommitFn;
  /** The rollup write, replaceable the same way. */
  readonly writeRollups?: WriteRollupsFn;
}

export interface Gateway {
  readonly port: number;
  readonly sites: SiteCache;
  readonly writer: GroupCommitWriter;
  readonly rollups: RollupFlusher;
  readonly live: LiveHub;
  readonly counters: RejectionCounters;
  /** Session, API key and (jwt mode) identity-provider checks for every non-public route. */
  readonly auth: Authenticator;
  /** Stop accepting, answer what is in flight, drain mailboxes and the writer. Leaves the database open. */
  stop(): Promise<void>;
}

export const transports: Record<GatewayConfig["transport"], HttpTransport> = { uws: uwsTransport, node: nodeTransport };

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { config, database, log } = options;
  const clock = options.clock ?? systemClock;
  const pool = database.pool;
  const counters = new RejectionCounters();
  const web = { production: config.production, trustProxy: config.trustProxy, allowedOrigins: config.allowedOrigins };
  const auth = await createAuthenticator({ pool, config: config.auth, clock, log, web });
  const limits = createIngestLimits({ eventRatePerClient: config.eventRatePerClient, hitRatePerSite: config.hitRatePerSite, now: clock.now });

  const maintenance = new Maintenance(pool, clock, log);
  await maintenance.runOnce();

  const sites = new SiteCache(pool, database.url, log, clock.now);
  await sites.start();
  // Before the repair, which sets the repair mark that tells a clean stop from a killed one.
  const dayStates = await loadDayStates(pool, clock.now(), log);
  await repairAfterCrash(pool, clock.now(), log);

  let actors: ActorRegistry | null = null;
  let writer: GroupCommitWriter | null = null;
  const live = new LiveHub(clock.now);
  const rollups = new RollupFlusher({
    pool,
    intervalMs: config.rollupFlushMs,
    now: clock.now,
    log,
    oldestUncommittedHour: () => writer!.oldestUncommittedHour(),
    ...(options.writeRollups ? { write: options.writeRollups } : {}),
  });
  writer = new GroupCommitWriter({
    pool,
    commit: options.commit ?? commitRows,
    batchMaxRows: config.batchMaxRows,
    flushMs: config.flushMs,
    inFlight: config.writerInFlight,
    capacity: 1024,
    log,
    onSitesInvalidated: (ids) => actors?.invalidate(ids),
    onCommitted: (deltas) => {
      rollups.ledger.add(deltas);
      live.publish(deltas);
    },
  });
  actors = new ActorRegistry(config.mailboxSize, {
    pool,
    clock,
    writer,
    log,
    loadSalt: (id, day) => saltForDay(pool, id, day),
    replaceDay: (id, dayStart, counts) =>
      rollups.exclusive(async (ledger) => {
        ledger.dropDay(id, dayStart);
        rollups.reportRefused(await replaceDayRollups(pool, id, dayStart, counts));
      }),
  });
  actors.restore(dayStates);
  writer.start();
  rollups.start();
  live.start();
  maintenance.start();

  const country = openCountryLookup(config.geoipPath);
  const tracker = loadTrackerAsset(config.trackerPath);
  if (!tracker.available) log.warn("tracker script not built; /js/svc.js answers 404 until `npm run build:tracker`", { path: config.trackerPath });

  const router = new Router();
  authRoutes(router, { auth, web, now: clock.now, log });
  ingestRoutes(router, { sites, actors, country, trustProxy: config.trustProxy, counters, limits });
  publicRoutes(router, {
    pool, sites, tracker, country, actors, writer, rollups, counters, live, defaultPartitionRows: () => maintenance.defaultRows,
    limits: limits.stats, authenticate: auth.authenticate,
  });
  siteRoutes(router, { pool, sites, authenticate: auth.authenticate, authenticateAdmin: auth.authenticateAdmin });
  goalRoutes(router, { pool, clock, authenticate: auth.authenticate, authenticateAdmin: auth.authenticateAdmin });
  readRoutes(router, { pool, clock, authenticate: auth.authenticate, settle: () => rollups.settle() });
  liveRoutes(router, {
    pool, clock, hub: live, actors, authenticate: auth.authenticate, credentialId: auth.credentialId,
    streamsPerCredential: config.liveStreamsPerCredential, settle: () => rollups.settle(),
  });
  teamRoutes(router, { pool, llm: config.llm, authenticateSession: auth.authenticateSession });
  // Anomalies and insights: rollup reads, plus two scheduled fibers (hourly anomaly scan, weekly insights).
  const detector = new AnomalyDetector(pool, clock.now);
  const insights = new InsightsService({ src: { pool, cache: new SettledCache(clock.now), now: clock.now }, llm: config.llm, log });
  anomalyRoutes(router, { pool, detector, authenticate: auth.authenticate, settle: () => rollups.settle() });
  insightRoutes(router, { pool, insights, authenticate: auth.authenticate, authenticateAdmin: auth.authenticateAdmin, settle: () => rollups.settle() });
  const scheduled = [anomalyScan(pool, detector, log), insightsSchedule(insights, config.llm.insightsEveryHours, log)].flatMap((t) => (t ? [t] : []));
  for (const task of scheduled) task.start();
  openapiRoutes(router);

  const transport = options.transport ?? transports[config.transport];
  const server: HttpServer = await transport.listen({
    host: config.host,
    port: config.port,
    bodyLimit: BODY_LIMIT,
    tooLarge: () => {
      counters.count("body_too_large");
      return errorResponse(new ApiError("body_too_large"));
    },
    closing: () => errorResponse(new ApiError("unavailable", "shutting down")),
    handler: router.handler(),
    onHandlerError: (error) => {
      if (!(error instanceof ApiError)) log.error("unhandled error in a route", { error: error instanceof Error ? error.message : String(error) });
      return errorResponse(error);
    },
  });
  log.info("gateway listening", { port: server.port, transport: transport.name, sites: sites.size, trust_proxy: config.trustProxy.source });
  if (config.hostReason === "placeholder secret") {
    log.warn("listening on the loopback interface (127.0.0.1) only: a shipped placeholder secret is in use. Set SVC_ADMIN_PASSWORD and SVC_JWT_SECRET, then SVC_HOST, to accept other machines.");
  }

  return {
    port: server.port,
    sites,
    writer,
    rollups,
    live,
    counters,
    auth,
    async stop() {
      live.stop();
      await Promise.all(scheduled.map((task) => task.stop()));
      await server.close();
      await actors!.stop();
      await writer!.stop();
      await rollups.stop();
      await saveDayStates(pool, actors!.snapshots(), log);
      await maintenance.stop();
      await sites.stop();
      log.info("gateway stopped", { batches: writer!.stats.batches, rows: writer!.stats.rows, rollup_flushes: rollups.stats.flushes });
    },
  };
}
