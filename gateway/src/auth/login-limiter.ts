// At most 10 login attempts per client per minute (a sliding window), so the one admin password cannot be
// guessed online at any useful rate: 14,400 tries a day per address. An IPv6 client is counted per /64 (one
// subscriber's block), or rotating addresses inside it would reset the window.
//
// Many addresses (a botnet) get past any per-client limit, so failures are also counted per account
// (`AccountLockout` below): after 5 consecutive failures each further attempt waits 1 s, then 2, 4, 8… capped
// at 60 s. The operator is never locked out for longer than that one minute, and a botnet gets about one
// guess a minute on the account (1,440 a day) instead of 14,400 per address.
//
// Privacy: the limiter is keyed by HMAC-SHA-256 of the client address under a random key made at boot and held
// only in memory, so not even a heap dump maps back to addresses by hashing the IPv4 space. The address itself
// is never stored, logged or returned.
import { createHmac, randomBytes } from "node:crypto";
import { limiterKey } from "../ingest/client-ip.ts";

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
    return this.decide(clientAddress, true);
  }

  /** Whether this client is over the limit, without recording an attempt (failed-credentials.ts records only failures). */
  check(clientAddress: string | null): LimitDecision {
    return this.decide(clientAddress, false);
  }

  private decide(clientAddress: string | null, record: boolean): LimitDecision {
    const now = this.now();
    const id = createHmac("sha256", this.key).update(limiterKey(clientAddress)).digest("base64url");
    const times = (this.attempts.get(id) ?? []).filter((t) => t > now - this.windowMs);
    this.attempts.delete(id);
    if (times.length >= this.limit) {
      this.attempts.set(id, times);
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((times[0]! + this.windowMs - now) / 1000)) };
    }
    if (!record) {
      if (times.length > 0) this.attempts.set(id, times);
      return { ok: true };
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

/** Failures an account may have in a row before each attempt has to wait. */
export const ACCOUNT_FREE_FAILURES = 5;
export const ACCOUNT_FIRST_DELAY_MS = 1_000;
/** The longest wait: the operator, typing the right password, is never held up for more than a minute. */
export const ACCOUNT_MAX_DELAY_MS = 60_000;
/** A quiet quarter of an hour forgets an account's failures. */
export const ACCOUNT_FORGET_MS = 15 * 60_000;
/** Accounts tracked at once (admin mode has one; unknown e-mails are counted too, so a miss looks like a hit). */
export const ACCOUNT_MAX_TRACKED = 1_000;

interface AccountState {
  failures: number;
  lastFailure: number;
  /** No attempt (right or wrong) is checked before this time. */
  blockedUntil: number;
}

/** Per-account failure counting with growing delays. Accounts are keyed by HMAC of the lower-cased e-mail. */
export class AccountLockout {
  private readonly key = randomBytes(32);
  private readonly accounts = new Map<string, AccountState>();

  constructor(private readonly now: () => number) {}

  private id(email: string): string {
    return createHmac("sha256", this.key).update(email.trim().toLowerCase()).digest("base64url");
  }

  /** Whether an attempt on this account may be checked now. */
  check(email: string): LimitDecision {
    const state = this.current(this.id(email));
    const now = this.now();
    if (!state || state.blockedUntil <= now) return { ok: true };
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((state.blockedUntil - now) / 1000)) };
  }

  failed(email: string): void {
    const id = this.id(email);
    const now = this.now();
    const state = this.current(id) ?? { failures: 0, lastFailure: now, blockedUntil: 0 };
    state.failures++;
    state.lastFailure = now;
    const over = state.failures - ACCOUNT_FREE_FAILURES;
    if (over >= 0) state.blockedUntil = now + Math.min(ACCOUNT_MAX_DELAY_MS, ACCOUNT_FIRST_DELAY_MS * 2 ** Math.min(over, 20));
    this.accounts.delete(id);
    if (this.accounts.size >= ACCOUNT_MAX_TRACKED) this.accounts.delete(this.accounts.keys().next().value as string);
    this.accounts.set(id, state);
  }

  succeeded(email: string): void {
    this.accounts.delete(this.id(email));
  }

  private current(id: string): AccountState | undefined {
    const state = this.accounts.get(id);
    if (state && this.now() - state.lastFailure > ACCOUNT_FORGET_MS) {
      this.accounts.delete(id);
      return undefined;
    }
    return state;
  }
}
