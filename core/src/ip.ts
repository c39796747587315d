// One canonical text per IP address, so one client hashes alike on both ingest paths (the socket's peer,
// the middleware's `ip` field) whatever notation each used.

/**
 * Canonical text of an IP literal so one client hashes alike on both ingest paths; null when it is not an IP.
 * Accepts exactly what node:net isIP accepts (test/visitor-hash.test.ts holds the two side by side); parsed by
 * hand because the split/map version cost ~5 µs per IPv6 address, more than the hash itself.
 */
export function canonicalIp(ip: string): string | null {
  const text = ip.trim();
  if (!text.includes(":")) return ipv4Value(text, 0, text.length) === -1 ? null : text;
  if (!parseIpv6(text, groups)) return null;
  // IPv4-mapped (::ffff:a.b.c.d): a dual-stack socket reports IPv4 clients this way, the middleware usually does not.
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff) {
    return `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`;
  }
  return formatIpv6(groups);
}

/**
 * The /64 block of an IPv6 literal as `a:b:c:d::/64` (hex groups without leading zeros), the unit one subscriber
 * or cloud VM is usually given; null when `ip` is not IPv6. The per-client limiters count IPv6 clients by it.
 */
export function ipv6Block64(ip: string): string | null {
  const text = ip.trim();
  if (!text.includes(":") || !parseIpv6(text, groups)) return null;
  return `${groups[0]!.toString(16)}:${groups[1]!.toString(16)}:${groups[2]!.toString(16)}:${groups[3]!.toString(16)}::/64`;
}

/**
 * The address in one X-Forwarded-For entry or socket report, canonical, or null when it holds none: without the
 * brackets and port of "[2001:db8::1]:443" or the port of "203.0.113.7:51234", which some proxies write around
 * it (a zone index and the IPv4-mapped prefix are notation canonicalIp removes). The gateway and the
 * middleware read client addresses through this one function.
 */
export function addressOfEntry(entry: string): string | null {
  let a = entry.trim();
  if (a.startsWith("[")) {
    const end = a.indexOf("]");
    if (end !== -1) a = a.slice(1, end);
  } else {
    const colon = a.indexOf(":");
    if (colon !== -1 && colon === a.lastIndexOf(":") && a.indexOf(".") !== -1) a = a.slice(0, colon);
  }
  return canonicalIp(a);
}

/** Dotted-quad text[start, end) as a 32-bit value, or -1; no leading zeros, as isIP requires. */
function ipv4Value(text: string, start: number, end: number): number {
  let value = 0;
  let octets = 0;
  let i = start;
  while (octets < 4) {
    const first = i;
    let octet = 0;
    while (i < end) {
      const c = text.charCodeAt(i);
      if (c < 48 || c > 57) break;
      octet = octet * 10 + (c - 48);
      i++;
    }
    const digits = i - first;
    if (digits === 0 || digits > 3 || octet > 255 || (digits > 1 && text.charCodeAt(first) === 48)) return -1;
    value = value * 256 + octet;
    octets++;
    if (octets < 4) {
      if (text.charCodeAt(i) !== 46 /* . */) return -1;
      i++;
    }
  }
  return i === end ? value : -1;
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

const groups = new Array<number>(8).fill(0);

/** Parses an IPv6 literal (with "::", an embedded IPv4 tail and a "%zone") into 8 groups; false when invalid. */
function parseIpv6(text: string, out: number[]): boolean {
  const percent = text.indexOf("%");
  if (percent === 0 || percent === text.length - 1) return false;
  const end = percent === -1 ? text.length : percent; // a zone id names a local interface, not the client
  let n = 0;
  let gap = -1;
  let i = 0;
  if (text.charCodeAt(0) === 58 /* : */) {
    if (text.charCodeAt(1) !== 58) return false;
    gap = 0;
    i = 2;
  }
  while (i < end) {
    const start = i;
    let value = 0;
    while (i < end) {
      const d = hexDigit(text.charCodeAt(i));
      if (d === -1) break;
      value = value * 16 + d;
      i++;
    }
    if (i < end && text.charCodeAt(i) === 46 /* . */) {
      const v4 = n <= 6 ? ipv4Value(text, start, end) : -1;
      if (v4 === -1) return false;
      out[n++] = Math.floor(v4 / 65536);
      out[n++] = v4 & 0xffff;
      i = end;
      break;
    }
    if (i === start || i - start > 4 || n === 8) return false;
    out[n++] = value;
    if (i === end) break;
    if (text.charCodeAt(i) !== 58) return false;
    i++;
    if (text.charCodeAt(i) === 58) {
      if (gap !== -1) return false;
      gap = n;
      i++;
    } else if (i === end) {
      return false; // a single trailing ":"
    }
  }
  if (gap === -1) return n === 8;
  if (n > 7) return false; // "::" stands for at least one zero group
  const tail = n - gap;
  for (let k = tail - 1; k >= 0; k--) out[8 - tail + k] = out[gap + k]!;
  for (let k = gap; k < 8 - tail; k++) out[k] = 0;
  return true;
}

/** RFC 5952 (hex groups only): lowercase hex, no leading zeros, the longest run (≥ 2) of zero groups as "::", leftmost on a tie. */
function formatIpv6(g: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  let out = "";
  for (let i = 0; i < 8; i++) {
    if (i === bestStart) {
      out += "::";
      i += bestLength - 1;
      continue;
    }
    if (out !== "" && !out.endsWith(":")) out += ":";
    out += g[i]!.toString(16);
  }
  return out;
}
