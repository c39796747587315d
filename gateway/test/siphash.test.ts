// The limiter's keyed hash against the published SipHash-2-4 vectors (the reference implementation's
// vectors_sip64: key 00 01 … 0f, message 00 01 … n−1), as the top 53 bits it returns, and its use of the key.
import { describe, expect, it } from "vitest";
import { randomSipKey, sipHash24, sipKeyFromBytes } from "../src/ingest/siphash.ts";

const referenceKey = sipKeyFromBytes(Uint8Array.from({ length: 16 }, (_, i) => i));
const message = (n: number) => String.fromCharCode(...Array.from({ length: n }, (_, i) => i));

describe("sipHash24", () => {
  it.each([
    [0, 0x726fdb47dd0e0e31n], [1, 0x74f839c593dc67fdn], [2, 0x0d6c8009d9a94f5an], [3, 0x85676696d7fb7e2dn],
    [4, 0xcf2794e0277187b7n], [5, 0x18765564cd99a68dn], [6, 0xcbc9466e58fee3cen], [7, 0xab0200f58b01d137n],
    [8, 0x93f5f5799a932462n], [9, 0x9e0082df0ba9e4b0n], [15, 0xa129ca6149be45e5n], [16, 0x3f2acc7f57c29bdbn],
  ])("a %i-byte message gives the reference value", (n, reference) => {
    expect(sipHash24(referenceKey, message(n))).toBe(Number(reference >> 11n));
  });

  it("depends on the key: the same address under two process keys files under two values", () => {
    expect(sipHash24(randomSipKey(), "203.0.113.7")).not.toBe(sipHash24(randomSipKey(), "203.0.113.7"));
    expect(() => sipKeyFromBytes(new Uint8Array(15))).toThrow(RangeError);
  });
});
