// Failed credential look-ups per client: past 30 failures in a minute (SVC_FAILED_CREDENTIALS_PER_CLIENT), a client's next requests carrying a
// credential are answered 429 with Retry-After before any look-up, so random API keys or session tokens
// cannot keep the shared database pool busy (each failed key costs a query) or probe keys at volume.
//
// 30 a minute: a dashboard whose session expired fires about a dozen requests at once, each failing once;
// a second tab stays under the limit too. A client with no credential is not counted (the public /healthz
// probe sends none). Counted per address (IPv6 per /64) under an HMAC key held in memory only, with the
// same sliding window and bounded memory as the login limit (login-limiter.ts).
import { ApiError } from "../errors.ts";
import { LOGIN_LIMITER_MAX_CLIENTS, LOGIN_WINDOW_MS, LoginLimiter } from "./login-limiter.ts";

export const FAILED_CREDENTIALS_PER_WINDOW = 30;

export class FailedCredentialLimit {
  /** Null when unlimited (SVC_FAILED_CREDENTIALS_PER_CLIENT=0). */
  private readonly failures: LoginLimiter | null;

  constructor(now: () => number, perMinute: number = FAILED_CREDENTIALS_PER_WINDOW) {
    this.failures = perMinute > 0 ? new LoginLimiter(now, perMinute, LOGIN_WINDOW_MS, LOGIN_LIMITER_MAX_CLIENTS) : null;
  }

  /**
   * Runs `verify` for a client that is under the limit, counting an `unauthorized` outcome against it;
   * throws 429 with Retry-After for a client over it.
   */
  async guard<T>(clientAddress: string | null, verify: () => Promise<T>): Promise<T> {
    const failures = this.failures;
    if (failures === null) return verify();
    const decision = failures.check(clientAddress);
    if (!decision.ok) {
      throw new ApiError("rate_limited", "too many failed credential checks from this client; retry later", undefined, { "retry-after": String(decision.retryAfterSeconds) });
    }
    try {
      return await verify();
    } catch (error) {
      if (error instanceof ApiError && error.reason === "unauthorized") failures.attempt(clientAddress);
      throw error;
    }
  }
}
