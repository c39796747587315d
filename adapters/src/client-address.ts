// Which address a hit reports as the client's: read from the socket's peer or an X-Forwarded-For header, then
// put in the canonical form the collector hashes (core's addressOfEntry and canonicalIp, inlined into the built package by
// scripts/build.mjs, so the package has no dependency on core and the edge worker no node:net).
import { addressOfEntry } from "@svc/core/ip";

/**
 * Sent when no valid client address is known (no socket address, no usable header): the unspecified address.
 * The collector rejects a batch with an invalid `ip` as a whole, and a crawler hit is worth counting even
 * without one; the collector finds no country for it, and such hits share one daily visitor hash per user agent.
 */
export const UNKNOWN_ADDRESS = "0.0.0.0";

/**
 * Which address is the client, in canonical form:
 * - `false`: the peer address (the socket, or the runtime's client address).
 * - `true`: the leftmost X-Forwarded-For entry (whatever the first proxy saw; spoofable unless your proxy overwrites it).
 * - `n` (a number of trusted proxies in front of the app): the n-th X-Forwarded-For entry from the right, as Express's
 *   `trust proxy = n`; with fewer entries than n, the leftmost one.
 * Without a usable X-Forwarded-For entry it is the peer address; without a valid peer address, UNKNOWN_ADDRESS.
 */
export function clientAddress(
  peerAddress: string | null | undefined,
  forwardedFor: string | null | undefined,
  trustProxy: boolean | number,
): string {
  if (trustProxy !== false && trustProxy !== 0 && forwardedFor) {
    const entries = forwardedFor.split(",").map((s) => s.trim()).filter((s) => s.length > 0);
    if (entries.length > 0) {
      // Some proxies write "unknown" or an obfuscated token (RFC 7239): then the peer is the best we know.
      const pick = addressOfEntry(trustProxy === true ? entries[0]! : entries[Math.max(0, entries.length - trustProxy)]!);
      if (pick !== null) return pick;
    }
  }
  return (peerAddress ? addressOfEntry(peerAddress) : null) ?? UNKNOWN_ADDRESS;
}
