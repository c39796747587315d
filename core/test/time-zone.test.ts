import { describe, expect, it } from "vitest";
import { addDays, isTimeZone, zoneOffsetMs, zonedDay, zonedDayStart } from "../src/time-zone.ts";

describe("zonedDayStart: where a local day begins", () => {
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
    expect(isTimeZone("Europe/Berlin")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
    expect(isTimeZone("")).toBe(false);
    expect(addDays("2024-03-01", -1)).toBe("2024-02-29");
  });
});
