// Ingest as a named pipeline of small steps. Each step enriches or rejects; a rejection is an
// ApiError carrying a typed reason, and only errors.ts maps reasons to HTTP statuses.
//
//   /api/event: clientAddress → rate limit per client → parseJson → decode → resolveSite → enrich → deliver
//   /api/hit:   parseJson → decode → resolveSite → hit token → rate limit per site → enrich → deliver
//   deliver = the site lane: stamp, hash, drop IP, count → group commit → 202
import { Buffer } from "node:buffer";
import {
  type BrowserEvent, type ServerHit, classify, decodeBrowserEvent, decodeServerHits, dropEmailsFromEvent, dropEmailsFromHit,
  LIMITS, pagePath, parseDevice, storedText, trafficSource, urlHostname, utmFromUrl,
} from "@svc/core";
import { ApiError, databaseUnavailable, type RejectionCounters, rowsNotStored } from "../errors.ts";
import type { CountryLookup } from "../geo/country.ts";
import { type HttpRequest, type HttpResponse, LaterResponse } from "../http/transport.ts";
import type { LaneRegistry } from "../lanes/registry.ts";
import type { IngestMessage, PendingRow } from "../lanes/site-lane.ts";
import { type SiteCache, domainKey } from "../sites/site-cache.ts";
import type { SiteRecord } from "../storage/sites.ts";
import { checkHitToken, presentedHitToken } from "../sites/hit-token.ts";
import type { DatabaseHealth } from "../storage/database-health.ts";
import { clientIp, type TrustProxy } from "./client-ip.ts";
import type { IngestLimits } from "./rate-limits.ts";
import { addressId } from "./siphash.ts";

export interface IngestDeps {
  readonly sites: SiteCache;
  readonly lanes: LaneRegistry;
  readonly country: CountryLookup;
  readonly trustProxy: TrustProxy;
  readonly counters: RejectionCounters;
  readonly limits: IngestLimits;
  /** While the database is down, rows are refused at the door: nothing waits, nothing piles up. */
  readonly health: DatabaseHealth;
}

export function parseJson(body: Buffer | null): unknown {
  if (!body || body.length === 0) throw new ApiError("malformed_json", "empty body");
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    throw new ApiError("malformed_json");
  }
}

export function decodeEvent(json: unknown, counters: RejectionCounters): BrowserEvent {
  const decoded = decodeBrowserEvent(json);
  if (!decoded.ok) throw new ApiError("invalid_body", "invalid body", decoded.errors);
  if (decoded.droppedProps > 0) counters.count("props_dropped", decoded.droppedProps);
  const { event, dropped } = dropEmailsFromEvent(decoded.value);
  if (dropped > 0) counters.count("emails_dropped", dropped);
  return event;
}

export function decodeHits(json: unknown, counters: RejectionCounters): ServerHit[] {
  const decoded = decodeServerHits(json);
  if (!decoded.ok) throw new ApiError("invalid_body", "invalid body", decoded.errors);
  return decoded.value.map((raw) => {
    const { hit, dropped } = dropEmailsFromHit(raw);
    if (dropped > 0) counters.count("emails_dropped", dropped);
    return hit;
  });
}

export async function resolveSite(sites: SiteCache, domain: string): Promise<SiteRecord> {
  const resolved = sites.resolve(domain);
  const site = resolved instanceof Promise ? await resolved : resolved;
  if (!site) throw new ApiError("unknown_site");
  return site;
}

// The site lane fills these in (site-lane.ts); a row is built once, whole, so every row has one object shape
// from the pipeline to the COPY encoder (a spread and properties added later gave rows several shapes).
const NO_HASH = Buffer.alloc(0);

/** `id` is the address's `addressId` when the caller made it (ingest/siphash.ts): the country cache files it under it. */
export function enrichEvent(event: BrowserEvent, ua: string, ip: string, country: CountryLookup, id?: number): PendingRow {
  const who = classify({ ua, referrer: event.r, utm_source: event.utm.utm_source, js: true });
  const device = parseDevice(ua);
  const hostname = event.h ?? urlHostname(event.u);
  const traffic = trafficSource({ referrer: event.r, pageHost: hostname, utm: event.utm, assistant: who.actor === "human_via_ai" ? who.name : null });
  const utm = event.utm;
  return {
    kind: "event",
    ip,
    ua,
    key: "",
    hashedWith: null,
    row: {
      kind: "event", site_id: 0, ts: 0, name: event.n, page: pagePath(event.u), hostname, referrer_host: traffic.referrer_host,
      source: traffic.source, channel: traffic.channel, utm_source: utm.utm_source, utm_medium: utm.utm_medium,
      utm_campaign: utm.utm_campaign, utm_term: utm.utm_term, utm_content: utm.utm_content, country: country(ip, id),
      device: device.device, browser: device.browser, os: device.os, screen_width: event.w, actor: who.actor,
      ai_name: who.name, rule: who.rule, visitor_hash: NO_HASH, props: hasProps(event.p) ? event.p : null,
      own_referrer_host: traffic.referrer_host, browser_version: device.browser_version, os_version: device.os_version,
    },
  };
}

