import { createHash } from "node:crypto";
import { isIP } from "node:net";
import { describe, expect, it } from "vitest";
import { addressOfEntry, canonicalIp, ipv6Block64, utcDay, utcDayStart, utcHourStart, visitorHash, visitorHashKeyOfAddress } from "../src/index.ts";

// Vectors computed independently (Python hashlib) from the byte layout in core/README.md:
// sha256(salt || "<site_id>" 0x00 "<ip>" 0x00 "<user agent>"), text as UTF-8.
const SALT = Uint8Array.from({ length: 32 }, (_, i) => i); // 00 01 02 … 1f
const SALT_AB = new Uint8Array(32).fill(0xab);
const UA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

describe("visitorHash vectors", () => {
  it.each([
    { why: "reference", salt: SALT, site: 1, ip: "203.0.113.7", ua: UA, hex: "8f21d7a7033f1d971341f44addd6cb089806b0b8d9a4fd0b0ba857a2db7dbb9e" },
    { why: "another salt", salt: SALT_AB, site: 1, ip: "203.0.113.7", ua: UA, hex: "0814690fabc9e37a37446b8f4bb18f28e0329a8a02f4035711b92bfb40bfb6cc" },
    { why: "another site", salt: SALT, site: 42, ip: "203.0.113.7", ua: UA, hex: "d463f3a7d40709e7c5457d372047536e245720f6bdf4f40de2a1ce5a5e919d49" },
    { why: "IPv6", salt: SALT, site: 1, ip: "2001:db8::1", ua: UA, hex: "43ae15a7580da071753b13183d6ebca5b5495b80d3e9f5370e8a9ca61c2f6f34" },
    { why: "IPv6 written long and upper-case hashes as canonical", salt: SALT, site: 1, ip: "2001:0DB8:0:0:0:0:0:0001", ua: UA, hex: "43ae15a7580da071753b13183d6ebca5b5495b80d3e9f5370e8a9ca61c2f6f34" },
    { why: "IPv4-mapped IPv6 hashes as IPv4", salt: SALT, site: 1, ip: "::ffff:203.0.113.7", ua: UA, hex: "8f21d7a7033f1d971341f44addd6cb089806b0b8d9a4fd0b0ba857a2db7dbb9e" },
    { why: "empty user agent", salt: SALT, site: 1, ip: "203.0.113.7", ua: "", hex: "0451cfdb6bc95d194de030e82fecf9aa2335b973a30b8f6f5451e15f821fc8cc" },
    { why: "non-ASCII user agent as UTF-8", salt: SALT, site: 1, ip: "203.0.113.7", ua: "Ünïcödé/1.0 ✓", hex: "af1e6f68d166c69b53ed0477162bc5f7c090af89197525a155e0dd2e3b6a0dba" },
    { why: "separator: site 1 + ip 23.0.0.1", salt: SALT, site: 1, ip: "23.0.0.1", ua: "x", hex: "efe6015910b0c2948ea8328cf4f46266cad0ac3c0da39b3223939a7c4f121651" },
    { why: "separator: site 12 + ip 3.0.0.1 differs", salt: SALT, site: 12, ip: "3.0.0.1", ua: "x", hex: "6378d2e35c37adbb02f0e284a8a7ee329dda5ec51b6824e013d93ad7602c408e" },
  ])("$why", ({ salt, site, ip, ua, hex }) => {
    const digest = visitorHash(salt, site, ip, ua);
    expect(digest).toHaveLength(32);
    expect(digest.toString("hex")).toBe(hex);
  });

  it.each([
    { why: "salt of 16 bytes", call: () => visitorHash(new Uint8Array(16), 1, "203.0.113.7", UA) },
    { why: "negative site id", call: () => visitorHash(SALT, -1, "203.0.113.7", UA) },
    { why: "fractional site id", call: () => visitorHash(SALT, 1.5, "203.0.113.7", UA) },
  ])("refuses $why", ({ call }) => {
    expect(call).toThrow(RangeError);
  });

  // Texts that fit the reused input buffer and texts that do not (a UTF-16 unit may take 3 bytes), alternated so a
  // long input cannot leave bytes behind for a short one.
  it.each([
    { why: "1,024-character UA (the header's cut)", ua: "a".repeat(1024) },
    { why: "1,000 three-byte characters", ua: "✓".repeat(1000) },
    { why: "1,400 two-byte characters (past the buffer's worst case)", ua: "é".repeat(1400) },
    { why: "5,000-character UA", ua: "b".repeat(5000) },
    { why: "short UA after the long ones", ua: "x" },
  ])("hashes the documented layout for a $why", ({ ua }) => {
    const reference = createHash("sha256").update(SALT).update(`7\u0000203.0.113.7\u0000${ua}`, "utf8").digest("hex");
    expect(visitorHash(SALT, 7, "203.0.113.7", ua).toString("hex")).toBe(reference);
  });

  // The site lane hashes the address as the pipeline made it (addressOfEntry for /api/event, canonicalIp for a
  // hit's ip; "" when unknown) without parsing it again: that must be the hash of what the client sent.
  it.each([
    { sent: "203.0.113.7" },
    { sent: "[2001:0DB8::0001]:443" },
    { sent: "::ffff:203.0.113.7" },
    { sent: "203.0.113.7:51234" },
    { sent: "fe80::1%eth0" },
    { sent: "not an address" },
  ])("hashes the pipeline's address of $sent as visitorHash hashes what was sent", ({ sent }) => {
    const address = addressOfEntry(sent);
    const bare = sent.startsWith("[") ? sent.slice(1, sent.indexOf("]")) : sent.includes(".") && sent.indexOf(":") === sent.lastIndexOf(":") ? sent.split(":")[0]! : sent;
    const expected = visitorHash(SALT, 3, address === null ? "" : bare, UA);
    expect(Buffer.from(visitorHashKeyOfAddress(SALT, 3, address ?? "", UA), "latin1")).toEqual(expected);
    expect(Buffer.from(visitorHashKeyOfAddress(SALT, 3, canonicalIp(bare) ?? "", UA), "latin1")).toEqual(visitorHash(SALT, 3, canonicalIp(bare) === null ? "" : bare, UA));
  });

  it("does not throw on an ip that is not an IP literal", () => {
    expect(visitorHash(SALT, 1, "unknown", UA)).toHaveLength(32);
  });
});

