// The e-mail report of one site for one past period: last week (Monday to Sunday, UTC) or last month, against
// the period just before it. Every number comes from the rollups through the read routes' own reports, so the
// mail says what the dashboard says for the same days; visits, bounce rate and visit duration (per visit, which
// the rollups do not keep) come from the query engine, as POST /api/v2/query answers them. Labels (paths, sources, assistant names) were written
// by visitors: they pass core's displayLabel and are HTML-escaped, and none becomes a link.
import { DAY_MS, displayLabel, formatDuration } from "@svc/core";
import type { Derived } from "../api-schema/common.ts";
import type { QueryEngine } from "../query/engine.ts";
import { parseQuery } from "../query/request.ts";
import { type RollupSource, aiReport, breakdownReport, statsReport } from "../read/reports.ts";
import { isoDay, readWindow } from "../read/window.ts";
import type { Frequency } from "../storage/notifications.ts";
import { findSiteById } from "../storage/sites.ts";

const TOP = 5;

export interface ReportPeriod {
  /** Names the period once: '2026-11-16' (the week starting that Monday) or '2026-10'. */
  readonly key: string;
  readonly from: string;
  readonly to: string;
  /** The last ms of the period and its length: the read window ending then. */
  readonly endMs: number;
  readonly days: number;
}

/** The last whole week or month before `nowMs` (UTC). */
export function lastPeriod(frequency: Frequency, nowMs: number): ReportPeriod {
  const today = nowMs - (nowMs % DAY_MS);
  if (frequency === "weekly") {
    const monday = today - ((new Date(today).getUTCDay() + 6) % 7) * DAY_MS;
    const start = monday - 7 * DAY_MS;
    return { key: isoDay(start), from: isoDay(start), to: isoDay(monday - DAY_MS), endMs: monday - 1, days: 7 };
  }
  const now = new Date(today);
  const first = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1);
  return { key: isoDay(start).slice(0, 7), from: isoDay(start), to: isoDay(first - DAY_MS), endMs: first - 1, days: Math.round((first - start) / DAY_MS) };
}

export interface ReportData {
  readonly site: { readonly domain: string; readonly name: string | null };
  readonly frequency: Frequency;
  readonly period: ReportPeriod;
  readonly previous: { readonly from: string; readonly to: string };
  readonly totals: { readonly visitors: number; readonly pageviews: number; readonly events: number; readonly views_per_visitor: number | null };
  readonly change: Readonly<Record<"visitors" | "pageviews" | "events" | "views_per_visitor", Derived>>;
  /** The query engine's visit metrics and their change against the previous period (whole percent; points for
   *  the bounce rate), null when the previous period has no comparison. */
  readonly visits: { readonly visits: number; readonly bounce_rate: number; readonly visit_duration: number; readonly change: readonly [number | null, number | null, number | null] };
  readonly pages: ReadonlyArray<{ label: string; visitors: number; pageviews: number }>;
  readonly sources: ReadonlyArray<{ label: string; visitors: number; pageviews: number }>;
  readonly ai: { readonly assistantVisitors: number; readonly crawlerHits: number; readonly assistants: ReadonlyArray<{ name: string; visitors: number }>; readonly crawlers: ReadonlyArray<{ name: string; hits: number }> };
}

/** People's numbers (actor human, as the dashboard's default) and the AI panel of the period. */
export async function reportData(src: RollupSource, engine: QueryEngine, site: { id: number; domain: string; name: string | null }, frequency: Frequency, period: ReportPeriod): Promise<ReportData> {
  const w = readWindow(period.endMs, period.days, "human");
  const [visits, stats, pages, sources, ai] = await Promise.all([
    visitMetrics(src, engine, site.id, period),
    statsReport(src.pool, site.id, "human", w),
    breakdownReport(src, site.id, "human", w, "page", TOP),
    breakdownReport(src, site.id, "human", w, "source", TOP),
    aiReport(src, site.id, readWindow(period.endMs, period.days, "all"), TOP),
  ]);
  const row = (r: { label: string; visitors: number; pageviews?: number }) => ({ label: displayLabel(r.label, 80), visitors: r.visitors, pageviews: r.pageviews ?? 0 });
  return {
    site: { domain: site.domain, name: site.name },
    frequency,
    period,
    previous: stats.previous,
    totals: { visitors: stats.current.visitors, pageviews: stats.current.pageviews, events: stats.current.events, views_per_visitor: stats.current.views_per_visitor.value },
    change: stats.change,
    visits,
    pages: pages.rows.map(row),
    sources: sources.rows.map(row),
    ai: {
      assistantVisitors: ai.assistants.visitors,
      crawlerHits: ai.crawlers.hits,
      assistants: ai.assistants.rows.map((r) => ({ name: displayLabel(r.name, 80), visitors: r.visitors })),
      crawlers: ai.crawlers.rows.map((r) => ({ name: displayLabel(r.name, 80), hits: r.hits })),
    },
  };
}

