// Numbers as people read them: 1,234 and 12.3k, changes as +12 % / −4 %, UTC buckets as dates or hours,
// spans of time as "Nov 23, 14:00–17:00 UTC".
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

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const dayFormat = new Intl.DateTimeFormat("en", { timeZone: "UTC", month: "short", day: "numeric" });
const yearDayFormat = new Intl.DateTimeFormat("en", { timeZone: "UTC", month: "short", day: "numeric", year: "numeric" });
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);

/**
 * A span of UTC time with an exclusive end, readably: whole days as "Nov 23" or "Nov 23 – Nov 25" (the end day
 * included), hours as "Nov 23, 14:00–17:00 UTC" or "Nov 23, 22:00 – Nov 24, 02:00 UTC"; the year only when the
 * span crosses one. `end` null: still running ("… – now"). Unparseable input is returned as it came.
 */
export function formatSpan(startIso: string, endIso: string | null): string {
  const start = Date.parse(startIso);
  const end = endIso === null ? null : Date.parse(endIso);
  if (Number.isNaN(start) || (end !== null && Number.isNaN(end))) return endIso === null ? startIso : `${startIso} – ${endIso}`;
  const crossesYear = end !== null && new Date(start).getUTCFullYear() !== new Date(end - 1).getUTCFullYear();
  const day = (ms: number) => (crossesYear ? yearDayFormat : dayFormat).format(ms);
  if (end === null) return `${day(start)}, ${clock(start)} – now UTC`;
  if (start % DAY_MS === 0 && end % DAY_MS === 0) {
    const last = end - DAY_MS;
    return last <= start ? day(start) : `${day(start)} – ${day(last)}`;
  }
  return day(start) === day(end) || (end - start <= DAY_MS && end % DAY_MS === 0)
    ? `${day(start)}, ${clock(start)}–${end % DAY_MS === 0 ? "24:00" : clock(end)} UTC`
    : `${day(start)}, ${clock(start)} – ${day(end)}, ${clock(end)} UTC`;
}

/** The UTC days or hours a read answered for (the API's echo), as formatSpan puts it; `end` null for "now". */
export function formatWindow(w: { from: string; to: string; start?: string }, end: string | null = null): string {
  if (w.start) return formatSpan(w.start, end);
  return formatSpan(`${w.from}T00:00:00Z`, new Date(Date.parse(`${w.to}T00:00:00Z`) + DAY_MS).toISOString()) + " (UTC)";
}
