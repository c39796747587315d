// Shared links. The owner's side (admin scope, through the site preamble): make, list and delete links. The
// viewer's side needs no account: `/api/share/{token}/…` reads the link's site read-only — stats, breakdowns,
// goals, property names, funnels, the AI panel and the live stream the owner's view reads, restricted to the
// link's actor and filters (the viewer's own filters, where a read takes them, only narrow them further) —
// plus the embeddable counter's stream. A link with a password first needs `POST …/unlock`, limited like login
// (10 attempts a minute per client, growing delays per link after 5 failures), whose access key the reads take
// as their `access` query parameter (a browser's EventSource cannot send headers).
//
// Tokens are never logged: log lines name a link by its id.
import type { Clock } from "@svc/core";
import type pg from "pg";
import type { ActorChoice } from "../api-schema/common.ts";
import { DEFAULT_LIMIT } from "../api-schema/read.ts";
import { AccountLockout, LoginLimiter } from "../auth/login-limiter.ts";
import { ApiError } from "../errors.ts";
import type { HttpRequest, HttpResponse } from "../http/transport.ts";
import { type TrustProxy, clientIp } from "../ingest/client-ip.ts";
import type { LaneRegistry } from "../lanes/registry.ts";
import { HEARTBEAT_MS, sse } from "../live/hub.ts";
import type { Logger } from "../log.ts";
import { type RollupSource, aiReport, breakdownReport, statsReport } from "../read/reports.ts";
import { SettledCache } from "../read/settled-cache.ts";
import { queryWindow } from "../read/window.ts";
import { filteredAi, filteredBreakdown, filteredStats } from "../shares/filtered-reads.ts";
import { type Filter, checkShareFilters, checkViewFilters } from "../shares/share-filters.ts";
import { SHARE_TOKEN, generateShareToken, hashSharePassword, hashShareToken, issueShareAccess, shareAccessValid, verifySharePassword } from "../shares/share-secrets.ts";
import type { ShareStreamKind, ShareStreams } from "../shares/share-streams.ts";
import { restrictLive } from "../shares/share-streams.ts";
import { type ShareRecord, type SharedSite, deleteShare, findSharedSite, insertShare, listShares } from "../storage/shares.ts";
import type { SiteRecord } from "../storage/sites.ts";
import { goalsReport } from "./goals.ts";
import { funnelIdOf, funnelReport, toFunnel } from "./funnels.ts";
import { propKeys } from "../read/prop-keys.ts";
import { findFunnel, listFunnels } from "../storage/funnels.ts";
import type { QueryEngine } from "../query/engine.ts";
import { parseQuery } from "../query/request.ts";
import { findSiteById } from "../storage/sites.ts";
import { jsonResponse } from "./json-response.ts";
import { SSE_HEADERS, liveSnapshot } from "./live.ts";
import type { OperationRoutes } from "./operation-routes.ts";

export interface ShareRouteDeps {
  readonly pool: pg.Pool;
  readonly clock: Clock;
  readonly lanes: LaneRegistry;
  readonly streams: ShareStreams;
  /** Resolves once every acknowledged row's counts are in the rollup tables. */
  readonly flushRollups: () => Promise<void>;
  /** SVC_PUBLIC_URL: the dashboard's origin, for the link's `url`. */
  readonly publicUrl: string | null;
  readonly trustProxy: TrustProxy;
  readonly log: Logger;
  /** Page-path goals, and every read of a link with fixed filters, are counted by the query engine. */
  readonly engine: QueryEngine;
}

const describe = (s: ShareRecord) => ({
  id: s.id,
  site_id: s.site_id,
  password_protected: s.password_hash !== null,
  filters: s.filters,
  actor: s.actor,
  frame_origins: s.frame_origins,
  created_at: s.created_at.toISOString(),
});

const SHARE_ID = /^\d{1,10}$/;
const UNKNOWN_LINK = "unknown or revoked shared link";

