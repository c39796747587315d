// Local-day boundaries as UTC instants, for the zones that break naive arithmetic: half-hour and 45-minute
// offsets, half-hour DST shifts, DST changes at midnight, and ordinary DST days of 23 and 25 hours.
import { describe, expect, it } from "vitest";
import {
  addDays, canonicalTimeZone, isWholeHourOffset, monthStartDay, weekStartDay, zonedDay, zonedDayStart, zonedMonthStart,
  zonedStartOfDay, zonedWeekStart, zoneOffsetMs,
} from "../src/time-zone.ts";

const H = 3_600_000;
const iso = (d: Date) => d.toISOString();

describe("zonedDayStart: the first instant of a local day", () => {
  // [zone, day, its first instant, hours until the next day starts]
  const cases: Array<[string, string, string, number]> = [
    ["UTC", "2026-11-25", "2026-11-25T00:00:00.000Z", 24],
    ["Asia/Kolkata", "2026-11-25", "2026-11-24T18:30:00.000Z", 24],
    ["Asia/Kathmandu", "2026-11-25", "2026-11-24T18:15:00.000Z", 24],
    ["America/St_Johns", "2026-01-15", "2026-01-15T03:30:00.000Z", 24],
    ["America/St_Johns", "2026-07-01", "2026-07-01T02:30:00.000Z", 24],
    // DST starts 2026-03-08 02:00 → 03:00 (−3:30 → −2:30): a 23-hour day.
    ["America/St_Johns", "2026-03-08", "2026-03-08T03:30:00.000Z", 23],
    // DST ends 2026-11-01 02:00 → 01:00: a 25-hour day.
    ["America/St_Johns", "2026-11-01", "2026-11-01T02:30:00.000Z", 25],
    ["America/New_York", "2026-03-08", "2026-03-08T05:00:00.000Z", 23],
    ["America/New_York", "2026-11-01", "2026-11-01T04:00:00.000Z", 25],
    ["Europe/Berlin", "2026-03-29", "2026-03-28T23:00:00.000Z", 23],
    ["Europe/Berlin", "2026-10-25", "2026-10-24T22:00:00.000Z", 25],
    // Lord Howe Island: +10:30 standard, +11 in summer; its clocks move by 30 minutes.
    ["Australia/Lord_Howe", "2026-07-01", "2026-06-30T13:30:00.000Z", 24],
    ["Australia/Lord_Howe", "2026-10-04", "2026-10-03T13:30:00.000Z", 23.5],
    ["Australia/Lord_Howe", "2026-04-05", "2026-04-04T13:00:00.000Z", 24.5],
    ["Pacific/Chatham", "2026-07-01", "2026-06-30T11:15:00.000Z", 24],
    // The date line: Kiribati is 14 hours ahead, Niue 11 behind.
    ["Pacific/Kiritimati", "2026-11-25", "2026-11-24T10:00:00.000Z", 24],
    ["Pacific/Niue", "2026-11-25", "2026-11-25T11:00:00.000Z", 24],
  ];
  it.each(cases)("%s %s starts at %s and lasts %s h", (zone, day, start, hours) => {
    const s = zonedDayStart(day, zone);
    expect(iso(s)).toBe(start);
    expect(zonedDay(s, zone)).toBe(day);
    expect(zonedDay(s.getTime() - 1, zone)).toBe(addDays(day, -1));
    expect((zonedDayStart(addDays(day, 1), zone).getTime() - s.getTime()) / H).toBe(hours);
  });

  // Where DST starts at midnight, 00:00 never happens: the day starts at 01:00 local.
  it.each([["America/Havana", "2026-03-08"], ["America/Santiago", "2026-09-06"], ["America/Asuncion", "2024-10-06"]])(
    "%s %s: midnight is skipped, the day starts at the first instant that reads it",
    (zone, day) => {
      const s = zonedDayStart(day, zone);
      expect(zonedDay(s, zone)).toBe(day);
      expect(zonedDay(s.getTime() - 1, zone)).toBe(addDays(day, -1));
      // 01:00 local: one hour after the wall-clock midnight read at the new offset.
      expect(s.getTime() + zoneOffsetMs(s, zone) - Date.parse(`${day}T00:00:00Z`)).toBe(H);
    },
  );

  it("refuses what is not a day", () => {
    for (const bad of ["2026-02-30", "2026-13-01", "26-01-01", "2026-1-1", ""]) expect(() => zonedDayStart(bad, "UTC")).toThrow(RangeError);
  });
});

describe("zonedDay: the local day of an instant", () => {
  const cases: Array<[string, string, string]> = [
    ["2026-11-24T18:29:59.999Z", "Asia/Kolkata", "2026-11-24"],
    ["2026-11-24T18:30:00.000Z", "Asia/Kolkata", "2026-11-25"],
    ["2026-01-15T03:29:59.999Z", "America/St_Johns", "2026-01-14"],
    ["2026-01-15T03:30:00.000Z", "America/St_Johns", "2026-01-15"],
    ["2026-10-03T13:29:59.999Z", "Australia/Lord_Howe", "2026-10-03"],
    ["2026-10-03T13:30:00.000Z", "Australia/Lord_Howe", "2026-10-04"],
    ["2026-11-25T23:59:59.999Z", "UTC", "2026-11-25"],
    ["1969-12-31T23:59:59.000Z", "UTC", "1969-12-31"],
  ];
  it.each(cases)("%s in %s is %s", (instant, zone, day) => expect(zonedDay(Date.parse(instant), zone)).toBe(day));
});

