// Limits on ingest bodies. Each is a length a real client never reaches, so hitting one means a bug or abuse,
// and each keeps one row bounded: the 64 KB request cap alone would still allow a 60 KB event name.

export const LIMITS = {
  /** A DNS name is at most 253 characters (RFC 1035). */
  domain: 253,
  hostname: 253,
  /** Goal names are matched exactly; 120 fits any readable name. */
  eventName: 120,
  /** 2,048: the URL length every browser and CDN handles; longer page URLs are almost always tracking junk. */
  url: 2048,
  referrer: 2048,
  /** Screen width in CSS pixels; the widest real screens are ~8k, 100,000 leaves room without admitting garbage. */
  screenWidth: 100_000,
  /** Props: at most 30 keys, keys ≤ 64 chars, string values ≤ 256 chars (Plausible-like custom properties). */
  props: 30,
  propKey: 64,
  propValue: 256,
  /** Each utm_* value, as stored. */
  utm: 256,
  /** 16 covers every method in use (WebDAV's BASELINE-CONTROL is 16); only UPDATEREDIRECTREF (17) in the IANA registry is longer. */
  method: 16,
  path: 2048,
  /** Real user agents are < 500 chars; 1,024 keeps the odd long one and bounds the UA cache's memory. */
  userAgent: 1024,
  /** One middleware request carries at most 100 hits. */
  hitBatch: 100,
} as const;
