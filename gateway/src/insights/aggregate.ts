// The only input the language model gets, in exactly the shape of SPEC "Aggregate input given to the language
// model": period, visitors {human, human_via_ai, delta_wow}, ai_referrals, crawlers, crawl_to_referral. Built
// from the rollups with the read API's own reports, so every number matches GET /stats and /ai for days=7.
// Never a row, an address, a hash or a user agent. Every label (assistant and crawler names, page paths) goes
// through core's displayLabel: control and invisible characters removed, cut to 200 code points.
//
// Plus `anomalies`, the open anomaly flags of the same 7 days (issue 20: a summary that misses a crawler spike
// the dashboard shows beside it reads as wrong). They are aggregates of the same rollups — kind, subject,
// severity and two numbers — so the SPEC's rule (aggregates only, never a row) holds; it is the one key beyond
// the SPEC's five.
import { type AnomalyFlag, displayLabel } from "@svc/core";
import { aiReport, type RollupSource } from "../read/reports.ts";
import { bucketTotals } from "../read/rollup-reads.ts";
import { bothSpans, readWindow } from "../read/window.ts";

// 7 days: a weekly run describes its week, and delta_wow compares it with the week before.
export const AGGREGATE_DAYS = 7;
// 20 per list: enough for the pattern a model can comment on in five findings, and a prompt of a few KB
// (a hosted model bills by the token; a local one reads ~100 tokens/s on a laptop CPU).
export const AGGREGATE_LIST_LIMIT = 20;

export interface InsightsAggregate {
  period: string;
  visitors: { human: number; human_via_ai: number; delta_wow: number | null };
  ai_referrals: Record<string, number>;
  crawlers: Record<string, number>;
  crawl_to_referral: Array<{ page: string; crawled: number; referred: number }>;
  anomalies: Array<{ kind: AnomalyFlag["kind"]; subject: string; severity: AnomalyFlag["severity"]; observed: number; expected: number }>;
}

// 4 decimals, as the read API rounds its change values.
const round4 = (x: number): number => Math.round(x * 10_000) / 10_000;

/** name → count with sanitised names; two names that only differed by invisible characters add up. */
function countsByLabel(rows: ReadonlyArray<{ name: string; count: number }>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { name, count } of rows) {
    const label = displayLabel(name);
    out[label] = (out[label] ?? 0) + count;
  }
  return out;
}

/** The site's open anomaly flags for `days` days ending now (anomalies/detector.ts, cached). */
export type OpenFlags = (siteId: number, days: number) => Promise<readonly AnomalyFlag[]>;

export async function buildAggregate(src: RollupSource, siteId: number, nowMs: number, openFlags: OpenFlags): Promise<InsightsAggregate> {
  const w = readWindow(nowMs, AGGREGATE_DAYS, "all");
  const range = bothSpans(w);
  const [days, viaAi, ai, flags] = await Promise.all([
    bucketTotals(src.pool, siteId, ["human"], range),
    bucketTotals(src.pool, siteId, ["human_via_ai"], range),
    aiReport(src, siteId, w, AGGREGATE_LIST_LIMIT),
    openFlags(siteId, AGGREGATE_DAYS),
  ]);
  const sum = (series: ReadonlyMap<number, { visitors: number }>, current: boolean) => {
    let total = 0;
    for (const [day, c] of series) if (day >= w.startMs === current) total += c.visitors;
    return total;
  };
  const human = sum(days, true);
  const humanViaAi = sum(viaAi, true);
  const previous = sum(days, false) + sum(viaAi, false);
  return {
    period: `${w.from} → ${w.to}`,
    visitors: { human, human_via_ai: humanViaAi, delta_wow: previous === 0 ? null : round4((human + humanViaAi - previous) / previous) },
    ai_referrals: countsByLabel(ai.assistants.rows.map((r) => ({ name: r.name, count: r.visitors }))),
    crawlers: countsByLabel(ai.crawlers.rows.map((r) => ({ name: r.name, count: r.hits }))),
    crawl_to_referral: ai.crawl_to_referral.map((r) => ({ page: displayLabel(r.page), crawled: r.crawled, referred: r.referred })),
    anomalies: flags.slice(0, AGGREGATE_LIST_LIMIT).map((f) => ({ kind: f.kind, subject: displayLabel(f.subject), severity: f.severity, observed: f.observed.value, expected: f.expected.value })),
  };
}
