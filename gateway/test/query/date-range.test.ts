// The instants a query's date_range covers (query/date-range.ts), seen from a fixed now: which ends are
// included, in UTC and in a zone off UTC.
import { describe, expect, it } from "vitest";
import { resolveRange } from "../../src/query/date-range.ts";

const NOW = Date.parse("2026-11-26T21:26:00.600Z");
const at = (iso: string) => Date.parse(iso);

describe("resolveRange", () => {
  it.each([
    // [range, zone, first instant counted, first instant not counted, first day, last day]
    ["24h", "UTC", NOW - 86_400_000 + 1, NOW + 1, "2026-11-25", "2026-11-26"],
    ["day", "UTC", at("2026-11-26T00:00:00Z"), at("2026-11-27T00:00:00Z"), "2026-11-26", "2026-11-26"],
    ["day", "Asia/Tokyo", at("2026-11-26T15:00:00Z"), at("2026-11-27T15:00:00Z"), "2026-11-27", "2026-11-27"],
    ["7d", "UTC", at("2026-11-20T00:00:00Z"), at("2026-11-27T00:00:00Z"), "2026-11-20", "2026-11-26"],
    [["2026-11-26T10:00:00Z", "2026-11-26T10:59:59Z"], "UTC", at("2026-11-26T10:00:00Z"), at("2026-11-26T11:00:00Z"), "2026-11-26", "2026-11-26"],
    [["2026-11-01", "2026-11-02"], "America/New_York", at("2026-11-01T04:00:00Z"), at("2026-11-03T05:00:00Z"), "2026-11-01", "2026-11-02"],
  ] as const)("%j in %s", (range, zone, from, to, firstDay, lastDay) => {
    const r = resolveRange(range as never, zone, NOW, 365);
    expect([r.fromMs, r.toMs, r.firstDay, r.lastDay]).toEqual([from, to, firstDay, lastDay]);
  });

  it('"24h" is 24 hours that end with now, now included', () => {
    const r = resolveRange("24h", "UTC", NOW, 365);
    const counted = (ms: number) => ms >= r.fromMs && ms < r.toMs;
    expect([counted(NOW), counted(NOW - 1), counted(NOW - 86_400_000 + 1), counted(NOW - 86_400_000), counted(NOW + 1)]).toEqual([true, true, true, false, false]);
    expect(r.toMs - r.fromMs).toBe(86_400_000);
    expect(r.wholeDays).toBe(false);
  });
});
