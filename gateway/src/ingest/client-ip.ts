// Which address is the client's. With SVC_TRUST_PROXY=N the last N hops in front of us are trusted
// proxies: the client is the entry N places from the right of [...X-Forwarded-For, socket address].
import net from "node:net";

export function normaliseIp(raw: string): string | null {
  let ip = raw.trim();
  if (ip.startsWith("[")) ip = ip.slice(1, ip.indexOf("]"));
  if (ip.startsWith("::ffff:") && net.isIPv4(ip.slice(7))) ip = ip.slice(7);
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(ip)) ip = ip.slice(0, ip.indexOf(":")); // "1.2.3.4:port" from some proxies
  const family = net.isIP(ip);
  if (family === 0) return null;
  return family === 6 ? ip.toLowerCase() : ip;
}

export function clientIp(socketAddress: string, forwardedFor: string | undefined, trustedHops: number): string | null {
  if (trustedHops <= 0 || !forwardedFor) return normaliseIp(socketAddress);
  const chain = forwardedFor.split(",").map((s) => s.trim()).filter(Boolean);
  chain.push(socketAddress);
  const index = Math.max(0, chain.length - 1 - trustedHops);
  return normaliseIp(chain[index]!);
}
