// The gateway as layers. Each long-lived part is acquired in its layer's scope and released by it, so the
// order of shutdown is the reverse of the order of dependency, not a hand-kept list:
//
//   Http (routes, listening socket)
//    ├─ Lanes (site lanes, idle sweep)  ─┐
//    ├─ Maintenance                       │
//    └─ Auth                              ▼
//                                 Writer (group commit)
//                                         ▼
//                        Rollups (ledger + flusher, crash repair at boot)
//                                         ▼
//                                   Live (SSE hub)
//                                         ▼
//     Sites (domain cache + NOTIFY listener) · DatabaseHealth · PendingCommits · DayStates
//                                         ▼
//                            Database (pool, embedded server)
//                                         ▼
//               Config · Log · Clock · Counters · Supervisor · Faults
//
// DayStates sits below Rollups: it reads the day states a clean stop saved before the crash repair runs, and
// it is released after the final rollup flush, saving the drained lanes' states for the next boot.
//
// Stopping therefore closes the listening socket (ending live streams first), drains every lane's
// mailbox into the writer, commits the writer's last batch, writes the last rollup counts and clears the
// repair mark, then stops the site listener and closes the database.
import { performance } from "node:perf_hooks";
import { HOUR_MS } from "@svc/core";
import { Effect, Fiber, FiberSet, Layer } from "effect";
import { loadDayStates, saveDayStates } from "../lanes/day-state-store.ts";
import { LaneRegistry } from "../lanes/registry.ts";
import { AnomalyDetector } from "../anomalies/detector.ts";
import { anomalyScan } from "../anomalies/scan.ts";
import { createIngestLimits } from "../ingest/rate-limits.ts";
import { ingestHeadersRead } from "../ingest/pipeline.ts";
import { InsightsService } from "../insights/service.ts";
import { createRedactor } from "../outbound/redact.ts";
import { insightsSchedule } from "../insights/schedule.ts";
import { SettledCache } from "../read/settled-cache.ts";
import { anomalyRoutes } from "../routes/anomalies.ts";
import { insightRoutes } from "../routes/insights.ts";
import { authRoutes, createAuthenticator } from "../auth/index.ts";
import { ApiError, errorResponse } from "../errors.ts";
import { openCountryLookup } from "../geo/country.ts";
import { nodeTransport } from "../http/node.ts";
import type { HttpTransport } from "../http/transport.ts";
import { uwsTransport } from "../http/uws.ts";
import { LiveHub } from "../live/hub.ts";
import { Maintenance } from "../maintenance.ts";
import { RollupFlusher, type WriteRollupsFn, repairAfterCrash } from "../rollups/flusher.ts";
import { createMailer } from "../notify/mailer.ts";
import { Notifier } from "../notify/notifier.ts";
import { notificationRoutes } from "../routes/notifications.ts";
import { PeriodicTask } from "../schedule/periodic-task.ts";
import { exportRoutes } from "../routes/export.ts";
import { goalRoutes } from "../routes/goals.ts";
import { funnelRoutes } from "../routes/funnels.ts";
import { segmentRoutes } from "../routes/segments.ts";
import { ingestRoutes } from "../routes/ingest.ts";
import { liveRoutes } from "../routes/live.ts";
import { openapiRoutes } from "../routes/openapi.ts";
import { OperationRoutes } from "../routes/operation-routes.ts";
import { publicRoutes } from "../routes/public.ts";
import { readRoutes } from "../routes/read.ts";
import { queryRoutes } from "../routes/query.ts";
import { QueryService, queryLayer } from "./query-layer.ts";
import { importRoutes } from "../routes/import.ts";
import { streamsBody } from "../api-schema/operations.ts";
import { shareRoutes } from "../routes/shares.ts";
import { siteRoutes } from "../routes/sites.ts";
import { filteredRecentVisitors } from "../shares/filtered-reads.ts";
import { ShareStreams } from "../shares/share-streams.ts";
import { existingShareIds } from "../storage/shares.ts";
import { findSiteById } from "../storage/sites.ts";
import { teamRoutes } from "../routes/team.ts";
import { loadAdaptersPackage, loadTrackerAsset } from "../routes/tracker-asset.ts";
import { SiteCache } from "../sites/site-cache.ts";
import { type Database, guardPool, openDatabase, openWritePool } from "../storage/database.ts";
import { DatabaseHealth, isConnectionError } from "../storage/database-health.ts";
import { readRepairMark, replaceDayRollups, setRepairMark, writeRollups } from "../rollups/rollup-writes.ts";
import { recountDay } from "../rollups/day-rows.ts";
import { OrphanSweeper } from "../cluster/orphans.ts";
import { SiteOwnership } from "../cluster/ownership.ts";
import { ClusterPeers, RELEASE_QUIET_MS } from "../cluster/peers.ts";
import { saltForDay } from "../storage/salts.ts";
import { commitRows } from "../writer/commit-rows.ts";
import { type CommitFn, GroupCommitWriter } from "../writer/group-commit.ts";
import { PendingCommits } from "../writer/pending-commits.ts";
import {
  LanesService, AuthenticatorService, ClockService, ClusterService, ConfigService, CountersService, DatabaseService, DayStatesService, FaultsService, HealthService,
  HttpService, LiveService, LogService, MaintenanceService, NotificationsService, PendingCommitsService, RollupsService, SitesService,
  SupervisorService, WritePoolService, WriterService,
} from "./services.ts";

