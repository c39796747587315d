// The chart's buckets. The API's series is hourly (up to two days) or daily; a long window drawn daily is a
// comb of 365 spikes with dates nobody can read, so past 92 days the days are added up into calendar weeks
// (Monday to Sunday, UTC) and from 300 days into calendar months. A first or last bucket may be partial (the
// window starts mid-week or mid-month): each point keeps its own exclusive end, so its label names exactly
// the days it holds. Visitors are added up like the API's own multi-day totals (distinct per day).
import type { ChartPoint } from "./components/ChartLayers.svelte";

export type Grain = "hour" | "day" | "week" | "month";

const DAY_MS = 86_400_000;
export const WEEKLY_AFTER_DAYS = 92;
export const MONTHLY_FROM_DAYS = 300;

export function chartGrain(granularity: "hour" | "day", days: number): Grain {
  if (granularity === "hour") return "hour";
  return days >= MONTHLY_FROM_DAYS ? "month" : days > WEEKLY_AFTER_DAYS ? "week" : "day";
}

function bucketStart(ms: number, grain: "week" | "month"): number {
  const d = new Date(ms);
  if (grain === "month") return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  return ms - ((d.getUTCDay() + 6) % 7) * DAY_MS; // back to Monday
}

/** Daily points summed into weeks or months (hourly and daily points are returned as they are, with their ends). */
export function groupPoints(daily: readonly ChartPoint[], grain: Grain): ChartPoint[] {
  const step = grain === "hour" ? 3_600_000 : DAY_MS;
  if (grain === "hour" || grain === "day") return daily.map((p) => ({ ...p, end: new Date(Date.parse(p.bucket) + step).toISOString() }));
  const out: ChartPoint[] = [];
  let key = NaN;
  for (const p of daily) {
    const ms = Date.parse(p.bucket);
    const start = bucketStart(ms, grain);
    const end = new Date(ms + DAY_MS).toISOString();
    const last = out.at(-1);
    if (last && start === key) {
      last.value += p.value;
      last.previous = p.previous === null ? last.previous : (last.previous ?? 0) + p.previous;
      last.end = end;
    } else {
      key = start;
      out.push({ i: out.length, bucket: p.bucket, end, value: p.value, previous: p.previous });
    }
  }
  return out;
}