function hasProps(props: Record<string, unknown>): boolean {
  for (const _ in props) return true;
  return false;
}

export function enrichHit(hit: ServerHit, site: SiteRecord, country: CountryLookup): PendingRow {
  const url = `http://${site.domain}${hit.path}`;
  const utm = utmFromUrl(url);
  const who = classify({ ua: hit.user_agent, referrer: hit.referrer, utm_source: utm.utm_source, js: false });
  const device = parseDevice(hit.user_agent);
  const traffic = trafficSource({ referrer: hit.referrer, pageHost: site.domain, utm, assistant: who.actor === "human_via_ai" ? who.name : null });
  return {
    kind: "hit",
    ip: hit.ip,
    ua: hit.user_agent,
    key: "",
    hashedWith: null,
    requestedTs: hit.ts,
    row: {
      kind: "hit", site_id: 0, ts: 0, method: hit.method, page: pagePath(url), status: hit.status, referrer_host: traffic.referrer_host,
      source: traffic.source, channel: traffic.channel, utm_source: utm.utm_source, utm_medium: utm.utm_medium,
      utm_campaign: utm.utm_campaign, utm_term: utm.utm_term, utm_content: utm.utm_content, country: country(hit.ip),
      device: device.device, browser: device.browser, os: device.os, actor: who.actor, ai_name: who.name, rule: who.rule,
      visitor_hash: NO_HASH, browser_version: device.browser_version, os_version: device.os_version,
    },
  };
}

/**
 * The User-Agent header as data: cut to 1,024 characters (LIMITS.userAgent, the limit a hit's `user_agent` has)
 * and put in stored form, once, before the classifier, the device cache and the visitor hash all see it. A
 * multi-kilobyte UA would otherwise fill the 10,000-entry device cache (~3 MB typical) with megabytes, and the
 * raw rows and the hash would disagree on what the UA was. Cutting can split a surrogate pair: storedText then
 * turns its half into U+FFFD.
 */
export function userAgentHeader(header: string | undefined): string {
  if (header === undefined) return "";
  return storedText(header.length > LIMITS.userAgent ? header.slice(0, LIMITS.userAgent) : header);
}

/**
 * The `?d=` a load balancer routed the request by must name the body's site: otherwise the rows would reach a
 * gateway that does not own their site, which could only refuse them (cluster/ownership.ts). Compared as the
 * site cache compares domains (case, surrounding spaces and a final dot do not matter).
 */
export function checkRoutedDomain(req: HttpRequest, domain: string): void {
  const d = req.query.get("d");
  if (d === null || domainKey(d) === domainKey(domain)) return;
  throw new ApiError("invalid_query", "the body's domain differs from the d query parameter", [{ path: "d", message: "must be the domain of the body's site" }]);
}

/** What a Delivery answers: the 202, or the response to a refusal (an ApiError). */
export interface DeliveryAnswers {
  readonly accepted: HttpResponse;
  readonly refused: (error: ApiError) => HttpResponse;
}

/**
 * One request's rows on their way through the site lane to the commit, and the request's answer: the lane's
 * message and the transport's LaterResponse in one object, answered when the batch holding the rows settles.
 * Before, each /api/event request held a promise (its executor, resolve, reject and `done` closures), the
 * route's `then` and the transport's `then` pair until its commit: ~0.2 µs a request against ~0.04 µs, measured
 * alone (README, "Fifth pass"). "202 means committed" is unchanged: `done()` comes from the writer after the commit.
 */
export class Delivery extends LaterResponse implements IngestMessage {
  constructor(
    readonly rows: PendingRow[],
    private readonly answers: DeliveryAnswers,
  ) {
    super();
  }

  done(error?: unknown): void {
    // A refused batch answers its requests one by one, then each submission again: the first answer stands.
    if (this.answered) return;
    if (error === undefined) return this.answer(this.answers.accepted);
    // An ApiError is the writer's own answer (the database refused this request's rows: 422); anything else
    // means the rows were not stored for reasons of the moment.
    this.answer(this.answers.refused(error instanceof ApiError ? error : rowsNotStored()));
  }
}

/** Hands a request's rows to the site's lane; throws 503 when its mailbox is full (nothing was taken). */
function deliverRequest(lanes: LaneRegistry, siteId: number, rows: PendingRow[], answers: DeliveryAnswers): Delivery {
  const delivery = new Delivery(rows, answers);
  if (!lanes.get(siteId).offer(delivery)) throw new ApiError("overloaded");
  return delivery;
}

