// A site's IANA time zone and the instants its local days, weeks and months begin at. Pure (Intl only, no
// I/O). Reports follow the site's zone; visitor identity does not: a visitor hash is one UTC day (salt
// rotated at 00:00 UTC), so a local day holds parts of two UTC days and a person seen on both sides of
// 00:00 UTC within one local day is two visitors (gateway/README.md "Time zones").
//
// Days are "YYYY-MM-DD" strings of the proleptic Gregorian calendar; instants are epoch milliseconds (or a
// Date). Every function works for zones with half-hour and 45-minute offsets (Asia/Kolkata +5:30,
// America/St_Johns −3:30, Asia/Kathmandu +5:45), half-hour DST shifts (Australia/Lord_Howe) and zones
// whose DST change happens at midnight, where a local day begins at 01:00 (America/Santiago, America/Havana).
import { DAY_MS, utcDay } from "./time.ts";

export const DEFAULT_TIME_ZONE = "UTC";

// One formatter per zone: building one costs ~40 µs, formatting with it ~6 µs.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

let known: Map<string, string> | null = null;

/**
 * The stored spelling of an IANA zone name, or null when it is not one. Case-insensitive against the runtime's
 * list ("asia/tokyo" → "Asia/Tokyo"); a name the list lacks but Intl knows (Node 20 lists Asia/Calcutta, not its
 * newer name Asia/Kolkata) is kept as given. Offsets ("+05:30") and abbreviations Intl refuses are not zones.
 */
export function canonicalTimeZone(name: string): string | null {
  if (typeof name !== "string" || name.length === 0 || name.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return null;
  known ??= new Map([DEFAULT_TIME_ZONE, ...Intl.supportedValuesOf("timeZone")].map((z) => [z.toLowerCase(), z]));
  const listed = known.get(name.toLowerCase());
  if (listed !== undefined) return listed;
  try {
    formatter(name);
    return name;
  } catch {
    return null;
  }
}

/** Every zone the runtime lists, UTC first: what a settings form offers. */
export function timeZoneNames(): string[] {
  return [DEFAULT_TIME_ZONE, ...Intl.supportedValuesOf("timeZone").filter((z) => z !== DEFAULT_TIME_ZONE)];
}

const ms = (instant: Date | number): number => (typeof instant === "number" ? instant : instant.getTime());

/** The local wall-clock time at `instant` as if it were UTC (ms, whole seconds). */
function wallClock(instantMs: number, timeZone: string): number {
  let y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  for (const part of formatter(timeZone).formatToParts(instantMs)) {
    switch (part.type) {
      case "year": y = Number(part.value); break;
      case "month": mo = Number(part.value); break;
      case "day": d = Number(part.value); break;
      case "hour": h = Number(part.value); break;
      case "minute": mi = Number(part.value); break;
      case "second": s = Number(part.value); break;
    }
  }
  return Date.UTC(y, mo - 1, d, h, mi, s);
}

/** Local time minus UTC at `instant`, in ms: +19,800,000 for Asia/Kolkata, −12,600,000 for America/St_Johns in winter. */
export function zoneOffsetMs(instant: Date | number, timeZone: string): number {
  const t = ms(instant);
  const whole = Math.floor(t / 1000) * 1000;
  return wallClock(whole, timeZone) - whole;
}

/** The local calendar day ("YYYY-MM-DD") of `instant` in `timeZone`. */
export function zonedDay(instant: Date | number, timeZone: string): string {
  const t = ms(instant);
  return utcDay(t + zoneOffsetMs(t, timeZone));
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** ms at 00:00 UTC of a "YYYY-MM-DD" day; throws RangeError for anything else. */
export function dayMs(day: string): number {
  const m = DAY.exec(day);
  const t = m === null ? NaN : Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (!Number.isFinite(t) || utcDay(t) !== day) throw new RangeError(`not a day (YYYY-MM-DD): ${JSON.stringify(day)}`);
  return t;
}

/** `day` moved by `n` calendar days. */
export function addDays(day: string, n: number): string {
  return utcDay(dayMs(day) + n * DAY_MS);
}

/** The Monday of the (ISO) week holding `day`: weeks start on Monday, as Plausible's `time:week` does. */
export function weekStartDay(day: string): string {
  const t = dayMs(day);
  const weekday = (new Date(t).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return utcDay(t - weekday * DAY_MS);
}

/** The first day of the month holding `day`. */
export function monthStartDay(day: string): string {
  dayMs(day);
  return `${day.slice(0, 8)}01`;
}

/**
 * The first instant of local day `day` in `timeZone`. Usually local midnight; where the clocks skip midnight
 * (a DST change at 00:00) the first instant that reads that day, e.g. 01:00. A day is
 * [zonedDayStart(day), zonedDayStart(addDays(day, 1))): 23, 24, 25 hours, or 23.5 and 24.5 on Lord Howe Island.
 */
export function zonedDayStart(day: string, timeZone: string): Date {
  const midnight = dayMs(day);
  // Local midnight read as UTC, corrected by the offset there, twice (the first guess may sit across a change).
  let t = midnight - zoneOffsetMs(midnight, timeZone);
  t = midnight - zoneOffsetMs(t, timeZone);
  if (zonedDay(t, timeZone) === day && zonedDay(t - 1, timeZone) !== day) return new Date(t);
  // Midnight skipped or repeated: the first instant whose local day is `day`, by bisection over ±36 h
  // (local days never go backwards, so "is on or after `day`" is monotonic in the instant).
  let lo = midnight - 36 * 3_600_000;
  let hi = midnight + 36 * 3_600_000;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (zonedDay(mid, timeZone) >= day) hi = mid;
    else lo = mid;
  }
  return new Date(hi);
}

/** The first instant of the local day holding `instant`. */
export function zonedStartOfDay(instant: Date | number, timeZone: string): Date {
  return zonedDayStart(zonedDay(instant, timeZone), timeZone);
}

/** The first instant of the local (Monday-first) week holding `instant`. */
export function zonedWeekStart(instant: Date | number, timeZone: string): Date {
  return zonedDayStart(weekStartDay(zonedDay(instant, timeZone)), timeZone);
}

/** The first instant of the local month holding `instant`. */
export function zonedMonthStart(instant: Date | number, timeZone: string): Date {
  return zonedDayStart(monthStartDay(zonedDay(instant, timeZone)), timeZone);
}

/** Whether local midnights of this zone fall on whole UTC hours at `instant` (false for +5:30, −3:30, +5:45). */
export function isWholeHourOffset(instant: Date | number, timeZone: string): boolean {
  return zoneOffsetMs(instant, timeZone) % 3_600_000 === 0;
}
