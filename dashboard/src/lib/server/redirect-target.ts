/** Where to go after sign-in: only a path of this dashboard; `https://evil.example` or `//evil.example` gives /app. */
export function safeNext(value: unknown): string {
  const next = typeof value === "string" ? value : "";
  return /^\/app(?:[/?#][^\\]*)?$/.test(next) && !next.startsWith("//") ? next : "/app";
}
