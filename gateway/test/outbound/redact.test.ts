// The outbound redaction step (src/outbound/redact.ts), table-driven: each kind of secret a server may echo
// in an error, and the sentences outboundError builds. No I/O.
import { describe, expect, it } from "vitest";
import { REDACTED, createRedactor, outboundError, redactUrlPasswords } from "../../src/outbound/redact.ts";

const SECRETS = ["configured-secret-value", "p@ss word/with:chars", "abc"];
const redact = createRedactor(SECRETS);

describe("redact", () => {
  it.each([
    { why: "a configured secret value", text: "refused configured-secret-value here", out: `refused ${REDACTED} here` },
    { why: "its URL-encoded form", text: `q=${encodeURIComponent("p@ss word/with:chars")}`, out: `q=${REDACTED}` },
    { why: "a configured value under 4 characters is not searched for", text: "abc is a word", out: "abc is a word" },
    { why: "a Bearer token", text: "Incorrect API key provided: Bearer sk-abc123xyz.", out: `Incorrect API key provided: Bearer ${REDACTED}.` },
    { why: "a Basic credential", text: "Authorization: Basic dXNlcjpwYXNz", out: `Authorization: Basic ${REDACTED}` },
    { why: "OpenAI project and Anthropic keys", text: "sk-proj-AbC_123-xyz and sk-ant-api03-Zz9", out: `${REDACTED} and ${REDACTED}` },
    { why: "a Google API key", text: `key AIza${"x".repeat(35)} invalid`, out: `key ${REDACTED} invalid` },
    { why: "svc's own keys", text: "svc_live_AbCdEf123 and svc_hit_Zz9yY8", out: `${REDACTED} and ${REDACTED}` },
    { why: "a JWT", text: "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig-nat_ure ok", out: `token ${REDACTED} ok` },
    { why: "a key in a query string, the URL itself replaced", text: "GET ?key=AbCdEf&x=1 failed", out: `GET ?key=${REDACTED}&x=1 failed` },
    { why: "an echoed x-api-key header", text: `{"x-api-key": "live-123456"}`, out: `{"x-api-key": "${REDACTED}"}` },
    { why: "a URL with credentials and an internal host", text: "proxy https://user:pw@10.0.0.5:8443/v1 down", out: "proxy (url) down" },
    { why: "a socket error's address", text: "connect ECONNREFUSED 127.0.0.1:11434", out: "connect ECONNREFUSED (address)" },
    { why: "a bracketed IPv6 address", text: "connect ECONNREFUSED [::1]:11434", out: "connect ECONNREFUSED (address)" },
    { why: "ordinary words stay", text: "the model llama3.2 is not installed; risk-free task-force", out: "the model llama3.2 is not installed; risk-free task-force" },
  ])("$why", ({ text, out }) => {
    expect(redact(text)).toBe(out);
    expect(redact(out)).toBe(out);
  });

  it("replaces a secret that contains another whole", () => {
    expect(createRedactor(["secret", "secret-longer"])("x secret-longer y")).toBe(`x ${REDACTED} y`);
  });

  it("keeps the URL password redaction of boot errors", () => {
    expect(redactUrlPasswords("postgres://svc:hunter2@db:5432/svc")).toBe("postgres://svc:***@db:5432/svc");
  });
});

describe("outboundError", () => {
  const refused = Object.assign(new TypeError("fetch failed"), { cause: Object.assign(new Error("connect ECONNREFUSED 10.1.1.1:25"), { code: "ECONNREFUSED" }) });
  it.each([
    { why: "unreachable: the code in words, never the address", failure: { kind: "unreachable", cause: refused } as const, out: "smtp could not be reached (connection refused: nothing listens there)" },
    { why: "an unknown failure without a code", failure: { kind: "unreachable", cause: new Error("boom at 10.1.1.1") } as const, out: "smtp could not be reached (connection failed)" },
    { why: "a timeout", failure: { kind: "timeout", ms: 1500 } as const, out: "smtp did not answer within 1500 ms" },
    { why: "a status with its body redacted and cut", failure: { kind: "status", status: 535, body: `auth failed for configured-secret-value ${"x".repeat(400)}` } as const, out: `smtp answered HTTP 535: auth failed for ${REDACTED} ${"x".repeat(300 - 27)}` },
    { why: "a status without a body", failure: { kind: "status", status: 502, body: " \n" } as const, out: "smtp answered HTTP 502" },
    // A mail library's error: its code, reply code and command only — the server's reply text (here echoing the
    // AUTH exchange and the recipient) never.
    {
      why: "an SMTP refusal keeps code, reply code and command only",
      failure: { kind: "smtp", cause: Object.assign(new Error("Invalid login: 535 bad auth for configured-secret-value <a@b.example>"), { code: "EAUTH", responseCode: 535, command: "AUTH PLAIN", response: "535 configured-secret-value" }) } as const,
      out: "smtp failed (EAUTH, SMTP 535, during AUTH PLAIN)",
    },
    { why: "an SMTP socket error in words", failure: { kind: "smtp", cause: Object.assign(new Error("connect ECONNREFUSED 10.1.1.1:25"), { code: "ECONNREFUSED" }) } as const, out: "smtp failed (connection refused: nothing listens there)" },
    { why: "an SMTP error whose fields have the wrong shape", failure: { kind: "smtp", cause: Object.assign(new Error("x"), { code: "bad code with 10.1.1.1", command: "rcpt to:<a@b.example>" }) } as const, out: "smtp failed (no reason given)" },
  ])("$why", ({ failure, out }) => {
    expect(outboundError("smtp", failure, redact)).toBe(out);
  });
});