export function shareRoutes(routes: OperationRoutes, deps: ShareRouteDeps): void {
  const { pool, clock, log } = deps;
  const src: RollupSource = { pool, cache: new SettledCache(clock.now), now: clock.now };
  const limiter = new LoginLimiter(clock.now);
  const lockout = new AccountLockout(clock.now);

  /** The link named by {token}, its password checked by the request's access key. */
  async function open(req: HttpRequest, params: Readonly<Record<string, string>>, options: { locked?: "allowed" } = {}): Promise<{ share: SharedSite; unlocked: boolean }> {
    const token = params["token"]!;
    const share = SHARE_TOKEN.test(token) ? await findSharedSite(pool, hashShareToken(token)) : null;
    if (share === null) throw new ApiError("not_found", UNKNOWN_LINK);
    const unlocked = share.password_hash === null || shareAccessValid(req.query.get("access") ?? undefined, share.id, share.password_hash, clock.now());
    if (!unlocked && options.locked !== "allowed") throw new ApiError("unauthorized", "this shared link needs its password: POST /api/share/{token}/unlock, then send the access key as ?access=");
    return { share, unlocked };
  }

  /** The actor a shared read counts: the link's own, or the viewer's choice when the link names none. */
  function actorOf(share: SharedSite, asked: ActorChoice | undefined): ActorChoice {
    if (share.actor === null) return asked ?? "human";
    if (asked !== undefined && asked !== share.actor) throw new ApiError("forbidden", `this shared link shows only actor ${share.actor}`);
    return share.actor;
  }

  /** The read's window in the site's zone, as the owner's reads resolve it (site-scope.ts). */
  const windowOf = (share: SharedSite, q: { days?: number; hours?: number }, actor: ActorChoice) => queryWindow(clock.now(), q, actor, share.time_zone);

  /** The link's site, as the query engine reads it (its zone and retention). */
  async function siteOf(share: SharedSite): Promise<SiteRecord> {
    const site = await findSiteById(pool, share.site_id);
    if (site === null) throw new ApiError("not_found", UNKNOWN_LINK);
    return site;
  }

  /**
   * The rows a read of the link counts: the link's fixed filters, then the viewer's own (`filters`, a JSON array
   * checked as a query's, 400 naming `filters[i]`), joined with "and": a viewer narrows the view, never widens it.
   */
  async function segmentOf(share: SharedSite, viewer: string | undefined): Promise<readonly Filter[]> {
    return [...share.filters, ...(await checkViewFilters(deps.engine, share.domain, viewer))];
  }

  function stream(share: SharedSite, kind: ShareStreamKind, opening: string | null): HttpResponse {
    if (!deps.streams.hasRoom(share.id)) {
      throw new ApiError("rate_limited", "this shared link has too many open streams on this server; retry later", undefined, { "retry-after": String(HEARTBEAT_MS / 1000) });
    }
    return {
      status: 200,
      headers: SSE_HEADERS,
      stream: (sink) => {
        sink.write(`retry: 2000\n${opening ?? ""}`);
        if (!deps.streams.add(share, kind, sink)) {
          sink.write(sse("limit", { reason: "too many open streams of this shared link" }));
          sink.end();
        }
      },
    };
  }

  routes
    .site("POST /api/sites/{id}/shares", async ({ site, body, principal }) => {
      const token = generateShareToken();
      const share = await insertShare(pool, {
        siteId: site.id,
        tokenHash: hashShareToken(token),
        passwordHash: body.password === undefined ? null : await hashSharePassword(body.password),
        filters: await checkShareFilters(deps.engine, site.domain, body.filters ?? []),
        actor: body.actor ?? null,
        frameOrigins: (body.frame_origins ?? []).map((o) => o.toLowerCase()),
      });
      log.info("shared link created", { site_id: site.id, share_id: share.id, by: principal.subject });
      return jsonResponse(201, { ...describe(share), token, url: `${deps.publicUrl ?? ""}/share/${token}` });
    })
    .site("GET /api/sites/{id}/shares", async ({ site }) => jsonResponse(200, { shares: (await listShares(pool, site.id)).map(describe) }))
    .site("DELETE /api/sites/{id}/shares/{shareId}", async ({ site, params, principal }) => {
      const raw = params["shareId"]!;
      // 2^31 - 1: the largest value of the integer id column.
      if (!SHARE_ID.test(raw) || Number(raw) > 2_147_483_647 || !(await deleteShare(pool, site.id, Number(raw)))) throw new ApiError("not_found", "unknown shared link");
      deps.streams.revoke(Number(raw));
      log.info("shared link deleted", { site_id: site.id, share_id: Number(raw), by: principal.subject });
      return { status: 204 };
    })
    .on("GET /api/share/{token}", async ({ req, params }) => {
      const { share, unlocked } = await open(req, params, { locked: "allowed" });
      // The origins allowed to frame it are public anyway (the embed's CSP header names them): the dashboard
      // needs them to answer the embed's page before the viewer typed the password.
      if (!unlocked) return jsonResponse(200, { password_required: true, frame_origins: share.frame_origins });
      return jsonResponse(200, {
        password_required: false,
        site: { domain: share.domain, name: share.site_name, time_zone: share.time_zone },
        actor: share.actor,
        filters: share.filters,
        frame_origins: share.frame_origins,
      });
    })
    .on("POST /api/share/{token}/unlock", async ({ req, params, body: decode }) => {
      const decision = limiter.attempt(clientIp(req.remoteAddress, req.headers["x-forwarded-for"], deps.trustProxy));
      if (!decision.ok) throw new ApiError("rate_limited", "too many password attempts; retry later", undefined, { "retry-after": String(decision.retryAfterSeconds) });
      const { share } = await open(req, params, { locked: "allowed" });
      const body = decode();
      if (share.password_hash === null) throw new ApiError("conflict", "this shared link has no password");
      const account = `share:${share.id}`;
      const wait = lockout.check(account);
      if (!wait.ok) throw new ApiError("rate_limited", "too many wrong passwords for this link; retry later", undefined, { "retry-after": String(wait.retryAfterSeconds) });
      if (!(await verifySharePassword(body.password, share.password_hash))) {
        lockout.failed(account);
        log.warn("shared link: wrong password", { share_id: share.id });
        throw new ApiError("unauthorized", "wrong password");
      }
      lockout.succeeded(account);
      const { access, expiresAt } = issueShareAccess(share.id, share.password_hash, clock.now());
      return jsonResponse(200, { access, expires_at: new Date(expiresAt).toISOString() });
    })
    .on("GET /api/share/{token}/stats", async ({ req, params, query }) => {
      const { share } = await open(req, params);
      const q = query();
      const actor = actorOf(share, q.actor);
      await deps.flushRollups();
      if (share.filters.length > 0) {
        const site = await siteOf(share);
        return jsonResponse(200, await filteredStats({ engine: deps.engine, site, filters: share.filters, actor, window: windowOf(share, q, actor), gone: () => req.aborted }));
      }
      return jsonResponse(200, await statsReport(pool, share.site_id, actor, windowOf(share, q, actor)));
    })
    .on("GET /api/share/{token}/breakdown", async ({ req, params, query }) => {
      const { share } = await open(req, params);
      const q = query();
      const actor = q.actor === undefined && q.field === "rule" && share.actor === null ? "all" : actorOf(share, q.actor);
      const limit = q.limit ?? DEFAULT_LIMIT;
      await deps.flushRollups();
      if (share.filters.length > 0) {
        const site = await siteOf(share);
        return jsonResponse(200, await filteredBreakdown({ engine: deps.engine, site, filters: share.filters, actor, window: windowOf(share, q, actor), gone: () => req.aborted }, q.field, limit));
      }
      return jsonResponse(200, await breakdownReport(src, share.site_id, actor, windowOf(share, q, actor), q.field, limit));
    })
    .on("GET /api/share/{token}/ai", async ({ req, params, query }) => {
      const { share } = await open(req, params);
      // The panel is made of the other actors' numbers: not for a link restricted to one.
      if (share.actor !== null) throw new ApiError("forbidden", `this shared link shows only actor ${share.actor}`);
      const q = query();
      const limit = q.limit ?? DEFAULT_LIMIT;
      const filters = await segmentOf(share, q.filters);
      await deps.flushRollups();
      if (filters.length > 0) {
        const site = await siteOf(share);
        return jsonResponse(200, await filteredAi({ engine: deps.engine, site, filters, actor: "all", window: windowOf(share, q, "all"), gone: () => req.aborted }, limit));
      }
      return jsonResponse(200, await aiReport(src, share.site_id, windowOf(share, q, "all"), limit));
    })
    .on("POST /api/share/{token}/query", async ({ req, params, body: decode }) => {
      const { share } = await open(req, params);
      const body = decode() as Record<string, unknown>;
      if (body["site_id"] !== share.domain) throw new ApiError("forbidden", "this shared link answers only for its own site: site_id must be its domain");
      // The viewer's body judged on its own first, so a 400 names its own field (filters[0], not an index shifted by the link's).
      parseQuery(body);
      // "And" with the link's filters and actor: the answer is always inside the link's view.
      const linkActor = share.actor === null ? [] : [["is", "visit:actor", [share.actor]]];
      const plan = parseQuery({ ...body, filters: [...share.filters, ...((body["filters"] as unknown[] | undefined) ?? []), ...linkActor] });
      return jsonResponse(200, await deps.engine.run(await siteOf(share), plan, () => req.aborted));
    })
    .on("GET /api/share/{token}/goals", async ({ req, params, query }) => {
      const { share } = await open(req, params);
      const q = query();
      const actor = actorOf(share, q.actor);
      await deps.flushRollups();
      const site = await siteOf(share);
      return jsonResponse(200, await goalsReport(pool, deps.engine, site, actor, windowOf(share, q, actor), share.filters, () => req.aborted));
    })
    .on("GET /api/share/{token}/props", async ({ req, params, query }) => {
      const { share } = await open(req, params);
      // The keys of the link's rows only (its actor, or every actor; its filters): no name from outside the view.
      const window = windowOf(share, query(), share.actor ?? "all");
      return jsonResponse(200, { site_id: share.site_id, keys: await propKeys(deps.engine, await siteOf(share), window, share.filters, () => req.aborted) });
    })
    .on("GET /api/share/{token}/funnels", async ({ req, params }) => {
      const { share } = await open(req, params);
      return jsonResponse(200, { funnels: (await listFunnels(pool, share.site_id)).map(toFunnel) });
    })
    .on("GET /api/share/{token}/funnels/{funnelId}/result", async ({ req, params, query }) => {
      const { share } = await open(req, params);
      const q = query();
      const actor = actorOf(share, q.actor);
      const filters = await segmentOf(share, q.filters);
      const funnel = await findFunnel(pool, share.site_id, funnelIdOf(params));
      if (funnel === null) throw new ApiError("not_found", "unknown funnel");
      return jsonResponse(200, await funnelReport(deps.engine, await siteOf(share), funnel, actor, windowOf(share, q, actor), filters, () => req.aborted));
    })
    .on("GET /api/share/{token}/live", async ({ req, params }) => {
      const { share } = await open(req, params);
      await deps.flushRollups();
      const snapshot = await liveSnapshot(deps, { id: share.site_id, domain: share.domain });
      return stream(share, "view", sse("snapshot", restrictLive(share, snapshot)));
    })
    .on("GET /api/share/{token}/counter/live", async ({ req, params }) => {
      const { share } = await open(req, params);
      // "Visitors now": the lane's count of the last 5 minutes, or for a filtered link the query engine's count
      // of visitors with a matching row in them (share-streams.ts).
      return stream(share, "counter", null);
    });
}