export const BODY_LIMIT = 64 * 1024;
// Backlog (submissions) at which site lanes wait before handing over more rows.
const WRITER_CAPACITY = 1024;
// The idle sweep runs every quarter of the idle time, and at least once a minute: an idle actor outlives
// SVC_LANE_IDLE_MS by at most a quarter of it (the default day: by at most a minute).
const IDLE_SWEEP_MAX_MS = 60_000;

export const transports: Record<"uws" | "node", HttpTransport> = { uws: uwsTransport, node: nodeTransport };

/** The database: the caller's (tests, which own it) or opened here and closed last (main.ts). */
export const databaseLayer = (given: Database | undefined) =>
  Layer.effect(
    DatabaseService,
    Effect.gen(function* () {
      const config = yield* ConfigService;
      const log = yield* LogService;
      if (given !== undefined) {
        guardPool(given.pool, (line) => log.warn(line));
        return given;
      }
      return yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: () => openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, log: (line) => log.info(line), waitForServer: true, limits: config.databasePools.shared }),
          catch: (error) => error,
        }),
        (database) => Effect.promise(() => database.close()),
      );
    }),
  );

/** The writer's and flusher's pool on the same database; ended after both have written their last rows. */
export const writePoolLayer = Layer.effect(
  WritePoolService,
  Effect.gen(function* () {
    const { url } = yield* DatabaseService;
    const config = yield* ConfigService;
    const log = yield* LogService;
    return yield* Effect.acquireRelease(
      Effect.sync(() => openWritePool(url, config.writerInFlight, config.databasePools.write, (line) => log.warn(line))),
      (pool) => Effect.promise(() => pool.end()),
    );
  }),
);

/** Reachability of PostgreSQL as every client reports it; the probe ends with the scope. */
export const healthLayer = Layer.effect(
  HealthService,
  Effect.gen(function* () {
    const { pool } = yield* DatabaseService;
    const log = yield* LogService;
    const health = new DatabaseHealth(pool, log);
    const onIdleError = (error: Error) => health.report(error);
    return yield* Effect.acquireRelease(
      Effect.sync(() => {
        pool.on("error", onIdleError);
        return health;
      }),
      () =>
        Effect.promise(() => {
          pool.off("error", onIdleError); // a caller-owned pool outlives this gateway (tests restart it)
          return health.close();
        }),
    );
  }),
);

