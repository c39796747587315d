// Anomaly math on synthetic hourly series: a steady daily cycle with random zeros stays quiet; a planted 10×
// crawler hour, a 70 % human drop and a newly crawled page each give exactly their flag.
import { describe, expect, it } from "vitest";
import {
  type AnomalyFlag, crawledNeverReferred, crawlerSpikes, DAY_MS, HOUR_MS, humanDrop, median, medianAbsoluteDeviation, robustScore,
} from "../src/index.ts";
import { dailyCycle } from "./fixtures/anomaly-series.ts";

const NOW_HOUR = Date.parse("2026-11-20T15:00:00Z");
const DAYS = 22;
const START = NOW_HOUR - DAYS * DAY_MS;

/** A daily cycle (peak at 14:00 UTC) with ±10 % noise and `zeros` random hours set to 0, over the test's days. */
const steadySeries = (peak: number, trough: number, seed: number, zeros: number) => dailyCycle({ start: START, end: NOW_HOUR, peak, trough, seed, zeros });

const spikeInput = (crawlers: Map<string, Map<number, number>>, days = 1) => ({
  crawlers,
  firstHour: NOW_HOUR - (days * 24 - 1) * HOUR_MS,
  lastHour: NOW_HOUR,
  dataSince: START,
});

describe("robust statistics", () => {
  it.each([
    { values: [], median: 0, mad: 0 },
    { values: [5], median: 5, mad: 0 },
    { values: [1, 3], median: 2, mad: 1 },
    { values: [0, 10, 10, 11, 9, 10, 0], median: 10, mad: 1 },
  ])("median and MAD of $values", ({ values, median: m, mad }) => {
    expect(median(values)).toBe(m);
    expect(medianAbsoluteDeviation(values, m)).toBe(mad);
  });

  it("never scores on a scale below Poisson noise", () => {
    expect(robustScore(12, Array(14).fill(10)).score).toBeCloseTo(2 / Math.sqrt(10));
    expect(robustScore(3, Array(14).fill(0)).score).toBe(3);
  });
});

describe("quiet series raise nothing", () => {
  it.each([1, 2, 3, 4, 5])("steady daily cycles with a handful of zeros (seed %i), over a 7-day window", (seed) => {
    const crawlers = new Map([
      ["GPTBot", steadySeries(60, 8, seed, 6)],
      ["ClaudeBot", steadySeries(25, 2, seed + 100, 6)],
      ["PerplexityBot", steadySeries(4, 0, seed + 200, 6)],
    ]);
    expect(crawlerSpikes(spikeInput(crawlers, 7))).toEqual([]);
    const visitors = steadySeries(120, 15, seed + 300, 6);
    for (let back = 0; back < 7 * 24; back++) {
      expect(humanDrop({ visitors, lastCompleteHour: NOW_HOUR - HOUR_MS - back * HOUR_MS, dataSince: START })).toBeNull();
    }
  });

  it("a crawler's usual trickle never spikes, and a young site has no baseline yet", () => {
    const trickle = new Map([[NOW_HOUR, 15]]);
    expect(crawlerSpikes(spikeInput(new Map([["Bytespider", trickle]])))).toEqual([]);
    const young = { ...spikeInput(new Map([["GPTBot", new Map([[NOW_HOUR, 500]])]])), dataSince: NOW_HOUR - 3 * DAY_MS };
    expect(crawlerSpikes(young)).toEqual([]);
  });
});

describe("planted anomalies give exactly their flag", () => {
  it("a 10× crawler hour", () => {
    const gpt = steadySeries(60, 8, 7, 6);
    const plantedAt = NOW_HOUR - 5 * HOUR_MS;
    const baseline = median(Array.from({ length: 14 }, (_, k) => gpt.get(plantedAt - (k + 1) * DAY_MS) ?? 0));
    gpt.set(plantedAt, baseline * 10);
    const flags = crawlerSpikes(spikeInput(new Map([["GPTBot", gpt], ["ClaudeBot", steadySeries(25, 2, 8, 6)]])));
    expect(flags).toEqual<AnomalyFlag[]>([
      {
        kind: "crawler_spike",
        subject: "GPTBot",
        window: { start: new Date(plantedAt).toISOString(), end: new Date(plantedAt + HOUR_MS).toISOString() },
        observed: { value: baseline * 10, basis: "observed" },
        expected: { value: baseline, basis: "inferred" },
        score: { value: expect.any(Number) as unknown as number, basis: "inferred" },
        severity: "high",
      },
    ]);
    expect(flags[0]!.score.value).toBeGreaterThan(6);
  });

  it("consecutive spike hours are one flag", () => {
    const gpt = steadySeries(60, 8, 9, 0);
    for (const h of [3, 2, 1]) gpt.set(NOW_HOUR - h * HOUR_MS, 900);
    const flags = crawlerSpikes(spikeInput(new Map([["GPTBot", gpt]])));
    expect(flags).toHaveLength(1);
    expect(flags[0]!.observed.value).toBe(2700);
    expect(flags[0]!.window).toEqual({ start: new Date(NOW_HOUR - 3 * HOUR_MS).toISOString(), end: new Date(NOW_HOUR).toISOString() });
  });

  it("a 70 % human drop over the last day", () => {
    const visitors = steadySeries(120, 15, 11, 6);
    const lastCompleteHour = NOW_HOUR - HOUR_MS;
    for (let i = 0; i < 24; i++) {
      const t = lastCompleteHour - i * HOUR_MS;
      visitors.set(t, Math.round((visitors.get(t - 7 * DAY_MS) ?? 0) * 0.3));
    }
    const flag = humanDrop({ visitors, lastCompleteHour, dataSince: START });
    expect(flag).not.toBeNull();
    expect(flag!.kind).toBe("human_drop");
    expect(flag!.subject).toBe("human");
    expect(flag!.window).toEqual({ start: new Date(lastCompleteHour - 23 * HOUR_MS).toISOString(), end: new Date(NOW_HOUR).toISOString() });
    expect(flag!.observed.value / flag!.expected.value).toBeCloseTo(0.3, 1);
    expect(flag!.severity).toBe("medium");
  });

  it("a page first crawled in the window and never referred; not one crawled before, nor one referred", () => {
    const windowEnd = NOW_HOUR + HOUR_MS;
    const day = NOW_HOUR - (NOW_HOUR % DAY_MS);
    const flags = crawledNeverReferred(
      [
        { page: "/new", crawledBefore: 0, crawled: 42, firstCrawledDay: day - DAY_MS, referred: 0 },
        { page: "/old", crawledBefore: 30, crawled: 12, firstCrawledDay: day - 2 * DAY_MS, referred: 0 },
        { page: "/answered", crawledBefore: 0, crawled: 9, firstCrawledDay: day, referred: 2 },
      ],
      windowEnd,
    );
    expect(flags).toEqual<AnomalyFlag[]>([
      {
        kind: "crawled_never_referred",
        subject: "/new",
        window: { start: new Date(day - DAY_MS).toISOString(), end: new Date(windowEnd).toISOString() },
        observed: { value: 42, basis: "observed" },
        expected: { value: 0, basis: "inferred" },
        score: { value: 42, basis: "inferred" },
        severity: "medium",
      },
    ]);
  });
});
