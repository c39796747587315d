// An alert's webhook: a JSON POST signed like Stripe's, so a receiver can check both origin and freshness:
//   X-Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA-256 of "<t>.<body>" under the rule's secret>
// A 2xx is delivered. A network error, a timeout, a 429 or a 5xx is retried after 1 s, 2 s and 4 s (four
// attempts in ~7 s: a receiver restarting is waited for, a dead one does not hold the next alerts); another
// 4xx is not retried (the receiver refused this body). Every attempt is written to the delivery log.
import { createHmac, randomBytes } from "node:crypto";
import { createRedactor, outboundError } from "../outbound/redact.ts";

export const WEBHOOK_SECRET_PREFIX = "whsec_";
export const generateWebhookSecret = (): string => WEBHOOK_SECRET_PREFIX + randomBytes(32).toString("base64url");

export const WEBHOOK_ATTEMPTS = 4;
const TIMEOUT_MS = 10_000;

export function signature(secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex")}`;
}

export interface Attempt {
  readonly attempt: number;
  readonly delivered: boolean;
  readonly httpStatus: number | null;
  readonly error: string | null;
}

const retryable = (status: number) => status === 429 || status >= 500;

/** Posts until delivered, refused or out of attempts; `onAttempt` sees each one. `retryBaseMs` doubles each time. */
export async function postWebhook(
  url: string,
  secret: string,
  payload: unknown,
  options: {
    readonly now: () => number;
    readonly retryBaseMs: number;
    readonly onAttempt: (a: Attempt) => Promise<void>;
    /** The configured secret values (GatewayConfig.secrets); the rule's own secret is added. */
    readonly secrets: readonly string[];
  },
): Promise<boolean> {
  const body = JSON.stringify(payload);
  // The error names the service "webhook", never its URL (whose path or query may carry a token).
  const redact = createRedactor([...options.secrets, secret]);
  for (let attempt = 1; attempt <= WEBHOOK_ATTEMPTS; attempt++) {
    let result: Attempt;
    let again = true;
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "svc-alerts/1", "x-svc-signature": signature(secret, body, Math.floor(options.now() / 1000)) },
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      await res.body?.cancel();
      const delivered = res.status >= 200 && res.status < 300;
      again = !delivered && retryable(res.status);
      result = { attempt, delivered, httpStatus: res.status, error: delivered ? null : outboundError("webhook", { kind: "status", status: res.status, body: "" }, redact) };
    } catch (error) {
      const failure = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError") ? ({ kind: "timeout", ms: TIMEOUT_MS } as const) : ({ kind: "unreachable", cause: error } as const);
      result = { attempt, delivered: false, httpStatus: null, error: outboundError("webhook", failure, redact) };
    }
    await options.onAttempt(result);
    if (result.delivered) return true;
    if (!again || attempt === WEBHOOK_ATTEMPTS) return false;
    await new Promise((resolve) => setTimeout(resolve, options.retryBaseMs * 2 ** (attempt - 1)));
  }
  return false;
}
