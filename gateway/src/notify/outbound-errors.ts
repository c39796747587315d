// What an outbound failure (SMTP, a webhook) may say in a log line or the delivery log: its kind and code,
// never the server's reply text, an address, a URL or a credential. An SMTP server's reply can echo the
// recipient or the AUTH exchange, and a webhook URL may carry a token in its path or query, so only these
// fixed fields pass. (The trust issue's one redaction step for outbound errors, when merged, takes this place.)
export function outboundError(error: unknown): string {
  const e = (error ?? {}) as { code?: unknown; responseCode?: unknown; command?: unknown; name?: unknown; cause?: { code?: unknown } };
  const parts: string[] = [];
  const code = typeof e.code === "string" ? e.code : typeof e.cause?.code === "string" ? e.cause.code : null;
  if (code !== null && /^[A-Z_]{2,40}$/.test(code)) parts.push(code);
  if (typeof e.responseCode === "number") parts.push(`SMTP ${e.responseCode}`);
  if (typeof e.command === "string" && /^[A-Z ]{2,20}$/.test(e.command)) parts.push(`during ${e.command}`);
  if (parts.length === 0) parts.push(e.name === "TimeoutError" || e.name === "AbortError" ? "timed out" : "failed");
  return parts.join(", ");
}