/** domain → site, loaded at boot and kept current by the svc_sites NOTIFY listener (which reconnects by itself). */
export const sitesLayer = Layer.effect(
  SitesService,
  Effect.gen(function* () {
    const database = yield* DatabaseService;
    const log = yield* LogService;
    const clock = yield* ClockService;
    return yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const sites = new SiteCache(database.pool, database.url, log, clock.now);
          await sites.start();
          return sites;
        },
        catch: (error) => error,
      }),
      (sites) => Effect.promise(() => sites.stop()),
    );
  }),
);

export const pendingCommitsLayer = Layer.sync(PendingCommitsService, () => new PendingCommits());

/**
 * The day states of the last clean stop, read (and deleted) before the crash repair; on release, after the
 * final rollup flush, the drained lanes' states are saved so that a clean restart replays nothing.
 */
export const dayStatesLayer = Layer.effect(
  DayStatesService,
  Effect.gen(function* () {
    const { pool } = yield* DatabaseService;
    const clock = yield* ClockService;
    const log = yield* LogService;
    const config = yield* ConfigService;
    // In a cluster a site's next owner rebuilds it from the raw rows: the saved states are one gateway's (its
    // boot reads and deletes them all), so none is read or saved.
    const loaded = config.cluster !== null ? [] : yield* Effect.tryPromise({ try: () => loadDayStates(pool, clock.now(), log), catch: (error) => error });
    const store: { loaded: typeof loaded; source: (() => typeof loaded) | null } = { loaded, source: null };
    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        if (store.source !== null && config.cluster === null) await saveDayStates(pool, store.source(), log);
      }),
    );
    return store;
  }),
);

/** The live hub and its flush/heartbeat loop, supervised. */
export const liveLayer = Layer.effect(
  LiveService,
  Effect.gen(function* () {
    const clock = yield* ClockService;
    const supervisor = yield* SupervisorService;
    const hub = new LiveHub(clock.now, yield* FaultsService);
    yield* Effect.addFinalizer(() => Effect.sync(() => hub.stop()));
    yield* Effect.forkScoped(supervisor.supervise("live_hub", hub.loop(), () => Effect.sync(() => hub.crashed())));
    return hub;
  }),
);

/**
 * SVC_CLUSTER: the owner session holding the site locks (cluster/ownership.ts) and the channel to the other
 * gateways (cluster/peers.ts). Released after the writer and the final rollup flush: closing the session
 * releases every lock this gateway held.
 */
export const clusterLayer = Layer.effect(
  ClusterService,
  Effect.gen(function* () {
    const config = yield* ConfigService;
    if (config.cluster === null) return null;
    const database = yield* DatabaseService;
    const log = yield* LogService;
    const hub = yield* LiveService;
    const { name, ownerTimeoutMs } = config.cluster;
    const ownership = yield* Effect.acquireRelease(
      Effect.sync(() => new SiteOwnership({ url: database.url, name, timeoutMs: ownerTimeoutMs, limits: config.databasePools.write, log })),
      (o) => Effect.promise(() => o.close()),
    );
    const peers = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const p = new ClusterPeers(database.pool, database.url, name, hub, log);
          await p.start();
          return p;
        },
        catch: (error) => error,
      }),
      (p) => Effect.promise(() => p.stop()),
    );
    log.info("cluster member: sites are owned through PostgreSQL advisory locks", { gateway: name, owner_timeout_ms: ownerTimeoutMs });
    return { ownership, peers };
  }),
);

/**
 * The rollup ledger and its periodic flush, supervised. Before anything is counted, the rollups a killed
 * gateway left unwritten are recomputed. Released after the writer: the final flush writes every count and
 * clears the repair mark.
 */
