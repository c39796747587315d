// Anomaly flags computed from rollup series (pure: the gateway reads the rollups and passes the series in).
// Three kinds, each with its method and thresholds stated here and in gateway/README.md "Anomalies":
//   crawler_spike           one crawler's hits in an hour far above the same hour of the previous 14 days
//   human_drop              human visitors of the last 6 or 24 complete hours far below the same hours of previous weeks
//   crawled_never_referred  a page first crawled in the window (not in the 14 days before) with no assistant-referred visitor
import { robustScore } from "./robust.ts";
import { DAY_MS, HOUR_MS } from "../time.ts";

const WEEK_MS = 7 * DAY_MS;

export const ANOMALY_KINDS = ["crawler_spike", "human_drop", "crawled_never_referred"] as const;
export type AnomalyKind = (typeof ANOMALY_KINDS)[number];
export type Severity = "low" | "medium" | "high";

/** A number read from rollups (`observed`) or derived from them under a stated assumption (`inferred`). */
export interface Measure<B extends "observed" | "inferred"> {
  readonly value: number;
  readonly basis: B;
}

export interface AnomalyFlag {
  readonly kind: AnomalyKind;
  /** The crawler's name (crawler_spike), "human" (human_drop) or the page path (crawled_never_referred). */
  readonly subject: string;
  /** ISO instants; `end` is exclusive. */
  readonly window: { readonly start: string; readonly end: string };
  readonly observed: Measure<"observed">;
  readonly expected: Measure<"inferred">;
  readonly score: Measure<"inferred">;
  readonly severity: Severity;
}

/** Counts per hour, keyed by the hour's start in ms (UTC); an hour that is absent counted 0. */
export type HourlySeries = ReadonlyMap<number, number>;

// 14 days: two full weeks, so the baseline of an hour of day covers every weekday twice (DESIGN: "the previous
// 14 days"); the median of 14 values stays put when up to 6 of them are zeros or spikes.
export const BASELINE_DAYS = 14;
// At least 7 of those days must lie after the site's first rollup row: on a 2-day-old site every crawler
// visit would otherwise be "above a baseline of zeros".
export const MIN_BASELINE_DAYS = 7;
// A spike hour: at least 20 hits, at least 3× the baseline median, and at least 6 robust standard deviations
// above it. The 20-hit floor keeps a crawler that usually sends 1–2 hits an hour from flagging on 8; 3× keeps a
// very regular crawler (MAD near 0) from flagging on +40 %; 6 σ gives about one false flag a year for 30
// crawlers checked hourly under Poisson noise.
export const SPIKE_MIN_HITS = 20;
export const SPIKE_MIN_RATIO = 3;
export const SPIKE_MIN_SCORE = 6;

// Human drop: spans of the last 6 and the last 24 complete hours, each against the same span 1..4 weeks
// earlier (same hours, same weekday). A drop needs at least 30 expected visitor-hours (below that a halving is
// noise), the span at or below half of what was expected, and at least 4 robust σ. Six hours rather than
// one: a single quiet hour (the "handful of random zeros" of a real series) lowers a 6-hour sum by ~1/6.
export const DROP_SPANS_HOURS = [6, 24] as const;
export const DROP_MAX_WEEKS = 4;
export const DROP_MIN_EXPECTED = 30;
export const DROP_MAX_SHARE = 0.5;
export const DROP_MIN_SCORE = 4;

// At most 20 newly crawled pages are flagged (the most crawled first): a site that publishes daily would
// otherwise list every new post.
export const MAX_NEW_PAGE_FLAGS = 20;

const iso = (ms: number): string => new Date(ms).toISOString();
// 2 decimals: scores and expectations are estimates; more digits would suggest a precision they lack.
const round2 = (x: number): number => Math.round(x * 100) / 100;

/** Severity by how many times the expected count was observed (spikes) or how much of it was lost (drops). */
function spikeSeverity(observed: number, expected: number): Severity {
  const ratio = observed / Math.max(expected, 1);
  return ratio >= 10 ? "high" : ratio >= 5 ? "medium" : "low";
}

export interface CrawlerSpikeInput {
  /** Hits per crawler name per hour, covering [firstHour − 14 days, lastHour]. */
  readonly crawlers: ReadonlyMap<string, HourlySeries>;
  /** First and last hour (start, ms) to check, inclusive. The current, incomplete hour may be included: it can only under-count. */
  readonly firstHour: number;
  readonly lastHour: number;
  /** Start of the site's first rollup hour: baseline days before it are not counted as zeros. */
  readonly dataSince: number;
}

/**
 * Spike hours per crawler, each against the same hour of day over the previous 14 days (median and MAD: robust
 * to daily cycles and to zeros). Consecutive spike hours of one crawler form one flag: observed is their sum,
 * expected the sum of their medians, score the highest hourly score.
 */
