// Failed credential look-ups per client: past 30 failures in a minute, a client's next requests carrying a
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
  private readonly failures: LoginLimiter;

  constructor(now: () => number) {
    this.failures = new LoginLimiter(now, FAILED_CREDENTIALS_PER_WINDOW, LOGIN_WINDOW_MS, LOGIN_LIMITER_MAX_CLIENTS);
  }

  /**
   * Runs `verify` for a client that is under the limit, counting an `unauthorized` outcome against it;
   * throws 429 with Retry-After for a client over it.
   */
  async guard<T>(clientAddress: string | null, verify: () => Promise<T>): Promise<T> {
    const decision = this.failures.check(clientAddress);
    if (!decision.ok) {
      throw new ApiError("rate_limited", "too many failed credential checks from this client; retry later", undefined, { "retry-after": String(decision.retryAfterSeconds) });
    }
    try {
      return await verify();
    } catch (error) {
      if (error instanceof ApiError && error.reason === "unauthorized") this.failures.attempt(clientAddress);
      throw error;
    }
  }
}