/** Hands rows to the site's lane and resolves once the batch holding them has committed. */
export function deliver(lanes: LaneRegistry, siteId: number, rows: PendingRow[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const accepted = lanes.get(siteId).offer({
      rows,
      // An ApiError is the writer's own answer (the database refused this request's rows: 422); anything else
      // means the rows were not stored for reasons of the moment.
      done: (error) => (error === undefined ? resolve() : reject(error instanceof ApiError ? error : rowsNotStored())),
    });
    if (!accepted) reject(new ApiError("overloaded"));
  });
}

/**
 * The headers each ingest route reads — an event: the client's address behind a proxy and the User-Agent; a hit
 * array (its addresses and agents are in the body): its token — and the transport's `content-length`: the
 * uWebSockets.js transport copies only these for them (ListenOptions.headersRead). A browser's beacon carries 15–20
 * headers (sec-ch-ua*, sec-fetch-*, accept*, origin, referer …), each a callback into JavaScript and two strings,
 * ~0.08 µs apiece in a perf profile of the gateway; each name asked for is a call into uWebSockets.js and a string
 * back, so a route asks only for its own. A header read on these routes must be named here.
 */
export const INGEST_HEADERS = {
  "/api/event": ["content-length", "user-agent", "x-forwarded-for"],
  "/api/hit": ["content-length", "authorization"],
} as const satisfies Record<string, readonly string[]>;

export function ingestHeadersRead(method: string, path: string): readonly string[] | null {
  if (method !== "POST") return null;
  return path === "/api/event" ? INGEST_HEADERS["/api/event"] : path === "/api/hit" ? INGEST_HEADERS["/api/hit"] : null;
}

// The steps up to the lane are synchronous: a rejection before it is thrown, not returned, and a request whose
// site is known makes no promise at all: its answer is its Delivery. The same steps as async functions with an
// await per step (the handler's, ingestEvent's, resolveSite's) cost 0.4 µs a request against 0.2 µs, measured
// alone on this box (32 requests per commit, CPU time): three promises and their microtask turns.

export function ingestEvent(req: HttpRequest, deps: IngestDeps, answers: DeliveryAnswers): Delivery | Promise<Delivery> {
  const ip = clientIp(req, req.headers["x-forwarded-for"], deps.trustProxy) ?? "";
  // One SipHash of the address for the limiter and the country cache (siphash.ts `addressId`).
  const id = addressId(ip);
  // Before parsing: a flood costs one bucket lookup per request, not a JSON parse.
  deps.limits.event(ip === "" ? null : ip, id);
  const event = decodeEvent(parseJson(req.body), deps.counters);
  checkRoutedDomain(req, event.d);
  if (!deps.health.up) throw databaseUnavailable();
  const ua = userAgentHeader(req.headers["user-agent"]);
  const site = deps.sites.resolve(event.d);
  if (!(site instanceof Promise)) return deliverEvent(deps, site, event, ua, ip, id, answers);
  return site.then((resolved) => deliverEvent(deps, resolved, event, ua, ip, id, answers));
}

function deliverEvent(deps: IngestDeps, site: SiteRecord | null, event: BrowserEvent, ua: string, ip: string, id: number, answers: DeliveryAnswers): Delivery {
  if (!site) throw new ApiError("unknown_site");
  return deliverRequest(deps.lanes, site.id, [enrichEvent(event, ua, ip, deps.country, id)], answers);
}

export async function ingestHits(req: HttpRequest, deps: IngestDeps): Promise<number> {
  const hits = decodeHits(parseJson(req.body), deps.counters);
  for (const hit of hits) checkRoutedDomain(req, hit.domain);
  if (!deps.health.up) throw databaseUnavailable();
  // All or nothing: one unknown domain rejects the whole array, so a 404 never half-stores a batch.
  const bySite = new Map<number, { site: SiteRecord; rows: PendingRow[] }>();
  for (const hit of hits) {
    // Known domains resolve without an await (ten microtask turns a middleware request otherwise).
    const known = deps.sites.resolve(hit.domain);
    const site = known instanceof Promise || known === null ? await resolveSite(deps.sites, hit.domain) : known;
    let group = bySite.get(site.id);
    if (!group) bySite.set(site.id, (group = { site, rows: [] }));
    group.rows.push(enrichHit(hit, site, deps.country));
  }
  // Token first, so a stranger's requests never use up the site's rate budget; all sites of the array before
  // any is delivered, so a refusal stores nothing.
  const token = presentedHitToken(req);
  for (const { site } of bySite.values()) checkHitToken(site, token);
  for (const { site, rows } of bySite.values()) deps.limits.hits(site.id, rows.length);
  await Promise.all([...bySite.values()].map((g) => deliver(deps.lanes, g.site.id, g.rows)));
  return hits.length;
}
