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

/** A chart bucket in words: "Nov 25, 14:00–15:00 UTC", "Tue, Nov 25, 2026", "Nov 17 – Nov 23", "Nov 2026" (or its part). */
export function formatBucket(iso: string, granularity: "hour" | "day" | "week" | "month", endIso?: string): string {
  const start = Date.parse(iso);
  if (Number.isNaN(start)) return iso;
  if (granularity === "day") return weekdayFormat.format(start);
  const end = endIso ? Date.parse(endIso) : NaN;
  if (granularity === "month" && new Date(start).getUTCDate() === 1 && !Number.isNaN(end) && new Date(end).getUTCDate() === 1) return monthFormat.format(start);
  return formatSpan(iso, endIso ?? new Date(start + (granularity === "hour" ? HOUR_MS : DAY_MS)).toISOString());
}

/** A chart axis label: the hour ("14:00"), the day or week's first day ("Nov 25"), the month ("Nov '26"). */
export function formatTick(iso: string, granularity: "hour" | "day" | "week" | "month"): string {
  const ms = Date.parse(iso);
  if (granularity === "hour") return clock(ms);
  if (granularity === "month") return shortMonthFormat.format(ms).replace(/ (\d{2})$/, " '$1");
  return dayFormat.format(ms);
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
const weekdayFormat = new Intl.DateTimeFormat("en", { timeZone: "UTC", weekday: "short", month: "short", day: "numeric", year: "numeric" });
const monthFormat = new Intl.DateTimeFormat("en", { timeZone: "UTC", month: "long", year: "numeric" });
const shortMonthFormat = new Intl.DateTimeFormat("en", { timeZone: "UTC", month: "short", year: "2-digit" });

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