export const rollupsLayer = (write: WriteRollupsFn | undefined) =>
  Layer.effect(
    RollupsService,
    Effect.gen(function* () {
      const pool = yield* WritePoolService;
      const config = yield* ConfigService;
      const clock = yield* ClockService;
      const log = yield* LogService;
      const health = yield* HealthService;
      const supervisor = yield* SupervisorService;
      const live = yield* LiveService;
      const cluster = yield* ClusterService;
      // Built after the day states were read: the repair sets the mark that tells a clean stop from a killed one.
      yield* DayStatesService;
      // In a cluster each site's rollups are recounted by whoever takes it over (lanes/site-lane.ts) or adopts it
      // (cluster/orphans.ts, also the boot repair), and a flush writes only the counts of sites still locked on the
      // owner session: a lost site's counts go to its next owner's recount.
      if (cluster === null) yield* Effect.tryPromise({ try: () => repairAfterCrash(pool, clock.now(), log), catch: (error) => error });
      const clusterWrite: WriteRollupsFn | undefined =
        cluster === null
          ? undefined
          : (_pool, deltas, lagFrom) => cluster.ownership.run((session, owned) => writeRollups(session, deltas.filter((d) => owned.has(d.site_id)), lagFrom));
      const writeFn = write ?? clusterWrite;
      const flusher = new RollupFlusher({
        pool,
        intervalMs: config.rollupFlushMs,
        now: clock.now,
        log,
        pending: yield* PendingCommitsService,
        faults: yield* FaultsService,
        onWriteError: (error) => health.report(error),
        databaseUp: () => health.up,
        onLedgerTaken: () => live.sendPending(),
        ...(writeFn ? { write: writeFn } : {}),
      });
      yield* Effect.addFinalizer(() =>
        Effect.promise(() => flusher.finalFlush().catch((error: unknown) => log.error("final rollup flush failed; the next boot recounts", { error: String(error) }))),
      );
      yield* Effect.forkScoped(supervisor.supervise("rollup_flusher", flusher.loop()));
      return flusher;
    }),
  );

/** The group-commit writer and its batching loop, supervised; released after the lanes have drained into it. */
export const writerLayer = (commit: CommitFn) =>
  Layer.effect(
    WriterService,
    Effect.gen(function* () {
      const pool = yield* WritePoolService;
      const config = yield* ConfigService;
      const log = yield* LogService;
      const health = yield* HealthService;
      const rollups = yield* RollupsService;
      const live = yield* LiveService;
      const cluster = yield* ClusterService;
      const supervisor = yield* SupervisorService;
      const writer = new GroupCommitWriter({
        pool,
        commit: cluster === null ? commit : cluster.ownership.fencedCommit(commit),
        batchMaxRows: config.batchMaxRows,
        flushMs: config.flushMs,
        inFlight: config.writerInFlight,
        capacity: WRITER_CAPACITY,
        log,
        pending: yield* PendingCommitsService,
        faults: yield* FaultsService,
        onCommitError: (error) => health.report(error),
        onCommitted: (deltas) => {
          rollups.ledger.add(deltas);
          live.publish(deltas);
          cluster?.peers.publish(deltas);
        },
      });
      const loop = yield* Effect.forkScoped(supervisor.supervise("writer", writer.loop(), (error) => Effect.sync(() => writer.crashed(error))));
      yield* Effect.addFinalizer(() =>
        Effect.gen(function* () {
          yield* writer.end();
          yield* Fiber.await(loop);
          yield* Effect.promise(() => writer.commitsFinished());
          writer.releaseConnections();
        }),
      );
      return writer;
    }),
  );

