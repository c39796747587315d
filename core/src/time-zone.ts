// A site's IANA time zone turned into instants: where its local days begin. Reports (date ranges, "today",
// day/week/month buckets) follow the site's zone; visitor identity does not (hashes rotate at 00:00 UTC).
// Pure: Intl's tz database (full ICU ships with Node) answers the offsets, so half-hour and 45-minute zones
// and daylight-saving days (23 or 25 hours long) come out right.
import { DAY_MS } from "./time.ts";

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

/** Whether Intl knows the zone (an IANA name such as "Europe/Berlin", or "UTC"). */
export function isTimeZone(timeZone: string): boolean {
  if (timeZone.length === 0 || timeZone.length > 64) return false;
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC at the instant `ms`, in ms (Asia/Kolkata: +19,800,000). */
export function zoneOffsetMs(ms: number, timeZone: string): number {
  const parts: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms))) parts[p.type] = p.value;
  const local = Date.UTC(Number(parts["year"]), Number(parts["month"]) - 1, Number(parts["day"]), Number(parts["hour"]), Number(parts["minute"]), Number(parts["second"]));
  return local - (ms - (((ms % 1000) + 1000) % 1000));
}

/** "YYYY-MM-DD" of the local day containing `ms` in `timeZone`. */
export function zonedDay(ms: number, timeZone: string): string {
  return new Date(ms + zoneOffsetMs(ms, timeZone)).toISOString().slice(0, 10);
}

/** The instant local `day` ("YYYY-MM-DD") begins in `timeZone` (00:00 local, or the first instant after a gap). */
export function zonedDayStart(day: string, timeZone: string): Date {
  const midnightAsUtc = Date.parse(`${day}T00:00:00Z`);
  if (Number.isNaN(midnightAsUtc)) throw new RangeError(`not a day: ${day}`);
  // Two passes: the offset a few hours before midnight, then the offset at the instant found (a DST change
  // between the two moves it once more).
  let guess = midnightAsUtc - zoneOffsetMs(midnightAsUtc, timeZone);
  guess = midnightAsUtc - zoneOffsetMs(guess, timeZone);
  // A zone that skips midnight (a spring-forward at 00:00) starts the day at the first instant that is on it.
  if (zonedDay(guess, timeZone) !== day) guess += Math.abs(zoneOffsetMs(guess + DAY_MS / 2, timeZone) - zoneOffsetMs(guess, timeZone));
  return new Date(guess);
}

/** `day` moved by `days` calendar days ("2024-03-01", -1 → "2024-02-29"). */
export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}
