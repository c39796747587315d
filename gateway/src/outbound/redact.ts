// The one redaction step for what an outbound call brings back. A server that refuses a key often echoes it (an
// OpenAI-compatible endpoint answers 401 with "Incorrect API key provided: Bearer sk-…"), and a socket error
// names the internal address it tried; such text used to be stored as an insights run's error and served to
// every read key, the dashboard and the MCP `insights` tool. Every error of a call the gateway makes to another
// service (language-model providers, SMTP, alert webhooks) goes through
// `outboundError` before it is stored, logged or served, and stored text is passed through `redact` again when
// served, so a row written before this step existed leaks nothing either.
//
// Pure: the configured secret values are given once at boot (GatewayConfig.secrets).

/** What replaces a secret value or a token. */
export const REDACTED = "(redacted)";

// Shorter configured values are not searched for: a 1–3 character "secret" would blank out ordinary words. The
// gateway refuses passwords under 8 characters and JWT secrets under 32 anyway (config.ts).
const MIN_SECRET_LENGTH = 4;

// Token shapes, whatever their source: a provider may echo a key the gateway never had (a proxy's own), and a
// test key like "sk-test" is not a configured value anywhere the error is read.
//   Bearer/Basic credentials of an Authorization header, as echoed in a message ("Bearer sk-…").
//   OpenAI and Anthropic keys (sk-…, sk-proj-…, sk-ant-…), Google API keys (AIza + 35), svc's own keys.
//   A JWT (three base64url parts, the first two starting with eyJ, a JSON object's "{\"").
//   key=, api_key=, token=, access_token=, password= in a query string or a form body (Gemini takes ?key=).
//   x-api-key / x-goog-api-key / api_key as echoed "name: value" or JSON "name":"value".
const TOKEN_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  // (A token may hold dots, as a JWT does, but the sentence's own full stop after it is kept.)
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{3,}[A-Za-z0-9_~+/=-]/gi, `$1 ${REDACTED}`],
  [/\bsk-[A-Za-z0-9_-]{3,}/g, REDACTED],
  [/\bAIza[0-9A-Za-z_-]{20,}/g, REDACTED],
  [/\bsvc_(?:live|hit)_[A-Za-z0-9_-]{4,}/g, REDACTED],
  [/\beyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, REDACTED],
  [/([?&;](?:api[_-]?key|key|token|access_token|password|secret)=)[^&\s"'#]+/gi, `$1${REDACTED}`],
  [/((?:x-api-key|x-goog-api-key|api[_-]?key)["']?\s*[:=]\s*["']?)[^\s"',}]{4,}/gi, `$1${REDACTED}`],
];
// A whole URL — what a message must not carry: the provider's internal address, and any credentials in it
// ("https://user:key@proxy/v1", "…?key=…").
const URL = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)]+/gi;
// IPv4 addresses (with a port) and bracketed IPv6 ones, as socket errors write them ("connect ECONNREFUSED
// 127.0.0.1:11434").
const ADDRESS = /\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b|\[[0-9a-f:.]+\](?::\d{1,5})?/gi;

/** `postgres://user:secret@host` → `postgres://user:***@host`, anywhere in a text (boot errors, echoed values). */
export function redactUrlPasswords(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s@/]*@/gi, "$1:***@");
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export type Redact = (text: string) => string;

/**
 * The redaction step with the configured secret values: each value (and its URL-encoded form) replaced, then
 * any token-shaped string, every URL (with its credentials) and network address. Idempotent.
 */
export function createRedactor(secrets: Iterable<string | null | undefined>): Redact {
  const values = new Set<string>();
  for (const s of secrets) {
    if (typeof s !== "string" || s.length < MIN_SECRET_LENGTH) continue;
    values.add(s);
    values.add(encodeURIComponent(s));
  }
  // Longest first, so a secret that contains another is replaced whole.
  const known = values.size === 0 ? null : new RegExp([...values].sort((a, b) => b.length - a.length).map(escapeRegExp).join("|"), "g");
  return (text) => {
    let out = known ? text.replace(known, REDACTED) : text;
    for (const [pattern, replacement] of TOKEN_PATTERNS) out = out.replace(pattern, replacement);
    return out.replace(URL, "(url)").replace(ADDRESS, "(address)");
  };
}