/** The site lanes (supervised, one fiber each) and the idle sweep; released by draining every mailbox. */
export const lanesLayer = Layer.effect(
  LanesService,
  Effect.gen(function* () {
    const { pool } = yield* DatabaseService;
    const config = yield* ConfigService;
    const clock = yield* ClockService;
    const log = yield* LogService;
    const writer = yield* WriterService;
    const rollups = yield* RollupsService;
    const cluster = yield* ClusterService;
    const fibers = yield* FiberSet.make<void>();
    const replaceRollups = (id: number, dayStart: number, counts: Parameters<typeof replaceDayRollups>[3]) =>
      cluster === null
        ? replaceDayRollups(pool, id, dayStart, counts)
        : cluster.ownership.run((session, owned) => {
            cluster.ownership.assertOwned(owned, [id]);
            return replaceDayRollups(session, id, dayStart, counts);
          });
    // A retired lane's counts are written while its lock is held, then the lock goes: its next owner's
    // recount starts from rollups that hold every row this gateway committed.
    const retired = async (siteIds: readonly number[]) => {
      if (cluster === null) return;
      await rollups.flush().catch((error: unknown) => log.warn("rollup flush before releasing sites failed; their next owner recounts them", { error: String(error) }));
      for (const id of siteIds) await cluster.ownership.release(id);
    };
    const replaceDay = (id: number, dayStart: number, counts: Parameters<typeof replaceDayRollups>[3]) =>
      rollups.exclusive(async (ledger) => {
        ledger.dropDay(id, dayStart);
        rollups.reportRefused(await replaceRollups(id, dayStart, counts));
      });
    const registry = new LaneRegistry(
      { mailboxSize: config.mailboxSize, idleMs: config.laneIdleMs, supervisor: yield* SupervisorService, fibers, retired },
      {
        pool,
        clock,
        writer,
        log,
        faults: yield* FaultsService,
        budget: config.stateBudget,
        replayBatchRows: config.replayBatchRows,
        loadSalt: (id, day) => saltForDay(pool, id, day),
        replaceDay,
        ownership:
          cluster === null
            ? null
            : { owns: (id) => cluster.ownership.owns(id), acquire: (id) => cluster.ownership.acquire(id), requestRelease: (id) => cluster.peers.requestRelease(id) },
      },
    );
    if (cluster !== null) {
      cluster.ownership.onLost((sites) => {
        rollups.ledger.dropSites(new Set(sites));
        for (const id of sites) registry.find(id)?.invalidate();
      });
      const sweeper = new OrphanSweeper({
        pool,
        ownership: cluster.ownership,
        log,
        now: clock.now,
        hasLane: (id) => registry.find(id) !== undefined,
        recount: async (id, day) => replaceDay(id, day, (await recountDay(pool, id, day, { counts: true, batchRows: config.replayBatchRows }, config.stateBudget)).counts),
      });
      const mark = yield* Effect.tryPromise({ try: () => readRepairMark(pool), catch: (error) => error });
      yield* Effect.tryPromise({ try: () => setRepairMark(pool, clock.now() - (clock.now() % HOUR_MS) - HOUR_MS), catch: (error) => error });
      if (mark !== null) {
        // Some gateway did not stop cleanly: every site nobody holds is recounted, site by site under its lock,
        // while this one already serves (its lanes recount what they take over themselves).
        const started = performance.now();
        void sweeper.repairFrom(mark).then(
          (sites) => log.warn("a gateway of the cluster did not stop cleanly: rollups of sites without an owner recounted", { from: new Date(mark).toISOString(), sites, ms: Math.round(performance.now() - started) }),
          (error: unknown) => log.error("repair of sites without an owner failed; their next owner recounts them", { error: String(error) }),
        );
      }
      sweeper.start();
      yield* Effect.addFinalizer(() => Effect.promise(() => sweeper.stop()));
      cluster.peers.onRelease((id) => {
        Effect.runFork(
          Effect.flatMap(registry.releaseIfQuiet(id, clock.now(), RELEASE_QUIET_MS), (released) =>
            Effect.sync(() => released && log.info("site released to another gateway", { site: id })),
          ),
        );
      });
    }
    const dayStates = yield* DayStatesService;
    registry.restore(dayStates.loaded);
    dayStates.source = () => registry.snapshots();
    yield* Effect.addFinalizer(() => registry.stop());
    const sweepMs = Math.min(Math.ceil(config.laneIdleMs / 4), IDLE_SWEEP_MAX_MS);
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.gen(function* () {
          yield* Effect.sleep(sweepMs);
          const stopped = yield* registry.stopIdle(clock.now());
          if (stopped > 0) log.info("idle site lanes stopped", { lanes: stopped, idle_ms: config.laneIdleMs });
        }),
      ),
    );
    return registry;
  }),
);

