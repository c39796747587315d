// The gateway's services: one key per long-lived part. The layers in ./gateway-layers.ts build them; a
// part receives the others it needs from its layer, never through a late-bound reference.
import type { Clock } from "@svc/core";
import { Context } from "effect";
import type pg from "pg";
import type { LaneRegistry } from "../lanes/registry.ts";
import type { DayState } from "../lanes/snapshot.ts";
import type { AuthService } from "../auth/index.ts";
import type { GatewayConfig } from "../config.ts";
import type { RejectionCounters } from "../errors.ts";
import type { HttpServer } from "../http/transport.ts";
import type { LiveHub } from "../live/hub.ts";
import type { Logger } from "../log.ts";
import type { Maintenance } from "../maintenance.ts";
import type { Mailer } from "../notify/mailer.ts";
import type { Notifier } from "../notify/notifier.ts";
import type { RollupFlusher } from "../rollups/flusher.ts";
import type { SiteCache } from "../sites/site-cache.ts";
import type { Database } from "../storage/database.ts";
import type { DatabaseHealth } from "../storage/database-health.ts";
import type { FaultInjector } from "../supervision/faults.ts";
import type { Supervisor } from "../supervision/supervisor.ts";
import type { GroupCommitWriter } from "../writer/group-commit.ts";
import type { PendingCommits } from "../writer/pending-commits.ts";
import type { SiteOwnership } from "../cluster/ownership.ts";
import type { ClusterPeers } from "../cluster/peers.ts";

export class ConfigService extends Context.Service<ConfigService, GatewayConfig>()("svc/Config") {}
export class LogService extends Context.Service<LogService, Logger>()("svc/Log") {}
/** The injected clock for days, salts, stamps and idle times (tests set it). */
export class ClockService extends Context.Service<ClockService, Clock>()("svc/Clock") {}
export class CountersService extends Context.Service<CountersService, RejectionCounters>()("svc/Counters") {}
export class SupervisorService extends Context.Service<SupervisorService, Supervisor>()("svc/Supervisor") {}
export class FaultsService extends Context.Service<FaultsService, FaultInjector>()("svc/Faults") {}
/** The pool (and, for the embedded server, the server) the process uses. */
export class DatabaseService extends Context.Service<DatabaseService, Database>()("svc/Database") {}
/** The writer's and the rollup flusher's own pool (storage/pool-limits.ts), apart from reads and look-ups. */
export class WritePoolService extends Context.Service<WritePoolService, pg.Pool>()("svc/WritePool") {}
export class HealthService extends Context.Service<HealthService, DatabaseHealth>()("svc/DatabaseHealth") {}
export class SitesService extends Context.Service<SitesService, SiteCache>()("svc/Sites") {}
export class PendingCommitsService extends Context.Service<PendingCommitsService, PendingCommits>()("svc/PendingCommits") {}
export class LiveService extends Context.Service<LiveService, LiveHub>()("svc/Live") {}
export class RollupsService extends Context.Service<RollupsService, RollupFlusher>()("svc/Rollups") {}
export class WriterService extends Context.Service<WriterService, GroupCommitWriter>()("svc/Writer") {}
export class LanesService extends Context.Service<LanesService, LaneRegistry>()("svc/Lanes") {}
export class MaintenanceService extends Context.Service<MaintenanceService, Maintenance>()("svc/Maintenance") {}
export class AuthenticatorService extends Context.Service<AuthenticatorService, AuthService>()("svc/Authenticator") {}
/** Reports and alerts (run every minute) and the outbound mailer; the mailer is null without SVC_SMTP_URL. */
export class NotificationsService extends Context.Service<NotificationsService, { readonly notifier: Notifier; readonly mailer: Mailer | null }>()("svc/Notifications") {}
/** Several gateways on one database (SVC_CLUSTER): the site locks and the channel to the other gateways; null with one gateway. */
export class ClusterService extends Context.Service<ClusterService, { readonly ownership: SiteOwnership; readonly peers: ClusterPeers } | null>()("svc/Cluster") {}
export class HttpService extends Context.Service<HttpService, HttpServer>()("svc/Http") {}

/**
 * The site lanes' day states a clean stop saved (read at boot, before the crash repair marks the day) and,
 * once the actors exist, where the next clean stop takes theirs from.
 */
export interface DayStateStore {
  readonly loaded: readonly DayState[];
  source: (() => DayState[]) | null;
}
export class DayStatesService extends Context.Service<DayStatesService, DayStateStore>()("svc/DayStates") {}
