// The body of POST /api/hit (DESIGN "Decisions"): one hit object, or an array of 1..100 of them sent as one batch
// by the middleware. Same split as the browser event: the Schema defines shape and errors, a hand check of the
// same rules lets valid batches skip the interpreter.

import { isIP } from "node:net";
import { Result, Schema } from "effect";
import { canonicalIp } from "../ip.ts";
import type { Decoded } from "./browser-event.ts";
import { fieldErrors } from "./field-errors.ts";
import { LIMITS } from "./limits.ts";
import { isPlainObject } from "./props.ts";
import { isStoredText, STORED_TEXT_MESSAGE, storedText } from "./stored-text.ts";

export interface ServerHit {
  /** Site domain, trimmed and lowercased. */
  readonly domain: string;
  /** Upper-cased HTTP method. */
  readonly method: string;
  /** Request path as received, starting with "/" (may carry a query). */
  readonly path: string;
  readonly status: number;
  /** "" when the request had no User-Agent (null in the body means the same). */
  readonly user_agent: string;
  readonly referrer: string | null;
  /** Canonical IP text (see core/README.md "Visitor hash"); only for country lookup and hashing, never stored. */
  readonly ip: string;
  /** When the request happened, ms since the epoch; null when the middleware did not say (the gateway uses its clock). */
  readonly ts: number | null;
}

const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// ISO 8601 with an explicit zone: a local time without offset would depend on the server's time zone.
const ISO_TIMESTAMP = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/i;
/** The ECMAScript Date range; any real request time is far inside it. */
const MAX_TS = 8.64e15;

const maxLength = (max: number) => Schema.isMaxLength(max, { message: `must be at most ${max} characters` });
const TS_MESSAGE = "must be milliseconds since the epoch or an ISO 8601 timestamp with a time zone";

export const ServerHitBody = Schema.Struct({
  domain: Schema.String.annotate({ message: "must be a domain name" }).check(
    Schema.makeFilter((s: string) => s.trim() !== "", { message: "must be a domain name" }),
    maxLength(LIMITS.domain),
    // The domain selects a site: refused, not normalised (as the browser event's `d`).
    Schema.makeFilter(isStoredText, { message: STORED_TEXT_MESSAGE }),
  ),
  method: Schema.String.annotate({ message: "must be an HTTP method" }).check(
    Schema.isPattern(HTTP_TOKEN, { message: "must be an HTTP method" }),
    maxLength(LIMITS.method),
  ),
  path: Schema.String.annotate({ message: 'must be a request path starting with "/"' }).check(
    Schema.isStartingWith("/", { message: 'must start with "/"' }),
    maxLength(LIMITS.path),
  ),
  status: Schema.Number.annotate({ message: "must be an HTTP status code" }).check(
    Schema.isInt({ message: "must be an HTTP status code" }),
    Schema.isBetween({ minimum: 100, maximum: 599 }, { message: "must be between 100 and 599" }),
  ),
  user_agent: Schema.NullOr(Schema.String.check(maxLength(LIMITS.userAgent))).annotate({ message: "must be a string or null" }),
  // Nullish: a key set to undefined (only possible outside JSON) is absent, as the fast path treats it.
  referrer: Schema.optionalKey(
    Schema.NullishOr(Schema.String.check(maxLength(LIMITS.referrer))).annotate({ message: "must be a string or null" }),
  ),
  ip: Schema.String.annotate({ message: "must be an IPv4 or IPv6 address" }).check(
    Schema.makeFilter((s: string) => isIP(s) !== 0, { message: "must be an IPv4 or IPv6 address" }),
  ),
  ts: Schema.optionalKey(
    Schema.NullishOr(
      Schema.Union([
        Schema.Number.check(
          Schema.isInt({ message: TS_MESSAGE }),
          Schema.isBetween({ minimum: 0, maximum: MAX_TS }, { message: TS_MESSAGE }),
        ),
        Schema.String.check(Schema.isPattern(ISO_TIMESTAMP, { message: TS_MESSAGE })),
      ]),
    ).annotate({ message: TS_MESSAGE }),
  ),
}).annotate({ message: "must be a JSON object" });

export type ServerHitWire = typeof ServerHitBody.Type;