/** Partitions, salts, retention: once at boot, then every minute, supervised. */
export const maintenanceLayer = (intervalMs: number | undefined) =>
  Layer.effect(
    MaintenanceService,
    Effect.gen(function* () {
      const { pool } = yield* DatabaseService;
      const supervisor = yield* SupervisorService;
      const maintenance = new Maintenance(pool, yield* ClockService, yield* LogService, yield* FaultsService, intervalMs);
      yield* Effect.tryPromise({ try: () => maintenance.runOnce(), catch: (error) => error });
      yield* Effect.forkScoped(supervisor.supervise("maintenance", maintenance.loop()));
      return maintenance;
    }),
  );

// Reports and alerts are checked every minute: an alert lags its condition by at most that, and a report its
// period's end by at most that.
const NOTIFY_EVERY_MS = 60_000;

/**
 * The mailer (SVC_SMTP_URL) and the notifier with its minute task. Released before the lanes drain: the task
 * stops, deliveries in flight (webhook retries, ≤ ~7 s) finish, the SMTP pool closes.
 */
export const notificationsLayer = (retryBaseMs: number | undefined) =>
  Layer.effect(
    NotificationsService,
    Effect.gen(function* () {
      const { pool } = yield* DatabaseService;
      const config = yield* ConfigService;
      const clock = yield* ClockService;
      const log = yield* LogService;
      const lanes = yield* LanesService;
      const engine = yield* QueryService;
      const mailer = config.mail ? createMailer(config.mail) : null;
      const notifier = new Notifier({
        src: { pool, cache: new SettledCache(clock.now), now: clock.now },
        engine,
        clock,
        mailer,
        detector: new AnomalyDetector(pool, clock.now),
        recentVisitors: (siteId, windowMs) => lanes.get(siteId).recentVisitors(windowMs),
        publicUrl: config.publicUrl ?? "",
        log,
        secrets: config.secrets,
        redact: createRedactor(config.secrets),
        ...(retryBaseMs !== undefined ? { retryBaseMs } : {}),
      });
      const task = new PeriodicTask({ name: "reports and alerts", everyMs: NOTIFY_EVERY_MS, log, run: (signal) => notifier.runDue(signal) });
      yield* Effect.acquireRelease(
        Effect.sync(() => task.start()),
        () =>
          Effect.promise(async () => {
            await task.stop();
            await notifier.settled();
            mailer?.close();
          }),
      );
      return { notifier, mailer };
    }),
  );

export const authLayer = Layer.effect(
  AuthenticatorService,
  Effect.gen(function* () {
    const { pool } = yield* DatabaseService;
    const config = yield* ConfigService;
    const clock = yield* ClockService;
    const log = yield* LogService;
    const web = { production: config.production, trustProxy: config.trustProxy, allowedOrigins: config.allowedOrigins };
    return yield* Effect.tryPromise({ try: () => createAuthenticator({ pool, config: config.auth, clock, log, web, failedCredentialsPerMinute: config.failedCredentialsPerMinute }), catch: (error) => error });
  }),
);

/**
 * The routes and the listening socket. Released first: live streams end, the socket stops accepting, and
 * requests in flight are answered before the lanes drain.
 */
