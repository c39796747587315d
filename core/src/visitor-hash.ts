// visitor_hash = SHA-256(daily_salt || site_id || ip || user_agent).
// The byte layout is documented in core/README.md ("Visitor hash"); changing it changes every hash, so it is pinned
// by fixed vectors in test/visitor-hash.test.ts.

import { Buffer } from "node:buffer";
import { hash } from "node:crypto";
import { canonicalIp } from "./ip.ts";

export const SALT_BYTES = 32;

// 4 KB of text: a site id, an address and a User-Agent header cut to 1,024 characters (LIMITS.userAgent) fit.
const scratch = Buffer.allocUnsafe(SALT_BYTES + 4096);

/**
 * SHA-256 over: the 32 raw salt bytes, then UTF-8 of `<site_id decimal> 0x00 <canonical ip> 0x00 <user agent>`.
 * An ip that is not an IP literal is hashed as its trimmed lowercase text, so bad input never throws here.
 */
export function visitorHash(salt: Uint8Array, siteId: number, ip: string, userAgent: string): Buffer {
  return Buffer.from(visitorHashKey(salt, siteId, ip, userAgent), "latin1");
}

/**
 * The same hash as a 32-character latin1 string (one char per byte): the key the site lane's visitor and
 * visit state are held under, made without the Buffer → string round trip (`Buffer.from(key, "latin1")` is the
 * stored bytes).
 */
export function visitorHashKey(salt: Uint8Array, siteId: number, ip: string, userAgent: string): string {
  return visitorHashKeyOfAddress(salt, siteId, canonicalIp(ip) ?? ip.trim().toLowerCase(), userAgent);
}

/**
 * `visitorHashKey` of an address already in the form it hashes: canonical (`canonicalIp`, `addressOfEntry`) or
 * "" when unknown — what the gateway's ingest pipeline hands its site lanes. Parsing it again cost ~0.4 µs of
 * every event (perf of the gateway at full ingest load: `canonicalIp` under the lane's hash, 1 % of its main
 * thread), and canonical text parses to itself.
 */
export function visitorHashKeyOfAddress(salt: Uint8Array, siteId: number, address: string, userAgent: string): string {
  if (salt.length !== SALT_BYTES) throw new RangeError(`visitorHash: salt must be ${SALT_BYTES} bytes, got ${salt.length}`);
  if (!Number.isSafeInteger(siteId) || siteId < 0) throw new RangeError("visitorHash: siteId must be a non-negative integer");
  const text = `${siteId}\u0000${address}\u0000${userAgent}`;
  // One-shot crypto.hash over one buffer. Its "buffer" output costs ~1.25 µs per call on Node 20, a "binary"
  // (latin1: one char per byte, so the round trip is exact) string turned back into a Buffer ~0.8 µs; createHash
  // with two update() calls ~1.4 µs. The hash is the largest single cost of the enrich step. The salt and text
  // are laid out in one reused buffer rather than a Buffer.from and a Buffer.concat per row (~0.3 µs less);
  // a UTF-16 unit is at most 3 UTF-8 bytes, so a text that might not fit takes the allocating path.
  let input: Uint8Array;
  if (text.length * 3 <= scratch.length - SALT_BYTES) {
    scratch.set(salt, 0);
    input = scratchView(SALT_BYTES + scratch.write(text, SALT_BYTES, "utf8"));
  } else input = Buffer.concat([salt, Buffer.from(text, "utf8")]);
  return hash("sha256", input, "binary");
}

// The first `length` bytes of the scratch buffer, one view per length made once: a `subarray` per row was a typed
// array to allocate (~100 B, 3 % of what the in-process event path allocates) and a native call to create it. At most
// 4,128 views (~0.5 MB if every length occurred); the scenario's 10,000 visitors use a few dozen.
const scratchViews: Array<Uint8Array | undefined> = new Array<Uint8Array | undefined>(scratch.length + 1);
function scratchView(length: number): Uint8Array {
  return (scratchViews[length] ??= scratch.subarray(0, length));
}

/**
 * The visitor hash of an imported row (gateway/README.md "History import"): SHA-256 over the import's own
 * random 32-byte secret, then UTF-8 of `<day YYYY-MM-DD> 0x00 <visitor string>`. Equal strings are one visitor
 * within one UTC day of one import and nowhere else: the day is in the hash (no visitor links across days, as
 * with live rows), and the secret is never stored, so neither another import nor the live rows can share it.
 */
export function importedVisitorHash(secret: Uint8Array, day: string, visitor: string): Buffer {
  if (secret.length !== SALT_BYTES) throw new RangeError(`importedVisitorHash: secret must be ${SALT_BYTES} bytes, got ${secret.length}`);
  return Buffer.from(hash("sha256", Buffer.concat([secret, Buffer.from(`${day}\u0000${visitor}`, "utf8")]), "binary"), "binary");
}
