// Numbers as people read them: 1,234 and 12.3k, changes as +12 % / −4 %, UTC buckets as dates or hours.
const whole = new Intl.NumberFormat("en", { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });
const ratio = new Intl.NumberFormat("en", { maximumFractionDigits: 2 });

/** Exact below 10,000 (so a tile's text is the API's number), compact above. */
export function formatCount(n: number): string {
  return Math.abs(n) < 10_000 ? whole.format(n) : compact.format(n);
}

export const formatExact = (n: number) => whole.format(n);
export const formatRatio = (n: number | null) => (n === null ? "–" : ratio.format(n));

export function formatChange(change: number | null): string {
  if (change === null) return "new";
  const pct = Math.round(change * 100);
  return `${pct > 0 ? "+" : pct < 0 ? "−" : "±"}${Math.abs(pct)} %`;
}

export function formatShare(value: number | null): string {
  return value === null ? "–" : `${(value * 100).toFixed(1)} %`;
}

export function formatBucket(iso: string, granularity: "hour" | "day"): string {
  const d = new Date(iso);
  if (granularity === "hour") return `${d.toISOString().slice(5, 10)} ${d.toISOString().slice(11, 16)} UTC`;
  return d.toISOString().slice(0, 10);
}

export function formatWhen(iso: string | null): string {
  if (!iso) return "never";
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
