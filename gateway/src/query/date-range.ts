// Date ranges of a query in the site's time zone: Plausible's shortcuts ("7d" = the last 7 days including
// today, "month" = this calendar month …), explicit dates (local days, both ends included) or date-times,
// the comparison range, and every time bucket of a range (include.time_labels).
import { DAY_MS, addDays, zoneOffsetMs, zonedDay, zonedDayStart } from "@svc/core";
import type { Comparison, RawDateRange, TimeDimension } from "./request.ts";

export interface ResolvedRange {
  /** First instant counted (ms, inclusive). */
  readonly fromMs: number;
  /** First instant no longer counted (ms, exclusive). */
  readonly toMs: number;
  /** Local first and last day ("YYYY-MM-DD", both inclusive). */
  readonly firstDay: string;
  readonly lastDay: string;
  /** A range of whole local days (false for date-times and "24h"). */
  readonly wholeDays: boolean;
}

/** The instant after the second `iso` names: an end date-time includes its whole second. */
const endOfSecond = (iso: string): number => Math.floor(Date.parse(iso) / 1000) * 1000 + 1000;

const monthStart = (day: string): string => `${day.slice(0, 7)}-01`;
function addMonths(day: string, months: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
  const lastOfMonth = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastOfMonth));
  return target.toISOString().slice(0, 10);
}
const monthEnd = (day: string): string => addDays(addMonths(monthStart(day), 1), -1);

export function daysRange(firstDay: string, lastDay: string, timeZone: string): ResolvedRange {
  return { fromMs: zonedDayStart(firstDay, timeZone).getTime(), toMs: zonedDayStart(addDays(lastDay, 1), timeZone).getTime(), firstDay, lastDay, wholeDays: true };
}

function instantsRange(fromMs: number, toMs: number, timeZone: string): ResolvedRange {
  return { fromMs, toMs, firstDay: zonedDay(fromMs, timeZone), lastDay: zonedDay(toMs - 1, timeZone), wholeDays: false };
}

/** The range a query's date_range names, seen from `nowMs` in `timeZone`; "all" reaches back `retentionDays`. */
export function resolveRange(range: RawDateRange, timeZone: string, nowMs: number, retentionDays: number): ResolvedRange {
  const today = zonedDay(nowMs, timeZone);
  if (Array.isArray(range)) {
    const [a, b] = range as readonly [string, string];
    // Date-times: the end second is included, as in Plausible's "…T15:59:59+02:00".
    if (a.includes("T")) return instantsRange(Date.parse(a), endOfSecond(b), timeZone);
    return daysRange(a, b, timeZone);
  }
  switch (range as Exclude<RawDateRange, readonly [string, string]>) {
    case "day":
      return daysRange(today, today, timeZone);
    case "24h":
      // The 24 hours that end with now, now included: a row stamped this millisecond (every row of a test on a
      // stopped clock, the dashboard's "Last 24 hours" right after an event) counts, as it does in "day".
      return instantsRange(nowMs - DAY_MS + 1, nowMs + 1, timeZone);
    case "7d":
      return daysRange(addDays(today, -6), today, timeZone);
    case "28d":
      return daysRange(addDays(today, -27), today, timeZone);
    case "30d":
      return daysRange(addDays(today, -29), today, timeZone);
    case "91d":
      return daysRange(addDays(today, -90), today, timeZone);
    case "month":
      return daysRange(monthStart(today), monthEnd(today), timeZone);
    case "6mo":
      return daysRange(addMonths(monthStart(today), -5), monthEnd(today), timeZone);
    case "12mo":
      return daysRange(addMonths(monthStart(today), -11), monthEnd(today), timeZone);
    case "year":
      return daysRange(`${today.slice(0, 4)}-01-01`, `${today.slice(0, 4)}-12-31`, timeZone);
    case "all":
      return daysRange(addDays(today, -retentionDays), today, timeZone);
  }
}