describe("offsets, weeks and months", () => {
  it("zoneOffsetMs follows DST", () => {
    expect(zoneOffsetMs(Date.parse("2026-01-15T12:00:00Z"), "America/St_Johns")).toBe(-3.5 * H);
    expect(zoneOffsetMs(Date.parse("2026-07-15T12:00:00Z"), "America/St_Johns")).toBe(-2.5 * H);
    expect(zoneOffsetMs(Date.parse("2026-07-15T12:00:00Z"), "Australia/Lord_Howe")).toBe(10.5 * H);
    expect(zoneOffsetMs(Date.parse("2026-12-15T12:00:00Z"), "Australia/Lord_Howe")).toBe(11 * H);
    expect(isWholeHourOffset(0, "Asia/Kolkata")).toBe(false);
    expect(isWholeHourOffset(0, "Europe/Berlin")).toBe(true);
  });

  it("weeks start on Monday and months on the 1st, in local time", () => {
    expect(weekStartDay("2026-11-25")).toBe("2026-11-23"); // a Wednesday
    expect(weekStartDay("2026-11-23")).toBe("2026-11-23");
    expect(weekStartDay("2026-11-29")).toBe("2026-11-23"); // Sunday
    expect(weekStartDay("2027-01-01")).toBe("2026-12-28");
    expect(monthStartDay("2026-02-28")).toBe("2026-02-01");
    // Sunday 2026-11-29 20:00 UTC is already Monday 30 in Kolkata: its week starts that Monday.
    expect(iso(zonedWeekStart(Date.parse("2026-11-29T20:00:00Z"), "Asia/Kolkata"))).toBe("2026-11-29T18:30:00.000Z");
    expect(iso(zonedMonthStart(Date.parse("2026-12-01T02:00:00Z"), "America/St_Johns"))).toBe("2026-11-01T02:30:00.000Z");
    expect(iso(zonedStartOfDay(Date.parse("2026-11-25T04:59:00Z"), "America/New_York"))).toBe("2026-11-24T05:00:00.000Z");
  });
});

describe("canonicalTimeZone", () => {
  it.each([
    ["UTC", "UTC"], ["utc", "UTC"], ["europe/berlin", "Europe/Berlin"], ["America/St_Johns", "America/St_Johns"],
    ["Asia/Kolkata", "Asia/Kolkata"], ["Australia/Lord_Howe", "Australia/Lord_Howe"],
  ])("%s → %s", (input, stored) => expect(canonicalTimeZone(input)).toBe(stored));
  it.each(["", "Mars/Olympus_Mons", "+05:30", "UTC+5", "Europe/Berlin\u0000", "../etc/passwd", "x".repeat(65)])("%j is not a zone", (input) =>
    expect(canonicalTimeZone(input)).toBeNull(),
  );
});

describe("zonedDayStart: where a local day begins (the query engine's cases)", () => {
  it.each([
    ["2026-03-15", "UTC", "2026-03-15T00:00:00.000Z"],
    ["2026-03-15", "Asia/Kolkata", "2026-03-14T18:30:00.000Z"], // +05:30
    ["2026-03-15", "Asia/Kathmandu", "2026-03-14T18:15:00.000Z"], // +05:45
    ["2026-03-15", "America/St_Johns", "2026-03-15T02:30:00.000Z"], // −02:30 (daylight time since 8 March)
    ["2026-03-08", "America/New_York", "2026-03-08T05:00:00.000Z"], // the 23-hour day: clocks jump at 02:00
    ["2026-03-09", "America/New_York", "2026-03-09T04:00:00.000Z"],
    ["2026-11-01", "America/New_York", "2026-11-01T04:00:00.000Z"], // the 25-hour day
    ["2026-01-01", "Pacific/Kiritimati", "2025-12-31T10:00:00.000Z"], // +14:00
  ])("%s in %s begins at %s", (day, zone, iso) => {
    expect(zonedDayStart(day, zone).toISOString()).toBe(iso);
    expect(zonedDay(Date.parse(iso), zone)).toBe(day);
    expect(zonedDay(Date.parse(iso) - 1, zone)).toBe(addDays(day, -1));
  });

  it("offsets, zone names and day arithmetic", () => {
    expect(zoneOffsetMs(Date.parse("2026-07-01T12:00:00Z"), "Europe/Berlin")).toBe(2 * 3_600_000);
    expect(zoneOffsetMs(Date.parse("2026-01-01T12:00:00Z"), "Europe/Berlin")).toBe(3_600_000);
    expect(canonicalTimeZone("Europe/Berlin")).not.toBeNull();
    expect(canonicalTimeZone("Mars/Olympus")).toBeNull();
    expect(canonicalTimeZone("")).toBeNull();
    expect(addDays("2024-03-01", -1)).toBe("2024-02-29");
  });
});