describe("canonicalIp", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    [" 203.0.113.7 ", "203.0.113.7"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["::FFFF:cb00:7107", "203.0.113.7"],
    ["2001:DB8:0:0:0:0:0:1", "2001:db8::1"],
    ["2001:0db8:0000:0000:0001:0000:0000:0001", "2001:db8::1:0:0:1"],
    ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"],
    ["fe80::1%eth0", "fe80::1"],
    ["::", "::"],
    ["::1", "::1"],
    ["1::", "1::"],
    ["64:ff9b::192.0.2.33", "64:ff9b::c000:221"],
    ["01.2.3.4", null],
    ["999.1.1.1", null],
    ["example.com", null],
    ["", null],
  ])("%s → %s", (ip, canonical) => {
    expect(canonicalIp(ip)).toBe(canonical);
  });
});

// The schema validates `ip` with node:net isIP and the hash canonicalises with its own parser; they must agree.
describe("canonicalIp accepts exactly what isIP accepts", () => {
  it.each([
    "0.0.0.0", "255.255.255.255", "256.0.0.0", "1.2.3", "1.2.3.4.5", "1..2.3", "1.2.3.04", "0.1.2.3", "1.2.3.4.", ".1.2.3.4", "1.2.3.-4", "1.2.3.4a",
    "::", "::1", "1::", "1::1", "::ffff:1.2.3.4", "::1.2.3.4", "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:7:1.2.3.4", "1:2:3:4:5:6:7:8",
    "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7::", "::1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8::", ":::", "1:::2", "1::2::3",
    ":1:2:3:4:5:6:7", "1:2:3:4:5:6:7:", "12345::1", "g::1", "fe80::1%eth0", "fe80::1%", "%eth0", "::ffff:256.1.1.1", "::ffff:1.2.3",
    "1.2.3.4::", "::1.2.3.4:1", "ABCD:EF01::", "0000:0000:0000:0000:0000:0000:0000:0001", "00000::1", "1:2:3:4:5::1.2.3.4", "::ffff:01.2.3.4",
  ])("%s", (ip) => {
    expect(canonicalIp(ip) !== null).toBe(isIP(ip) !== 0);
  });
});