const dayOfWeek = (day: string): number => new Date(`${day}T00:00:00Z`).getUTCDay();
const daysBetween = (a: string, b: string): number => Math.round((Date.parse(b) - Date.parse(a)) / DAY_MS);

/**
 * The range a comparison measures against. previous_period: as long, just before; year_over_year: the same
 * dates a year earlier (29 February → 28th); custom: its own dates. With match_day_of_week the comparison
 * moves back to the nearest earlier start on the main range's weekday, keeping its length.
 */
export function comparisonRange(main: ResolvedRange, comparison: Comparison, timeZone: string): ResolvedRange {
  if (comparison.mode === "custom") {
    const [a, b] = comparison.dateRange!;
    return a.includes("T") ? instantsRange(Date.parse(a), endOfSecond(b), timeZone) : daysRange(a, b, timeZone);
  }
  if (!main.wholeDays) {
    const shift = comparison.mode === "previous_period" ? main.toMs - main.fromMs : main.fromMs - Date.parse(new Date(addYearsIso(main.fromMs, -1)).toISOString());
    return instantsRange(main.fromMs - shift, main.toMs - shift, timeZone);
  }
  const length = daysBetween(main.firstDay, main.lastDay) + 1;
  let first = comparison.mode === "previous_period" ? addDays(main.firstDay, -length) : addYears(main.firstDay, -1);
  if (comparison.matchDayOfWeek) first = addDays(first, -((dayOfWeek(first) - dayOfWeek(main.firstDay) + 7) % 7));
  const last = comparison.mode === "year_over_year" && !comparison.matchDayOfWeek ? addYears(main.lastDay, -1) : addDays(first, length - 1);
  return daysRange(first, last, timeZone);
}

function addYears(day: string, years: number): string {
  return addMonths(day, years * 12);
}
function addYearsIso(ms: number, years: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear() + years, d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
}

/** The bucket `time` stands for: hours up to two days, days up to 40, weeks up to a year, months beyond. */
export function timeGrain(dimension: TimeDimension, range: ResolvedRange): Exclude<TimeDimension, "time"> {
  if (dimension !== "time") return dimension;
  const days = daysBetween(range.firstDay, range.lastDay) + 1;
  if (days <= 2) return "time:hour";
  if (days <= 40) return "time:day";
  if (days <= 366) return "time:week";
  return "time:month";
}

/**
 * Every bucket label of the range, in order, as the SQL writes them: hours "YYYY-MM-DD HH:00:00" (local),
 * days, weeks (Mondays; the first is the range's first day when it starts mid-week) and months (likewise).
 */
export function timeLabels(grain: Exclude<TimeDimension, "time">, range: ResolvedRange): string[] {
  const labels: string[] = [];
  if (grain === "time:hour") {
    for (let day = range.firstDay; day <= range.lastDay; day = addDays(day, 1)) {
      for (let h = 0; h < 24; h++) labels.push(`${day} ${h < 10 ? "0" : ""}${h}:00:00`);
    }
    return labels;
  }
  for (let day = range.firstDay; day <= range.lastDay; day = addDays(day, 1)) {
    if (day === range.firstDay) labels.push(day);
    else if (grain === "time:day") labels.push(day);
    else if (grain === "time:week" && dayOfWeek(day) === 1) labels.push(day);
    else if (grain === "time:month" && day.endsWith("-01")) labels.push(day);
  }
  return labels;
}

/** ISO 8601 with the zone's offset at that instant ("2024-01-01T00:00:00+05:30"), for the echoed query. */
export function isoInZone(ms: number, timeZone: string): string {
  const offsetMs = zoneOffsetMs(ms, timeZone);
  const local = new Date(ms + offsetMs).toISOString().slice(0, 19);
  const sign = offsetMs < 0 ? "-" : "+";
  const abs = Math.abs(offsetMs) / 60_000;
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}
