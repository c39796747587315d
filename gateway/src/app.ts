// The gateway process: the layers of src/layers/gateway-layers.ts built in one scope. `startGateway` is
// what main.ts runs and what the tests start in-process against a real PostgreSQL; `stop()` closes the
// scope, which releases every part in the reverse order of its dependencies.
import { type Clock, systemClock } from "@svc/core";
import { Context, Effect, Exit, Layer, Scope } from "effect";
import type { LaneRegistry } from "./lanes/registry.ts";
import type { Authenticator } from "./auth/index.ts";
import type { GatewayConfig } from "./config.ts";
import { RejectionCounters } from "./errors.ts";
import type { HttpTransport } from "./http/transport.ts";
import { gatewayLayer } from "./layers/gateway-layers.ts";
import {
  LanesService, AuthenticatorService, ClockService, ConfigService, CountersService, DatabaseService, FaultsService, HealthService,
  HttpService, LiveService, LogService, NotificationsService, RollupsService, SitesService, SupervisorService, WriterService,
} from "./layers/services.ts";
import type { Notifier } from "./notify/notifier.ts";
import { QueryService } from "./layers/query-layer.ts";
import type { QueryEngine } from "./query/engine.ts";
import type { LiveHub } from "./live/hub.ts";
import type { Logger } from "./log.ts";
import type { RollupFlusher, WriteRollupsFn } from "./rollups/flusher.ts";
import type { SiteCache } from "./sites/site-cache.ts";
import type { Database } from "./storage/database.ts";
import type { DatabaseHealth } from "./storage/database-health.ts";
import { FaultInjector } from "./supervision/faults.ts";
import { Supervisor } from "./supervision/supervisor.ts";
import type { CommitFn, GroupCommitWriter } from "./writer/group-commit.ts";

export { BODY_LIMIT, transports } from "./layers/gateway-layers.ts";

export interface GatewayOptions {
  readonly config: GatewayConfig;
  /** An open database the caller owns (tests); without it the gateway opens `config`'s and closes it on stop. */
  readonly database?: Database;
  readonly log: Logger;
  readonly clock?: Clock;
  readonly transport?: HttpTransport;
  /** The batch write, replaceable by tests that need a failing database at a chosen moment. */
  readonly commit?: CommitFn;
  /** The rollup write, replaceable the same way. */
  readonly writeRollups?: WriteRollupsFn;
  /** Tests shorten the maintenance loop's minute to see it crash and restart. */
  readonly maintenanceIntervalMs?: number;
  /** Tests shorten the first webhook retry delay (1 s). */
  readonly webhookRetryBaseMs?: number;
}

export interface Gateway {
  readonly port: number;
  readonly database: Database;
  readonly sites: SiteCache;
  readonly lanes: LaneRegistry;
  readonly writer: GroupCommitWriter;
  readonly rollups: RollupFlusher;
  readonly live: LiveHub;
  readonly health: DatabaseHealth;
  readonly counters: RejectionCounters;
  readonly supervisor: Supervisor;
  /** Test hook: make a supervised loop throw at its next turn. Not reachable from HTTP. */
  readonly faults: FaultInjector;
  /** Session, API key and (jwt mode) identity-provider checks for every non-public route. */
  readonly auth: Authenticator;
  /** Reports and alerts; tests call `runDue()` after setting the clock instead of waiting for the minute task. */
  readonly notifier: Notifier;
  /** The query engine (POST /api/v2/query, funnels); tests hold its admission slots to fill its queue. */
  readonly query: QueryEngine;
  /**
   * Stop accepting, answer what is in flight, drain mailboxes and the writer, write the last rollup counts.
   * Closes the database only when the gateway opened it.
   */
  stop(): Promise<void>;
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { config, log } = options;
  const supervisor = new Supervisor(log);
  const faults = new FaultInjector();
  const base = Layer.mergeAll(
    Layer.succeed(ConfigService, config),
    Layer.succeed(LogService, log),
    Layer.succeed(ClockService, options.clock ?? systemClock),
    Layer.succeed(CountersService, new RejectionCounters()),
    Layer.succeed(SupervisorService, supervisor),
    Layer.succeed(FaultsService, faults),
  );
  const layer = gatewayLayer(options).pipe(Layer.provideMerge(base));
  const scope = Effect.runSync(Scope.make());
  const built = await Effect.runPromiseExit(Layer.buildWithScope(layer, scope));
  if (Exit.isFailure(built)) {
    await Effect.runPromise(Scope.close(scope, built));
    throw squashed(built);
  }
  const services = built.value;
  const writer = Context.get(services, WriterService);
  const rollups = Context.get(services, RollupsService);
  let stopping: Promise<void> | null = null;
  return {
    port: Context.get(services, HttpService).port,
    database: Context.get(services, DatabaseService),
    sites: Context.get(services, SitesService),
    lanes: Context.get(services, LanesService),
    writer,
    rollups,
    live: Context.get(services, LiveService),
    health: Context.get(services, HealthService),
    counters: Context.get(services, CountersService),
    supervisor,
    faults,
    auth: Context.get(services, AuthenticatorService),
    notifier: Context.get(services, NotificationsService).notifier,
    query: Context.get(services, QueryService),
    stop: () => {
      stopping ??= Effect.runPromise(Scope.close(scope, Exit.void)).then(() =>
        log.info("gateway stopped", { batches: writer.stats.batches, rows: writer.stats.rows, rollup_flushes: rollups.stats.flushes }),
      );
      return stopping;
    },
  };
}

function squashed(exit: Exit.Failure<unknown, unknown>): unknown {
  const error = Exit.findError(exit);
  if (error._tag === "Success") return error.success;
  const defect = Exit.findDefect(exit);
  return defect._tag === "Success" ? defect.success : new Error("gateway start was interrupted");
}