/** One query as POST /api/v2/query takes it: the period's visits, bounce rate and duration, against the one before. */
export const visitsQuery = (domain: string, period: Pick<ReportPeriod, "from" | "to">) => ({
  site_id: domain,
  date_range: [period.from, period.to],
  // No visit:actor filter: the engine counts actor human alone then, as the rest of this report does.
  metrics: ["visits", "bounce_rate", "visit_duration"],
  include: { comparisons: { mode: "previous_period" } },
});

async function visitMetrics(src: RollupSource, engine: QueryEngine, siteId: number, period: ReportPeriod): Promise<ReportData["visits"]> {
  const site = await findSiteById(src.pool, siteId);
  if (site === null) throw new Error(`site ${siteId} is gone`);
  const row = (await engine.run(site, parseQuery(visitsQuery(site.domain, period)))).results[0];
  const [visits = 0, bounce = 0, duration = 0] = row?.metrics ?? [];
  const change = row?.comparison?.change ?? [null, null, null];
  return { visits, bounce_rate: bounce, visit_duration: duration, change: [change[0] ?? null, change[1] ?? null, change[2] ?? null] };
}

const whole = new Intl.NumberFormat("en-US");
const ratio = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });
const num = (n: number | null) => (n === null ? "–" : Number.isInteger(n) ? whole.format(n) : ratio.format(n));
const pct = (d: Derived) => (d.value === null ? "–" : `${d.value >= 0 ? "+" : "−"}${Math.round(Math.abs(d.value) * 1000) / 10}%`);
/** A change the engine gave in whole percent, or in points for a rate. */
const delta = (n: number | null, unit: "%" | " pts") => (n === null ? "–" : `${n >= 0 ? "+" : "−"}${Math.abs(n)}${unit}`);
/** 65 → "1m 05s", 42 → "42s", 3725 → "1h 02m" (one formatter for the mail and the dashboard's tiles). */
export const duration = formatDuration;
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface RenderedMail {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

export function renderReport(d: ReportData, links: { readonly dashboard: string; readonly unsubscribe: string }): RenderedMail {
  const name = d.site.name ?? d.site.domain;
  const what = d.frequency === "weekly" ? "Weekly" : "Monthly";
  const span = `${d.period.from} – ${d.period.to} (UTC)`;
  const subject = `${what} report for ${name}: ${num(d.totals.visitors)} visitors (${pct(d.change.visitors)})`;
  // [label, value as read, change as read, whether the change is bad news]
  const [visitsChange, bounceChange, durationChange] = d.visits.change;
  const tile = (label: string, value: number | null, change: Derived): [string, string, string, boolean] => [label, num(value), pct(change), (change.value ?? 0) < 0];
  const tiles: Array<[string, string, string, boolean]> = [
    tile("Visitors", d.totals.visitors, d.change.visitors),
    ["Visits", num(d.visits.visits), delta(visitsChange, "%"), (visitsChange ?? 0) < 0],
    tile("Pageviews", d.totals.pageviews, d.change.pageviews),
    // A bounce rate going up is the bad news.
    ["Bounce rate", `${d.visits.bounce_rate}%`, delta(bounceChange, " pts"), (bounceChange ?? 0) > 0],
    ["Visit duration", duration(d.visits.visit_duration), delta(durationChange, "%"), (durationChange ?? 0) < 0],
    tile("Views per visitor", d.totals.views_per_visitor, d.change.views_per_visitor),
    tile("Events", d.totals.events, d.change.events),
  ];
  const lists: Array<[string, string, ReadonlyArray<{ label: string; value: number }>]> = [
    ["Top pages", "Visitors", d.pages.map((p) => ({ label: p.label, value: p.visitors }))],
    ["Top sources", "Visitors", d.sources.map((s) => ({ label: s.label, value: s.visitors }))],
    ["Visitors from AI assistants", "Visitors", d.ai.assistants.map((a) => ({ label: a.name, value: a.visitors }))],
    ["AI crawlers", "Hits", d.ai.crawlers.map((c) => ({ label: c.name, value: c.hits }))],
  ];

  const text = [
    `${what} report for ${name} (${d.site.domain})`,
    span,
    `Compared with ${d.previous.from} – ${d.previous.to}.`,
    "",
    ...tiles.map(([label, value, change]) => `${label}: ${value} (${change})`),
    "",
    ...lists.flatMap(([title, unit, rows]) => [`${title} (${unit.toLowerCase()}):`, ...(rows.length ? rows.map((r) => `  ${num(r.value)}  ${r.label}`) : ["  none"]), ""]),
    `AI: ${num(d.ai.assistantVisitors)} visitors from assistants, ${num(d.ai.crawlerHits)} crawler hits.`,
    "",
    `Open the dashboard: ${links.dashboard}`,
    `Unsubscribe: ${links.unsubscribe}`,
    "",
  ].join("\n");

  const cell = "padding:6px 8px;border-bottom:1px solid #e5e7eb;";
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(subject)}</title></head>
<body style="margin:0;background:#f7f7f9;font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;color:#16181d">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f7f7f9"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="600" cellpadding="0" cellspacing="0" style="max-width:600px;width:100%;background:#ffffff;border:1px solid #dcdfe6;border-radius:10px">
<tr><td style="padding:20px 24px 8px"><div style="font-size:13px;color:#555b66">${what} report · ${escape(span)}</div>
<h1 style="margin:4px 0 0;font-size:22px">${escape(name)}</h1><div style="font-size:13px;color:#555b66">${escape(d.site.domain)} · compared with ${escape(d.previous.from)} – ${escape(d.previous.to)}</div></td></tr>
<tr><td style="padding:8px 16px"><table role="presentation" width="100%" cellpadding="0" cellspacing="8">
${[tiles.slice(0, 4), tiles.slice(4)].map((line) => `<tr>${line.map(([label, value, change, bad]) => `<td style="background:#f0f1f5;border-radius:8px;padding:10px 12px;width:25%"><div style="font-size:11px;text-transform:uppercase;color:#555b66">${label}</div><div style="font-size:22px;font-weight:700" data-metric="${label.toLowerCase().replaceAll(" ", "_")}">${value}</div><div style="font-size:12px;color:${bad ? "#b42318" : "#0f7a3d"}" data-change="${label.toLowerCase().replaceAll(" ", "_")}">${change}</div></td>`).join("")}</tr>`).join("\n")}
</table></td></tr>
${lists
  .map(
    ([title, unit, rows]) => `<tr><td style="padding:8px 24px"><h2 style="font-size:15px;margin:8px 0">${title}</h2>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="font-size:14px"><tr><th align="left" style="${cell}color:#555b66;font-weight:500">Name</th><th align="right" style="${cell}color:#555b66;font-weight:500">${unit}</th></tr>
${rows.length ? rows.map((r) => `<tr><td style="${cell}word-break:break-all">${escape(r.label)}</td><td align="right" style="${cell}">${num(r.value)}</td></tr>`).join("") : `<tr><td colspan="2" style="${cell}color:#555b66">None in this period.</td></tr>`}
</table></td></tr>`,
  )
  .join("\n")}
<tr><td style="padding:16px 24px 20px;font-size:13px;color:#555b66"><a href="${escape(links.dashboard)}" style="color:#4338ca">Open the dashboard</a> · <a href="${escape(links.unsubscribe)}" style="color:#4338ca">Unsubscribe</a><br>Cookieless analytics: no personal data was used to count these visitors.</td></tr>
</table></td></tr></table></body></html>`;
  return { subject, text, html };
}

/** The confirmation mail a new recipient gets first: nothing else is sent until they follow its link. */
export function renderConfirmation(site: { domain: string; name: string | null }, frequency: Frequency, confirmUrl: string): RenderedMail {
  const name = site.name ?? site.domain;
  const subject = `Confirm ${frequency} reports for ${name}`;
  const text = `Someone asked to send ${frequency} analytics reports for ${name} (${site.domain}) to this address.\n\nConfirm: ${confirmUrl}\n\nIf this was not you, ignore this mail: nothing will be sent.\n`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(subject)}</title></head><body style="font-family:system-ui,sans-serif;color:#16181d"><p>Someone asked to send ${frequency} analytics reports for <strong>${escape(name)}</strong> (${escape(site.domain)}) to this address.</p><p><a href="${escape(confirmUrl)}">Confirm</a></p><p style="color:#555b66">If this was not you, ignore this mail: nothing will be sent.</p></body></html>`;
  return { subject, text, html };
}
