// At most 10 login attempts per client per minute (a sliding window), so the one admin password cannot be
// guessed online at any useful rate: 14,400 tries a day per address.
//
// Privacy: the limiter is keyed by HMAC-SHA-256 of the client address under a random key made at boot and held
// only in memory, so not even a heap dump maps back to addresses by hashing the IPv4 space. The address itself
// is never stored, logged or returned.
import { createHmac, randomBytes } from "node:crypto";

export const LOGIN_ATTEMPTS_PER_WINDOW = 10;
export const LOGIN_WINDOW_MS = 60_000;
/** 10,000 clients × ≤ 10 timestamps ≈ 1 MB at most; past that the least recently seen client is forgotten. */
export const LOGIN_LIMITER_MAX_CLIENTS = 10_000;

export type LimitDecision = { readonly ok: true } | { readonly ok: false; readonly retryAfterSeconds: number };

export class LoginLimiter {
  private readonly key = randomBytes(32);
  /** Client digest → attempt times (ms), oldest first. Map order = least recently seen first. */
  private readonly attempts = new Map<string, number[]>();

  constructor(
    private readonly now: () => number,
    private readonly limit = LOGIN_ATTEMPTS_PER_WINDOW,
    private readonly windowMs = LOGIN_WINDOW_MS,
    private readonly maxClients = LOGIN_LIMITER_MAX_CLIENTS,
  ) {}

  get size(): number {
    return this.attempts.size;
  }

  /** Records an attempt by this client address (null = unknown address, one shared bucket) unless it is over the limit. */
  attempt(clientAddress: string | null): LimitDecision {
    const now = this.now();
    const id = createHmac("sha256", this.key).update(clientAddress ?? "").digest("base64url");
    const times = (this.attempts.get(id) ?? []).filter((t) => t > now - this.windowMs);
    this.attempts.delete(id);
    if (times.length >= this.limit) {
      this.attempts.set(id, times);
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((times[0]! + this.windowMs - now) / 1000)) };
    }
    times.push(now);
    if (this.attempts.size >= this.maxClients) this.evict(now);
    this.attempts.set(id, times);
    return { ok: true };
  }

  private evict(now: number): void {
    for (const [id, times] of this.attempts) {
      if (times[times.length - 1]! <= now - this.windowMs) this.attempts.delete(id);
    }
    while (this.attempts.size >= this.maxClients) {
      const oldest = this.attempts.keys().next().value as string;
      this.attempts.delete(oldest);
    }
  }
}