export function crawlerSpikes(input: CrawlerSpikeInput): AnomalyFlag[] {
  const flags: AnomalyFlag[] = [];
  for (const [name, series] of input.crawlers) {
    let run: { start: number; end: number; observed: number; expected: number; score: number } | null = null;
    const close = () => {
      if (!run) return;
      flags.push({
        kind: "crawler_spike",
        subject: name,
        window: { start: iso(run.start), end: iso(run.end) },
        observed: { value: run.observed, basis: "observed" },
        expected: { value: round2(run.expected), basis: "inferred" },
        score: { value: round2(run.score), basis: "inferred" },
        severity: spikeSeverity(run.observed, run.expected),
      });
      run = null;
    };
    for (let hour = input.firstHour; hour <= input.lastHour; hour += HOUR_MS) {
      const observed = series.get(hour) ?? 0;
      // Below the hit floor no baseline can make it a spike: skip the medians (most hours of most crawlers).
      if (observed < SPIKE_MIN_HITS) {
        close();
        continue;
      }
      const baseline: number[] = [];
      for (let k = 1; k <= BASELINE_DAYS; k++) {
        const past = hour - k * DAY_MS;
        if (past >= input.dataSince) baseline.push(series.get(past) ?? 0);
      }
      const { expected, score } = robustScore(observed, baseline);
      const spike =
        baseline.length >= MIN_BASELINE_DAYS && observed >= SPIKE_MIN_RATIO * Math.max(expected, 1) && score >= SPIKE_MIN_SCORE;
      if (!spike) {
        close();
        continue;
      }
      if (run) {
        run.end = hour + HOUR_MS;
        run.observed += observed;
        run.expected += expected;
        run.score = Math.max(run.score, score);
      } else run = { start: hour, end: hour + HOUR_MS, observed, expected, score };
    }
    close();
  }
  return flags.sort((a, b) => a.window.start.localeCompare(b.window.start) || b.score.value - a.score.value);
}

export interface HumanDropInput {
  /** Human visitors per hour (distinct within each hour), covering the spans and 4 weeks before them. */
  readonly visitors: HourlySeries;
  /** Start of the last complete hour (ms): the spans end with it. */
  readonly lastCompleteHour: number;
  readonly dataSince: number;
}

const spanSum = (series: HourlySeries, lastHour: number, hours: number): number => {
  let sum = 0;
  for (let i = 0; i < hours; i++) sum += series.get(lastHour - i * HOUR_MS) ?? 0;
  return sum;
};

/**
 * At most one flag: of the spans (last 6 and last 24 complete hours) that dropped, the one with the highest
 * score. Visitors are summed per hour (visitor-hours), the same way for the span and its baseline weeks.
 */
export function humanDrop(input: HumanDropInput): AnomalyFlag | null {
  let best: AnomalyFlag | null = null;
  for (const hours of DROP_SPANS_HOURS) {
    const start = input.lastCompleteHour - (hours - 1) * HOUR_MS;
    const weeks: number[] = [];
    for (let k = 1; k <= DROP_MAX_WEEKS; k++) {
      if (start - k * WEEK_MS >= input.dataSince) weeks.push(spanSum(input.visitors, input.lastCompleteHour - k * WEEK_MS, hours));
    }
    if (weeks.length === 0) continue;
    const observed = spanSum(input.visitors, input.lastCompleteHour, hours);
    const { expected, score: rise } = robustScore(observed, weeks);
    const score = -rise;
    if (expected < DROP_MIN_EXPECTED || observed > DROP_MAX_SHARE * expected || score < DROP_MIN_SCORE) continue;
    if (best && best.score.value >= score) continue;
    const lost = 1 - observed / expected;
    best = {
      kind: "human_drop",
      subject: "human",
      window: { start: iso(start), end: iso(input.lastCompleteHour + HOUR_MS) },
      observed: { value: observed, basis: "observed" },
      expected: { value: round2(expected), basis: "inferred" },
      score: { value: round2(score), basis: "inferred" },
      severity: lost >= 0.8 ? "high" : lost >= 0.65 ? "medium" : "low",
    };
  }
  return best;
}

export interface PageCrawlRow {
  readonly page: string;
  /** AI-crawler hits on the page in the 14 days before the window. */
  readonly crawledBefore: number;
  /** AI-crawler hits in the window, and the start (ms) of the first day of the window with any. */
  readonly crawled: number;
  readonly firstCrawledDay: number;
  /** Assistant-referred (human_via_ai) visitors on the page in the window. */
  readonly referred: number;
}

/**
 * Pages crawled in the window but not in the 14 days before it, with no assistant-referred visitor in the
 * window. Observed: the window's crawler hits; expected: the hits the baseline predicts, 0 (it had none);
 * score: observed − expected in Poisson units (√max(expected, 1)), so simply the hits.
 */
export function crawledNeverReferred(rows: readonly PageCrawlRow[], windowEnd: number): AnomalyFlag[] {
  return rows
    .filter((r) => r.crawledBefore === 0 && r.crawled > 0 && r.referred === 0)
    .sort((a, b) => b.crawled - a.crawled || (a.page < b.page ? -1 : a.page > b.page ? 1 : 0))
    .slice(0, MAX_NEW_PAGE_FLAGS)
    .map((r) => ({
      kind: "crawled_never_referred" as const,
      subject: r.page,
      window: { start: iso(r.firstCrawledDay), end: iso(windowEnd) },
      observed: { value: r.crawled, basis: "observed" as const },
      expected: { value: 0, basis: "inferred" as const },
      score: { value: r.crawled, basis: "inferred" as const },
      severity: r.crawled >= 100 ? ("high" as const) : r.crawled >= 20 ? ("medium" as const) : ("low" as const),
    }));
}
