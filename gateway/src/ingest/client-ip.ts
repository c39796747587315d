// Which address is the client's, and which proxies in front of us are believed (SVC_TRUST_PROXY).
//
// Two ways to name the trusted proxies:
// - a hop count N: the last N hops are trusted; the client is the entry N places from the right of
//   [...X-Forwarded-For, socket address]. Whoever reaches the port directly is then trusted too, so this
//   only fits a gateway that nothing but the proxy can reach.
// - addresses and networks (CIDRs, IPv4 and IPv6): X-Forwarded-For is read only when the TCP peer is one of
//   them, and the client is the rightmost entry that is not (a chain of trusted proxies is walked through).
import net from "node:net";
import { addressOfEntry, ipv6Block64 } from "@svc/core";

export interface TrustProxy {
  /** Trusted hops by count; 0 when none, or when `networks` names the proxies instead. */
  readonly hops: number;
  /** Trusted proxy networks; null in hop-count mode. */
  readonly networks: net.BlockList | null;
  /** What the operator wrote, for the boot log. */
  readonly source: string;
}

export const NO_PROXY: TrustProxy = { hops: 0, networks: null, source: "0" };

/** SVC_TRUST_PROXY: `false`, `true` (= 1), a hop count 0..10, or comma-separated addresses/CIDRs. Null when invalid. */
export function parseTrustProxy(value: string): TrustProxy | null {
  const v = value.trim();
  if (v === "false") return NO_PROXY;
  if (v === "true") return { hops: 1, networks: null, source: v };
  if (/^\d+$/.test(v)) return Number(v) <= 10 ? { hops: Number(v), networks: null, source: v } : null;
  const networks = new net.BlockList();
  const entries = v.split(",").map((s) => s.trim());
  for (const entry of entries) {
    if (entry === "") return null;
    const [address, bits, extra] = entry.split("/");
    if (extra !== undefined) return null;
    const ip = addressOfEntry(address!);
    if (ip === null) return null;
    const family = net.isIPv4(ip) ? "ipv4" : "ipv6";
    const max = family === "ipv4" ? 32 : 128;
    if (bits === undefined) networks.addAddress(ip, family);
    else if (/^\d{1,3}$/.test(bits) && Number(bits) <= max) networks.addSubnet(ip, Number(bits), family);
    else return null;
  }
  return { hops: 0, networks, source: entries.join(",") };
}

function inNetworks(networks: net.BlockList, raw: string): boolean {
  const ip = addressOfEntry(raw);
  if (ip === null) return false;
  return networks.check(ip, net.isIPv4(ip) ? "ipv4" : "ipv6");
}

/** Whether the TCP peer is a proxy whose X-Forwarded-* headers are believed. */
export function peerIsTrusted(socketAddress: string, trust: TrustProxy): boolean {
  if (trust.networks !== null) return inNetworks(trust.networks, socketAddress);
  return trust.hops > 0;
}

/**
 * `peer` is the TCP peer's address, or the request: its `remoteAddress` is then read only when needed (the
 * uWebSockets.js transport reads it from the socket when asked, `http/uws.ts`).
 */
export function clientIp(peer: string | { readonly remoteAddress: string }, forwardedFor: string | undefined, trust: TrustProxy): string | null {
  // One proxy hop in front (the usual setup): the header's one entry is the client, read without building the
  // chain's arrays or the peer's address (every /api/event goes through here).
  if (forwardedFor && trust.networks === null && trust.hops >= 1 && !forwardedFor.includes(",")) {
    const entry = forwardedFor.trim();
    if (entry !== "") return addressOfEntry(entry);
  }
  const socketAddress = typeof peer === "string" ? peer : peer.remoteAddress;
  if (!forwardedFor || !peerIsTrusted(socketAddress, trust)) return addressOfEntry(socketAddress);
  if (trust.networks === null && trust.hops >= 1 && !forwardedFor.includes(",")) return addressOfEntry(socketAddress);
  const chain = forwardedFor.split(",").map((s) => s.trim()).filter(Boolean);
  if (trust.networks !== null) {
    for (let i = chain.length - 1; i >= 0; i--) if (!inNetworks(trust.networks, chain[i]!)) return addressOfEntry(chain[i]!);
    return chain.length > 0 ? addressOfEntry(chain[0]!) : addressOfEntry(socketAddress);
  }
  chain.push(socketAddress);
  const index = Math.max(0, chain.length - 1 - trust.hops);
  return addressOfEntry(chain[index]!);
}

/**
 * The value a trusted proxy wrote into a list-valued X-Forwarded-* header (Proto, Host), or null when the peer
 * is not trusted or the header is absent. Hop-count mode reads the entry of the outermost trusted proxy; with
 * networks, the nearest proxy's (nginx and Caddy overwrite these headers rather than append).
 */
export function forwardedValue(socketAddress: string, header: string | undefined, trust: TrustProxy): string | null {
  if (!header || !peerIsTrusted(socketAddress, trust)) return null;
  const chain = header.split(",").map((s) => s.trim()).filter(Boolean);
  if (chain.length === 0) return null;
  return trust.networks !== null ? chain[chain.length - 1]! : chain[Math.max(0, chain.length - trust.hops)]!;
}

/**
 * What a per-client limiter counts: an IPv4 address as it is, an IPv6 address by its /64 (the block one
 * subscriber or one cloud VM usually gets, so rotating through it buys nothing), "" when unknown.
 */
export function limiterKey(ip: string | null): string {
  if (ip === null) return "";
  return ipv6Block64(ip) ?? ip;
}