/** The whole /api/hit body: one hit, or a batch of 1..100. */
export const ServerHitsBody = Schema.Union([
  ServerHitBody,
  Schema.Array(ServerHitBody).check(
    Schema.isBetweenLength(1, LIMITS.hitBatch, { message: `must hold 1 to ${LIMITS.hitBatch} hits` }),
  ),
]).annotate({ message: `must be a hit object or an array of 1 to ${LIMITS.hitBatch} hits` });

const decodeWithSchema = Schema.decodeUnknownResult(ServerHitsBody, { errors: "all" });

function isCommonValidHit(h: unknown): h is ServerHitWire {
  if (!isPlainObject(h)) return false;
  const { domain, method, path, status, user_agent, referrer, ip, ts } = h;
  if (typeof domain !== "string" || domain.length > LIMITS.domain || domain.trim() === "" || !isStoredText(domain)) return false;
  if (typeof method !== "string" || method.length > LIMITS.method || !HTTP_TOKEN.test(method)) return false;
  if (typeof path !== "string" || path.length > LIMITS.path || path.charCodeAt(0) !== 47 /* "/" */) return false;
  if (!Number.isInteger(status) || (status as number) < 100 || (status as number) > 599) return false;
  if (user_agent !== null && (typeof user_agent !== "string" || user_agent.length > LIMITS.userAgent)) return false;
  if (referrer !== undefined && referrer !== null && (typeof referrer !== "string" || referrer.length > LIMITS.referrer)) return false;
  if (typeof ip !== "string" || isIP(ip) === 0) return false;
  if (ts === undefined || ts === null) return true;
  if (typeof ts === "number") return Number.isInteger(ts) && ts >= 0 && ts <= MAX_TS;
  return typeof ts === "string" && ISO_TIMESTAMP.test(ts);
}

function normalise(h: ServerHitWire): ServerHit {
  const ts = h.ts === undefined || h.ts === null ? null : typeof h.ts === "number" ? h.ts : Date.parse(h.ts);
  const referrer = h.referrer === undefined || h.referrer === null ? "" : storedText(h.referrer);
  return {
    domain: h.domain.trim().toLowerCase(),
    method: h.method.toUpperCase(),
    // Free text is put in its stored form (stored-text.ts): a middleware forwards whatever its clients sent, and
    // one odd path must not cost the other 99 hits of its batch a 400.
    path: storedText(h.path),
    status: h.status,
    user_agent: h.user_agent === null ? "" : storedText(h.user_agent),
    referrer: referrer === "" ? null : referrer,
    // isIP accepted it, so canonicalIp cannot return null here; `?? h.ip` only satisfies the type.
    ip: canonicalIp(h.ip) ?? h.ip,
    ts: Number.isNaN(ts) ? null : ts,
  };
}

const BATCH_SIZE_ERROR = [{ path: "", message: `must hold 1 to ${LIMITS.hitBatch} hits` }];

/** The Schema alone, without the fast path: what decodeServerHits must always agree with (tests, bench). */
export function decodeServerHitsWithSchema(input: unknown): Decoded<ServerHit[]> {
  if (Array.isArray(input) && (input.length === 0 || input.length > LIMITS.hitBatch)) return { ok: false, errors: BATCH_SIZE_ERROR };
  const result = decodeWithSchema(input);
  if (Result.isFailure(result)) return { ok: false, errors: fieldErrors(result.failure.issue) };
  const hits: readonly ServerHitWire[] = Array.isArray(result.success) ? result.success : [result.success as ServerHitWire];
  return { ok: true, value: hits.map(normalise), droppedProps: 0 };
}

/** Decode a JSON.parse'd POST /api/hit body (one hit or an array); errors carry paths like `[3].status`. */
export function decodeServerHits(input: unknown): Decoded<ServerHit[]> {
  // The size check comes first: a 64 KB body holds ~1,000 tiny hits, none of which need decoding to refuse it.
  if (Array.isArray(input)) {
    if (input.length > 0 && input.length <= LIMITS.hitBatch && input.every(isCommonValidHit)) {
      return { ok: true, value: input.map(normalise), droppedProps: 0 };
    }
  } else if (isCommonValidHit(input)) {
    return { ok: true, value: [normalise(input)], droppedProps: 0 };
  }
  return decodeServerHitsWithSchema(input);
}