export const httpLayer = (transportOverride: HttpTransport | undefined) =>
  Layer.effect(
    HttpService,
    Effect.gen(function* () {
      const config = yield* ConfigService;
      const log = yield* LogService;
      const clock = yield* ClockService;
      const { pool } = yield* DatabaseService;
      const health = yield* HealthService;
      const sites = yield* SitesService;
      const lanes = yield* LanesService;
      const writer = yield* WriterService;
      const rollups = yield* RollupsService;
      const live = yield* LiveService;
      const maintenance = yield* MaintenanceService;
      const auth = yield* AuthenticatorService;
      const counters = yield* CountersService;
      const supervisor = yield* SupervisorService;
      const engine = yield* QueryService;
      const notifications = yield* NotificationsService;
      const cluster = yield* ClusterService;

      const country = openCountryLookup(config.geoipPath);
      const tracker = loadTrackerAsset(config.trackerPath);
      if (!tracker.available) log.warn("tracker script not built; /js/svc.js answers 404 until `npm run build:tracker`", { path: config.trackerPath });
      const adaptersPackage = loadAdaptersPackage(config.adaptersPackagePath);
      if (!adaptersPackage.available) log.warn("middleware package not built; /adapters.tgz answers 404 until `npm run build:adapters`", { path: config.adaptersPackagePath });
      const flushRollups = () => rollups.flushBeforeRead();

      const web = { production: config.production, trustProxy: config.trustProxy, allowedOrigins: config.allowedOrigins };
      const limits = createIngestLimits({ eventRatePerClient: config.eventRatePerClient, hitRatePerSite: config.hitRatePerSite, now: clock.now });
      const routes = new OperationRoutes({ auth, pool, clock, flushRollups });
      authRoutes(routes, { auth, web, now: clock.now, log });
      ingestRoutes(routes, { sites, lanes, country, trustProxy: config.trustProxy, counters, health, limits });
      publicRoutes(routes, {
        pool, sites, tracker, adaptersPackage, country, lanes, writer, rollups, counters, live, health, supervisor,
        defaultPartitionRows: () => maintenance.defaultRows, limits: limits.stats, authenticate: auth.authenticate,
        cluster: cluster === null ? null : () => ({ gateway: config.cluster?.name, ownership: cluster.ownership.stats, peers: cluster.peers.stats }),
      });
      siteRoutes(routes, { pool, sites, lanes, flushRollups });
      goalRoutes(routes, pool, engine);
      funnelRoutes(routes, pool, engine);
      segmentRoutes(routes, pool, engine);
      // The settled-days caches of the reads and of insights; a history import drops its site from both.
      const readCache = new SettledCache(clock.now);
      const insightsCache = new SettledCache(clock.now);
      readRoutes(routes, { pool, clock, cache: readCache, engine });
      queryRoutes(routes, { pool, engine });
      importRoutes(routes, {
        pool, clock,
        imported: async (siteId, days) => {
          for (const cache of [readCache, insightsCache]) cache.forgetSite(siteId);
          if (days !== null) await engine.invalidateDays(siteId, days.from, days.to);
        },
      });
      liveRoutes(routes, {
        pool, clock, hub: live, lanes, authenticate: auth.authenticate, credentialId: auth.credentialId,
        streamsPerCredential: config.liveStreamsPerCredential, flushRollups,
      });
      teamRoutes(routes, { pool, llm: config.llm });
      exportRoutes(routes, { pool, log });
      notificationRoutes(routes, { pool, clock, mailer: notifications.mailer, publicUrl: config.publicUrl, log, redact: createRedactor(config.secrets) });
      // Shared links' streams: one hub subscription per watched link, and the revocation sweep, for this layer's life.
      const shareStreams = new ShareStreams({
        hub: live,
        recentVisitors: (siteId, windowMs) => lanes.get(siteId).recentVisitors(windowMs),
        segmentVisitors: async (share, actors, windowMs) => {
          // The engine reads rows from PostgreSQL: every acknowledged one is written first.
          await flushRollups();
          const site = await findSiteById(pool, share.site_id);
          return site === null ? 0 : filteredRecentVisitors(engine, site, share.filters, actors, clock.now(), windowMs);
        },
        existing: (ids) => existingShareIds(pool, ids),
        log,
      });
      // The sweep catches its own failures (a database hiccup is retried at the next turn), so it needs no supervisor.
      yield* Effect.forkScoped(shareStreams.loop());
      shareRoutes(routes, { pool, clock, lanes, streams: shareStreams, flushRollups, publicUrl: config.publicUrl, trustProxy: config.trustProxy, log, engine });
      // Anomalies and insights read rollups; two scheduled tasks (hourly anomaly scan, weekly insights) live
      // as long as this layer.
      const detector = new AnomalyDetector(pool, clock.now);
      const insights = new InsightsService({
        src: { pool, cache: insightsCache, now: clock.now }, llm: config.llm, log,
        redact: createRedactor(config.secrets),
        openFlags: async (siteId, days) => (await detector.report(siteId, days)).flags,
      });
      // Runs answered 202 go on in the background: aborted and awaited before the pool closes.
      yield* Effect.addFinalizer(() => Effect.promise(() => insights.stop()));
      anomalyRoutes(routes, detector);
      insightRoutes(routes, { insights, flushRollups });
      openapiRoutes(routes);
      // Throws (failing the boot) while an operation of api-schema/operations.ts has no handler.
      const router = routes.router();
      const scheduled = [anomalyScan(pool, detector, log), insightsSchedule(insights, config.llm.insightsEveryHours, log)].flatMap((t) => (t ? [t] : []));
      yield* Effect.acquireRelease(
        Effect.sync(() => scheduled.forEach((task) => task.start())),
        () => Effect.promise(() => Promise.all(scheduled.map((task) => task.stop()))),
      );

      const transport = transportOverride ?? transports[config.transport];
      const server = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: () =>
            transport.listen({
              host: config.host,
              port: config.port,
              bodyLimit: BODY_LIMIT,
              streamsBody,
              headersRead: ingestHeadersRead,
              tooLarge: () => {
                counters.count("body_too_large");
                return errorResponse(new ApiError("body_too_large"));
              },
              closing: () => errorResponse(new ApiError("unavailable", "shutting down")),
              handler: router.handler(),
              onHandlerError: (error) => {
                if (error instanceof ApiError) return errorResponse(error);
                // A lost connection (answered 503 by errorResponse) starts the health probe; anything else is a bug.
                if (isConnectionError(error)) health.report(error);
                else log.error("unhandled error in a route", { error: error instanceof Error ? error.message : String(error) });
                return errorResponse(error);
              },
            }),
          catch: (error) => error,
        }),
        (server) =>
          Effect.promise(async () => {
            live.stop();
            shareStreams.stop();
            await server.close();
          }),
      );
      log.info("gateway listening", { port: server.port, transport: transport.name, sites: sites.size, trust_proxy: config.trustProxy.source });
      if (config.hostReason === "placeholder secret") {
        log.warn("listening on the loopback interface (127.0.0.1) only: a shipped placeholder secret is in use. Set SVC_ADMIN_PASSWORD and SVC_JWT_SECRET, then SVC_HOST, to accept other machines.");
      }
      return server;
    }),
  );