describe("ipv6Block64", () => {
  it.each([
    ["2001:db8:1:2::1", "2001:db8:1:2::/64"],
    ["2001:DB8:0001:0002:ffff:ffff:ffff:fffe", "2001:db8:1:2::/64"],
    ["::1", "0:0:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["64:ff9b::192.0.2.33", "64:ff9b:0:0::/64"],
    ["1:2:3:4:5:6:1.2.3.4", "1:2:3:4::/64"],
    ["203.0.113.7", null],
    ["1::2::3", null],
    ["", null],
  ])("%s → %s", (ip, block) => {
    expect(ipv6Block64(ip)).toBe(block);
  });
});

describe("UTC day arithmetic", () => {
  const lastMs = Date.UTC(2026, 2, 28, 23, 59, 59, 999);
  const nextMs = Date.UTC(2026, 2, 29, 0, 0, 0, 0);

  it("the day boundary: 23:59:59.999 and 00:00:00.000 UTC are different salt days", () => {
    expect(nextMs - lastMs).toBe(1);
    expect(utcDay(lastMs)).toBe("2026-03-28");
    expect(utcDay(nextMs)).toBe("2026-03-29");
    expect(utcDayStart(lastMs)).toBe(Date.UTC(2026, 2, 28));
    expect(utcDayStart(nextMs)).toBe(nextMs);
    expect(utcHourStart(lastMs)).toBe(Date.UTC(2026, 2, 28, 23));
    expect(utcHourStart(nextMs)).toBe(nextMs);
  });

  it.each([
    { why: "epoch", ms: 0, day: "1970-01-01" },
    { why: "before the epoch", ms: -1, day: "1969-12-31" },
    { why: "leap day", ms: Date.UTC(2024, 1, 29, 12), day: "2024-02-29" },
    { why: "century leap day", ms: Date.UTC(2000, 1, 29), day: "2000-02-29" },
    { why: "not a leap year", ms: Date.UTC(2100, 2, 1), day: "2100-03-01" },
    { why: "new year", ms: Date.UTC(2027, 0, 1), day: "2027-01-01" },
    { why: "new year's eve last ms", ms: Date.UTC(2027, 0, 1) - 1, day: "2026-12-31" },
    { why: "far future", ms: Date.UTC(9999, 11, 31, 23, 59, 59, 999), day: "9999-12-31" },
  ])("utcDay $why", ({ ms, day }) => {
    expect(utcDay(ms)).toBe(day);
    expect(utcDay(ms)).toBe(new Date(ms).toISOString().slice(0, 10));
  });

  it("agrees with Date on every hour across four years", () => {
    for (let ms = Date.UTC(2023, 0, 1); ms < Date.UTC(2027, 0, 1); ms += 3_600_000 + 7) {
      expect(utcDay(ms)).toBe(new Date(ms).toISOString().slice(0, 10));
    }
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY])("refuses %s", (ms) => {
    expect(() => utcDay(ms)).toThrow(RangeError);
    expect(() => utcDayStart(ms)).toThrow(RangeError);
    expect(() => utcHourStart(ms)).toThrow(RangeError);
  });
});

describe("addressOfEntry: the address in a socket report or X-Forwarded-For entry", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    [" 203.0.113.7:51234 ", "203.0.113.7"],
    ["[2001:DB8::1]:443", "2001:db8::1"],
    ["[2001:db8:0:0:0:0:0:1]", "2001:db8::1"],
    ["::ffff:127.0.0.1", "127.0.0.1"],
    ["fe80::1%eth0", "fe80::1"],
    ["unknown", null],
    ["_hidden", null],
    ["203.0.113.7:", "203.0.113.7"],
    ["", null],
  ])("%j → %j", (entry, address) => {
    expect(addressOfEntry(entry)).toBe(address);
  });
});