/** How an outbound call failed, as the caller saw it. */
export type OutboundFailure =
  | { readonly kind: "unreachable"; readonly cause: unknown }
  | { readonly kind: "timeout"; readonly ms: number }
  | { readonly kind: "status"; readonly status: number; readonly body: string }
  | { readonly kind: "answer"; readonly what: string }
  /** A mail library's error: only its code, SMTP reply code and command are kept — an SMTP server's reply text
   *  can echo the recipient or the AUTH exchange. */
  | { readonly kind: "smtp"; readonly cause: unknown };

// A provider's error body is quoted in the message, cut to 300 characters (after redaction, so a cut never
// leaves half a key unrecognised).
export const ERROR_BODY_MAX = 300;

// Socket and TLS error codes as words: the code says what to fix; the message around it names the address.
const SOCKET_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused: nothing listens there",
  ENOTFOUND: "host name not found",
  EAI_AGAIN: "host name lookup failed",
  ECONNRESET: "connection reset",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  EPIPE: "connection closed",
  UND_ERR_SOCKET: "connection closed",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  CERT_HAS_EXPIRED: "TLS certificate expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "TLS certificate not trusted (self-signed)",
  SELF_SIGNED_CERT_IN_CHAIN: "TLS certificate not trusted (self-signed)",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "TLS certificate not trusted",
  ERR_TLS_CERT_ALTNAME_INVALID: "TLS certificate is for another host",
};

/** The error code of a fetch failure (`TypeError("fetch failed")` wraps the system error as its cause). */
function codeOf(cause: unknown): string | null {
  let e: unknown = cause;
  for (let depth = 0; depth < 4 && e instanceof Error; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    e = e.cause;
  }
  return null;
}

/**
 * The sentence stored, logged and served for a failed outbound call: `service` (a provider's name, "smtp", a
 * webhook's name — never its URL), then the HTTP status or what went wrong, every part redacted.
 */
export function outboundError(service: string, failure: OutboundFailure, redact: Redact): string {
  switch (failure.kind) {
    case "unreachable": {
      const code = codeOf(failure.cause);
      return `${service} could not be reached (${code === null ? "connection failed" : (SOCKET_CODES[code] ?? redact(code))})`;
    }
    case "timeout":
      return `${service} did not answer within ${failure.ms} ms`;
    case "status": {
      const excerpt = redact(failure.body.replace(/\s+/g, " ").trim()).slice(0, ERROR_BODY_MAX);
      return `${service} answered HTTP ${failure.status}${excerpt ? `: ${excerpt}` : ""}`;
    }
    case "answer":
      return `${service} ${redact(failure.what)}`;
    case "smtp":
      return `${service} failed (${smtpParts(failure.cause)})`;
  }
}

/** The fixed fields of a nodemailer error (`code`, `responseCode`, `command`), each checked by shape. */
function smtpParts(cause: unknown): string {
  const e = (cause ?? {}) as { responseCode?: unknown; command?: unknown; name?: unknown };
  const parts: string[] = [];
  const code = codeOf(cause);
  if (code !== null && /^[A-Z_]{2,40}$/.test(code)) parts.push(SOCKET_CODES[code] ?? code);
  if (typeof e.responseCode === "number") parts.push(`SMTP ${e.responseCode}`);
  if (typeof e.command === "string" && /^[A-Z ]{2,20}$/.test(e.command)) parts.push(`during ${e.command}`);
  if (parts.length === 0) parts.push(e.name === "TimeoutError" || e.name === "AbortError" ? "timed out" : "no reason given");
  return parts.join(", ");
}
