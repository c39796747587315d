// The short text each tool answers next to its structuredContent: what an assistant can quote without reading
// the JSON. It is written from the already sanitised result, and every visitor-supplied label is quoted
// (JSON string syntax) so it reads as data inside the sentence, never as part of it.
import type * as z from "zod";
import type { AiOutput, AnomaliesOutput, BreakdownOutput, GoalsOutput, InsightsOutput, StatsOutput } from "./output-schemas.ts";

type Derived = { value: number | null; basis: "observed" | "inferred" };

const count = (n: number): string => n.toLocaleString("en-US");
const quote = (label: string): string => JSON.stringify(label);
const plural = (n: number, one: string, many = `${one}s`): string => `${count(n)} ${n === 1 ? one : many}`;
const change = (d: Derived): string => (d.value === null ? "n/a (nothing before)" : `${d.value >= 0 ? "+" : ""}${(d.value * 100).toFixed(1)} %`);
const inferred = (d: Derived): string => (d.basis === "inferred" ? " (inferred: visitors summed across actors)" : "");
const window = (w: { days: number; from: string; to: string }): string => `${plural(w.days, "day")} (${w.from} → ${w.to})`;
const list = (items: readonly string[], none: string): string => (items.length === 0 ? none : items.join("; "));

export function statsSummary(s: z.infer<typeof StatsOutput>): string {
  const c = s.current;
  const vpv = c.views_per_visitor.value === null ? "n/a" : String(c.views_per_visitor.value);
  return [
    `Site ${s.site_id}, actor ${s.actor}, ${window(s)}: ${plural(c.visitors, "visitor")}, ${plural(c.pageviews, "pageview")}, ${plural(c.events, "event")}, ${plural(c.hits, "middleware hit")}; ${vpv} views per visitor${inferred(c.views_per_visitor)}.`,
    `Change against the previous ${plural(s.days, "day")} (${s.previous.from} → ${s.previous.to}): visitors ${change(s.change.visitors)}, pageviews ${change(s.change.pageviews)}, events ${change(s.change.events)}, hits ${change(s.change.hits)}.`,
    `Series: ${s.series.length} ${s.granularity === "hour" ? "hourly" : "daily"} points in structuredContent.series.`,
  ].join("\n");
}

export function breakdownSummary(b: z.infer<typeof BreakdownOutput>): string {
  const what = b.field === "page" ? "pages" : "sources";
  if (b.rows.length === 0) return `No ${what} for actor ${b.actor} in the last ${window(b)}.`;
  const rows = b.rows.map((r, i) => `${i + 1}. ${quote(r.label)}: ${plural(r.visitors, "visitor")}, ${plural(r.pageviews, "pageview")}, ${plural(r.hits, "middleware hit")}`);
  return [`Top ${what} for actor ${b.actor}, ${window(b)} (labels are visitor-supplied data):`, ...rows].join("\n");
}

export function aiSummary(a: z.infer<typeof AiOutput>): string {
  const named = (r: { name: string; operator: string | null }) => `${quote(r.name)}${r.operator === null ? "" : ` (${r.operator})`}`;
  const neverReferred = a.crawl_to_referral.filter((p) => p.never_referred).map((p) => quote(p.page));
  const errorShare = a.agent_tasks.error_share.value === null ? "n/a" : `${(a.agent_tasks.error_share.value * 100).toFixed(1)} %`;
  return [
    `AI traffic, ${window(a)}:`,
    `Assistants referred ${plural(a.assistants.visitors, "visitor")} (${plural(a.assistants.pageviews, "pageview")}): ${list(a.assistants.rows.map((r) => `${named(r)} ${count(r.visitors)}`), "none")}.`,
    `AI crawlers made ${plural(a.crawlers.hits, "hit")}: ${list(a.crawlers.rows.map((r) => `${named(r)} ${count(r.hits)}`), "none")}.`,
    `AI agents made ${plural(a.agents.fetches, "fetch", "fetches")}: ${list(a.agents.rows.map((r) => `${named(r)} ${count(r.fetches)}`), "none")}; error share ${errorShare}.`,
    `Crawled but never referred by an assistant: ${list(neverReferred, "no page")}.`,
  ].join("\n");
}

export function goalsSummary(g: z.infer<typeof GoalsOutput>): string {
  if (g.goals.length === 0) return "This site has no goals defined (create one with POST /api/sites/{id}/goals).";
  const rows = g.goals.map((goal) => `${quote(goal.name)}: ${plural(goal.conversions, "conversion")} by ${plural(goal.visitors, "visitor")}`);
  return [`Goals for actor ${g.actor}, ${window(g)}:`, ...rows].join("\n");
}

export function insightsSummary(i: z.infer<typeof InsightsOutput>): string {
  const running = i.running ? " A run is in progress; ask again in a minute for its result." : "";
  if (i.status === "empty") return `No insights to show: ${i.reason ?? "no run yet"}.${running}`;
  const by = [i.provider, i.model].filter((x) => x !== null).join(" / ");
  const findings = i.findings.map((f) => `- ${quote(f)}`);
  const written = `${by ? ` from ${by}` : ""}${i.generated_at ? `, generated ${i.generated_at}` : ""} (written by a language model from the aggregate in structuredContent.input)`;
  if (i.status === "error") {
    const failed = `The last insights run failed${i.failed_at ? ` at ${i.failed_at}` : ""}: ${i.error ?? "no error was stored"}.${running}`;
    return findings.length === 0 ? failed : [failed, `Findings of the last good run${written}:`, ...findings].join("\n");
  }
  return [`Insights${written}:${running}`, ...findings].join("\n");
}

/** One flag as a sentence; numbers as the gateway computed them, the subject quoted. */
function flagSentence(f: z.infer<typeof AnomaliesOutput>["flags"][number]): string {
  const when = `${f.window.start} → ${f.window.end}`;
  const severity = `${f.severity} severity`;
  switch (f.kind) {
    case "crawler_spike":
      return `Crawler ${quote(f.subject)} made ${plural(f.observed.value, "hit")} against about ${count(f.expected.value)} expected (${when}; ${severity}).`;
    case "human_drop":
      return `Human visitors fell to ${count(f.observed.value)} against about ${count(f.expected.value)} expected for the same hours of previous weeks (${when}; ${severity}).`;
    case "crawled_never_referred":
      return `Page ${quote(f.subject)} was first crawled in the window (${plural(f.observed.value, "crawler hit")}) and no assistant referred a visitor to it (${severity}).`;
  }
}

export function anomaliesSummary(a: z.infer<typeof AnomaliesOutput>): string {
  if (a.flags.length === 0) return `Nothing unusual in the last ${window(a)}: no anomaly flag.`;
  return [`${plural(a.flags.length, "anomaly flag")} in the last ${window(a)} (subjects are visitor-supplied data):`, ...a.flags.map((f) => `- ${flagSentence(f)}`)].join("\n");
}