export interface GatewayLayerOptions {
  readonly database?: Database;
  readonly transport?: HttpTransport;
  readonly commit?: CommitFn;
  readonly writeRollups?: WriteRollupsFn;
  readonly maintenanceIntervalMs?: number;
  /** Tests shorten the first webhook retry delay (1 s). */
  readonly webhookRetryBaseMs?: number;
}

/** Everything but the base services (config, log, clock, counters, supervisor, faults), wired by dependency. */
export const gatewayLayer = (options: GatewayLayerOptions) =>
  httpLayer(options.transport).pipe(
    Layer.provideMerge(notificationsLayer(options.webhookRetryBaseMs)),
    Layer.provideMerge(Layer.mergeAll(lanesLayer, maintenanceLayer(options.maintenanceIntervalMs), authLayer, queryLayer())),
    Layer.provideMerge(writerLayer(options.commit ?? commitRows)),
    Layer.provideMerge(rollupsLayer(options.writeRollups)),
    Layer.provideMerge(clusterLayer),
    Layer.provideMerge(liveLayer),
    Layer.provideMerge(Layer.mergeAll(sitesLayer, healthLayer, pendingCommitsLayer, dayStatesLayer, writePoolLayer)),
    Layer.provideMerge(databaseLayer(options.database)),
  );
