// SipHash-1-3 (Aumasson & Bernstein, "SipHash: a fast short-input PRF", with one round per word and three at the
// end instead of 2 and 4): the keyed hash client addresses are
// filed under in memory, by the per-client event limiter and the country cache (geo/country.ts). The limiter's
// was HMAC-SHA-256 through node:crypto, ~3.1 µs per request on this box (a Hmac object, key setup, digest and
// base64url each time) — 9 % of the gateway's CPU at full ingest load.
// SipHash was made for exactly this (hash-table keys an attacker must not predict, under a secret key), and on
// an address of 7..25 bytes it costs ~0.2 µs here. The key is random per process and held only in memory, so
// what they keep cannot be mapped back to addresses without it, as with the HMAC before.
// 1-3 rather than the paper's 2-4: the ids only file addresses in this process's tables, where the threat is an
// attacker who makes colliding keys, not a forger of MACs; 1-3 is what Rust's HashMap and CPython's str hash use
// against that. An IPv4 address is 2 words, so 5 rounds instead of 8: −0.6 % of the in-process work a row
// (`npm run bench:event-path -- --instructions`, fourteenth pass).
//
// 64-bit words are kept as two int32 halves: no BigInt, no allocation per call.
import { randomBytes } from "node:crypto";

/** A 128-bit SipHash key as four little-endian uint32 words (k0 low, k0 high, k1 low, k1 high). */
export type SipKey = Readonly<Uint32Array>;

export function randomSipKey(): SipKey {
  return sipKeyFromBytes(randomBytes(16));
}

/**
 * A client address's id in this process: SipHash-1-3 of its text under one key made at boot. The event limiter
 * and the country cache file an IPv4 address under the same id, so an /api/event hashes its address once: a
 * second SipHash was ~0.2 µs of every event (perf of the gateway at full ingest load, 1.3 % of its main thread
 * for the two).
 */
const ADDRESS_KEY = randomSipKey();
export function addressId(text: string): number {
  return sipHash13(ADDRESS_KEY, text);
}

export function sipKeyFromBytes(bytes: Uint8Array): SipKey {
  if (bytes.length !== 16) throw new RangeError(`a SipHash key is 16 bytes, got ${bytes.length}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, 16);
  return Uint32Array.of(view.getUint32(0, true), view.getUint32(4, true), view.getUint32(8, true), view.getUint32(12, true));
}

/** Bytes text[at, at + n) (n ≤ 4, each the low 8 bits of a char code) as a little-endian 32-bit word. */
function word(text: string, at: number, n: number): number {
  let w = 0;
  for (let i = n - 1; i >= 0; i--) w = (w << 8) | (text.charCodeAt(at + i) & 0xff);
  return w;
}

/**
 * SipHash-1-3 of the Latin-1 bytes of `text` (each char code's low 8 bits: meant for ASCII such as address
 * text), as its top 53 bits: a number, exact as a Map key without a string per call. 53 bits keep collisions
 * away: among the limiter's 100,000 buckets at most, the chance of any is ~5·10⁻⁷.
 */
export function sipHash13(key: SipKey, text: string): number {
  // One function with the state in int32 locals: module variables boxed every word above 2³¹ (1.1 µs a call),
  // uint32 locals 0.4 µs, these 0.2 µs.
  // "somepseudorandomlygeneratedbytes", xored with the key.
  let v0h = key[1]! ^ 0x736f6d65;
  let v0l = key[0]! ^ 0x70736575;
  let v1h = key[3]! ^ 0x646f7261;
  let v1l = key[2]! ^ 0x6e646f6d;
  let v2h = key[1]! ^ 0x6c796765;
  let v2l = key[0]! ^ 0x6e657261;
  let v3h = key[3]! ^ 0x74656462;
  let v3l = key[2]! ^ 0x79746573;
  const length = text.length;
  const whole = length - (length % 8);
  // Each 8-byte word m: v3 ^= m, 1 round, v0 ^= m. The last word holds the remaining 0..7 bytes and the
  // length mod 256 in its top byte. Then v2 ^= 0xff and 3 rounds.
  for (let at = 0; ; at += 8) {
    const final = at > whole;
    let mh = 0;
    let ml = 0;
    if (final) v2l = v2l ^ 0xff;
    else if (at < whole) {
      ml = word(text, at, 4);
      mh = word(text, at + 4, 4);
    } else {
      const rest = length - whole;
      ml = word(text, at, Math.min(rest, 4));
      mh = (rest > 4 ? word(text, at + 4, rest - 4) : 0) | ((length & 0xff) << 24);
    }
    v3h = v3h ^ mh;
    v3l = v3l ^ ml;
    for (let r = final ? 3 : 1; r > 0; r--) {
      // v0 += v1; v1 = rotl(v1, 13) ^ v0; v0 = rotl(v0, 32)
      let s = (v0l >>> 0) + (v1l >>> 0);
      v0h = (v0h + v1h + (s > 0xffffffff ? 1 : 0)) | 0;
      v0l = s | 0;
      let h = ((v1h << 13) | (v1l >>> 19)) ^ v0h;
      let l = ((v1l << 13) | (v1h >>> 19)) ^ v0l;
      v1h = h;
      v1l = l;
      let t = v0h;
      v0h = v0l;
      v0l = t;
      // v2 += v3; v3 = rotl(v3, 16) ^ v2
      s = (v2l >>> 0) + (v3l >>> 0);
      v2h = (v2h + v3h + (s > 0xffffffff ? 1 : 0)) | 0;
      v2l = s | 0;
      h = ((v3h << 16) | (v3l >>> 16)) ^ v2h;
      l = ((v3l << 16) | (v3h >>> 16)) ^ v2l;
      v3h = h;
      v3l = l;
      // v0 += v3; v3 = rotl(v3, 21) ^ v0
      s = (v0l >>> 0) + (v3l >>> 0);
      v0h = (v0h + v3h + (s > 0xffffffff ? 1 : 0)) | 0;
      v0l = s | 0;
      h = ((v3h << 21) | (v3l >>> 11)) ^ v0h;
      l = ((v3l << 21) | (v3h >>> 11)) ^ v0l;
      v3h = h;
      v3l = l;
      // v2 += v1; v1 = rotl(v1, 17) ^ v2; v2 = rotl(v2, 32)
      s = (v2l >>> 0) + (v1l >>> 0);
      v2h = (v2h + v1h + (s > 0xffffffff ? 1 : 0)) | 0;
      v2l = s | 0;
      h = ((v1h << 17) | (v1l >>> 15)) ^ v2h;
      l = ((v1l << 17) | (v1h >>> 15)) ^ v2l;
      v1h = h;
      v1l = l;
      t = v2h;
      v2h = v2l;
      v2l = t;
    }
    if (final) break;
    v0h = v0h ^ mh;
    v0l = v0l ^ ml;
  }
  const h = (v0h ^ v1h ^ v2h ^ v3h) >>> 0;
  const l = (v0l ^ v1l ^ v2l ^ v3l) >>> 0;
  return h * 2 ** 21 + (l >>> 11);
}
