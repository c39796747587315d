// visitor_hash = SHA-256(daily_salt || site_id || ip || user_agent), and the UTC day arithmetic the salt hangs on.
// The byte layout is documented in core/README.md ("Visitor hash"); changing it changes every hash, so it is pinned
// by fixed vectors in test/visitor-hash.test.ts.

import { hash } from "node:crypto";
import { isIP } from "node:net";

export const SALT_BYTES = 32;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** Canonical text of an IP literal so one client hashes alike on both ingest paths; null when it is not an IP. */
export function canonicalIp(ip: string): string | null {
  const text = ip.trim();
  const family = isIP(text);
  if (family === 4) return text;
  if (family !== 6) return null;
  const groups = ipv6Groups(text);
  if (groups === null) return null;
  // IPv4-mapped (::ffff:a.b.c.d): a dual-stack socket reports IPv4 clients this way, the middleware usually does not.
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff) {
    return `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`;
  }
  return formatIpv6(groups);
}

function ipv6Groups(text: string): number[] | null {
  let address = text.toLowerCase();
  const zone = address.indexOf("%");
  if (zone !== -1) address = address.slice(0, zone); // a zone id names a local interface, not the client
  const lastColon = address.lastIndexOf(":");
  const last = address.slice(lastColon + 1);
  if (last.includes(".")) {
    // Embedded IPv4 (isIP already checked it): rewrite a.b.c.d as two hex groups.
    const [a, b, c, d] = last.split(".").map(Number) as [number, number, number, number];
    address = `${address.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const parse = (part: string): number[] => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const gap = address.indexOf("::");
  let groups: number[];
  if (gap === -1) {
    groups = parse(address);
  } else {
    const head = parse(address.slice(0, gap));
    const rest = parse(address.slice(gap + 2));
    groups = [...head, ...new Array<number>(Math.max(8 - head.length - rest.length, 0)).fill(0), ...rest];
  }
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** RFC 5952 (hex groups only): lowercase hex, no leading zeros, the longest run (≥ 2) of zero groups as "::", leftmost on a tie. */
function formatIpv6(groups: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart === -1) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
}

/**
 * SHA-256 over: the 32 raw salt bytes, then UTF-8 of `<site_id decimal> 0x00 <canonical ip> 0x00 <user agent>`.
 * An ip that is not an IP literal is hashed as its trimmed lowercase text, so bad input never throws here.
 */
export function visitorHash(salt: Uint8Array, siteId: number, ip: string, userAgent: string): Buffer {
  if (salt.length !== SALT_BYTES) throw new RangeError(`visitorHash: salt must be ${SALT_BYTES} bytes, got ${salt.length}`);
  if (!Number.isSafeInteger(siteId) || siteId < 0) throw new RangeError("visitorHash: siteId must be a non-negative integer");
  const text = `${siteId}\u0000${canonicalIp(ip) ?? ip.trim().toLowerCase()}\u0000${userAgent}`;
  // One-shot crypto.hash over one buffer: ~1.25 µs/event, against ~1.4 µs for createHash with two update() calls.
  return hash("sha256", Buffer.concat([salt, Buffer.from(text, "utf8")]), "buffer");
}

function assertTime(ms: number): void {
  if (!Number.isFinite(ms)) throw new RangeError(`not a time in milliseconds: ${ms}`);
}

/** ms at 00:00:00.000 UTC of the day containing `ms` (floor, so it also holds before 1970). */
export function utcDayStart(ms: number): number {
  assertTime(ms);
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

export function utcHourStart(ms: number): number {
  assertTime(ms);
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

/** "YYYY-MM-DD" of the UTC day containing `ms`; the salt day of an event. */
export function utcDay(ms: number): string {
  // Civil-from-days (H. Hinnant): 0.07 µs against 0.45 µs for new Date(ms).toISOString() on the per-event path.
  const days = Math.floor(utcDayStart(ms) / DAY_MS) + 719_468;
  const era = Math.floor(days / 146_097);
  const dayOfEra = days - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${String(year).padStart(4, "0")}-${month < 10 ? "0" : ""}${month}-${day < 10 ? "0" : ""}${day}`;
}
