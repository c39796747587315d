// The e-mail report of one site for one past period in the site's time zone: last week (Monday to Sunday there)
// or last month, against the period just before it (as long, Plausible's previous_period). Every figure comes
// from the query engine — the one behind POST /api/v2/query — over the period's local days, so the mail says
// what the API says for the same date_range (reportQueries are those queries). The rollups keep UTC days and
// per-hour visitors, which cannot give a distinct count over a local week. Labels (paths, sources, assistant
// names) were written by visitors: they pass core's displayLabel and are HTML-escaped, and none becomes a link.
import { addDays, displayLabel, formatDuration, monthStartDay, weekStartDay, zonedDay } from "@svc/core";
import { type QueryEngine, change } from "../query/engine.ts";
import { parseQuery } from "../query/request.ts";
import type { Frequency } from "../storage/notifications.ts";
import type { SiteRecord } from "../storage/sites.ts";

const TOP = 5;

export interface ReportPeriod {
  /** Names the period once: '2026-11-16' (the week starting that Monday) or '2026-10'. */
  readonly key: string;
  /** The period's first and last local day (YYYY-MM-DD, both included). */
  readonly from: string;
  readonly to: string;
  readonly days: number;
  readonly timeZone: string;
}

/** The last whole week or month before `nowMs`, in `timeZone`'s days. */
export function lastPeriod(frequency: Frequency, nowMs: number, timeZone: string): ReportPeriod {
  const today = zonedDay(nowMs, timeZone);
  if (frequency === "weekly") {
    const from = addDays(weekStartDay(today), -7);
    return { key: from, from, to: addDays(from, 6), days: 7, timeZone };
  }
  const to = addDays(monthStartDay(today), -1);
  const from = monthStartDay(to);
  return { key: from.slice(0, 7), from, to, days: Number(to.slice(8)), timeZone };
}

/** The tiles' metrics, asked of the engine in this order (its events are all script rows; the tile shows custom events). */
const SUMMARY_METRICS = ["visitors", "visits", "pageviews", "bounce_rate", "visit_duration", "views_per_visit", "events"] as const;
type TileMetric = (typeof SUMMARY_METRICS)[number];

export interface ReportData {
  readonly site: { readonly domain: string; readonly name: string | null };
  readonly frequency: Frequency;
  readonly period: ReportPeriod;
  readonly previous: { readonly from: string; readonly to: string };
  /**
   * Each tile's figure with its change against the previous period (Plausible's: whole percent, points for the
   * bounce rate). `events` are custom events (the engine's events less its pageviews), as the dashboard counts them.
   */
  readonly tiles: Readonly<Record<TileMetric, { readonly value: number; readonly change: number | null }>>;
  readonly pages: ReadonlyArray<{ label: string; visitors: number }>;
  readonly sources: ReadonlyArray<{ label: string; visitors: number }>;
  readonly ai: { readonly assistantVisitors: number; readonly crawlerHits: number; readonly assistants: ReadonlyArray<{ name: string; visitors: number }>; readonly crawlers: ReadonlyArray<{ name: string; hits: number }> };
}

const actors = (...actor: string[]) => [["is", "visit:actor", actor]];

/**
 * The report's queries as POST /api/v2/query takes them, over the period's local days. Without a visit:actor
 * filter the engine counts actor human alone, the dashboard's default; the AI lines name their actors.
 */
export function reportQueries(domain: string, period: Pick<ReportPeriod, "from" | "to">) {
  const base = { site_id: domain, date_range: [period.from, period.to] };
  const top = (dimension: string, metric: string) => ({ dimensions: [dimension], order_by: [[metric, "desc"]], pagination: { limit: TOP } });
  return {
    summary: { ...base, metrics: [...SUMMARY_METRICS], include: { comparisons: { mode: "previous_period" } } },
    pages: { ...base, metrics: ["visitors"], ...top("event:page", "visitors") },
    sources: { ...base, metrics: ["visitors"], ...top("visit:source", "visitors") },
    aiTotals: { ...base, metrics: ["visitors", "hits"], filters: actors("human_via_ai", "ai_crawler"), dimensions: ["visit:actor"] },
    assistants: { ...base, metrics: ["visitors"], filters: actors("human_via_ai"), ...top("visit:assistant", "visitors") },
    crawlers: { ...base, metrics: ["hits"], filters: actors("ai_crawler"), ...top("event:agent", "hits") },
  };
}

/** The report of `site` for `period`, every figure one of reportQueries' answers. */
export async function reportData(engine: QueryEngine, site: SiteRecord, frequency: Frequency, period: ReportPeriod): Promise<ReportData> {
  const q = reportQueries(site.domain, period);
  const ask = async (body: object) => (await engine.run(site, parseQuery(body))).results;
  const [summary, pages, sources, aiTotals, assistants, crawlers] = await Promise.all([q.summary, q.pages, q.sources, q.aiTotals, q.assistants, q.crawlers].map(ask));
  const row = summary![0];
  const now = row?.metrics ?? SUMMARY_METRICS.map(() => 0);
  const before = row?.comparison?.metrics ?? SUMMARY_METRICS.map(() => 0);
  const at = (m: TileMetric) => SUMMARY_METRICS.indexOf(m);
  const customEvents = (m: readonly number[]) => m[at("events")]! - m[at("pageviews")]!;
  const tiles = Object.fromEntries(
    SUMMARY_METRICS.map((m, i) => [m, m === "events" ? { value: customEvents(now), change: change("events", customEvents(now), customEvents(before)) } : { value: now[i]!, change: row?.comparison?.change[i] ?? null }]),
  ) as ReportData["tiles"];
  const byActor = new Map(aiTotals!.map((r) => [r.dimensions[0], r.metrics]));
  const listed = (rows: typeof pages) => rows!.map((r) => ({ label: displayLabel(r.dimensions[0]!, 80), visitors: r.metrics[0]! }));
  return {
    site: { domain: site.domain, name: site.name },
    frequency,
    period,
    previous: { from: addDays(period.from, -period.days), to: addDays(period.from, -1) },
    tiles,
    pages: listed(pages),
    sources: listed(sources),
    ai: {
      assistantVisitors: byActor.get("human_via_ai")?.[0] ?? 0,
      crawlerHits: byActor.get("ai_crawler")?.[1] ?? 0,
      assistants: assistants!.map((r) => ({ name: displayLabel(r.dimensions[0]!, 80), visitors: r.metrics[0]! })),
      crawlers: crawlers!.map((r) => ({ name: displayLabel(r.dimensions[0]!, 80), hits: r.metrics[0]! })),
    },
  };
}

const whole = new Intl.NumberFormat("en-US");
const ratio = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });
const num = (n: number | null) => (n === null ? "–" : Number.isInteger(n) ? whole.format(n) : ratio.format(n));
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
  const span = `${d.period.from} – ${d.period.to} (${d.period.timeZone})`;
  const t = d.tiles;
  const subject = `${what} report for ${name}: ${num(t.visitors.value)} visitors (${delta(t.visitors.change, "%")})`;
  // [label, value as read, change as read, whether the change is bad news]. Tiles are inline blocks of 128 px
  // that wrap: four a line in the 600 px mail, two on a 375 px phone (a table of four overflowed it by 48 px).
  const tile = (label: string, metric: TileMetric, shown: (n: number) => string = num): [string, string, string, boolean] => {
    const { value, change: c } = t[metric];
    // A bounce rate going up is the bad news; its change is in points.
    return metric === "bounce_rate" ? [label, `${value}%`, delta(c, " pts"), (c ?? 0) > 0] : [label, shown(value), delta(c, "%"), (c ?? 0) < 0];
  };
  const tiles: Array<[string, string, string, boolean]> = [
    tile("Visitors", "visitors"),
    tile("Visits", "visits"),
    tile("Pageviews", "pageviews"),
    tile("Bounce rate", "bounce_rate"),
    tile("Visit duration", "visit_duration", duration),
    tile("Views per visit", "views_per_visit"),
    tile("Events", "events"),
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
<tr><td style="padding:8px 20px">
${tiles.map(([label, value, change, bad]) => `<div style="display:inline-block;vertical-align:top;box-sizing:border-box;width:128px;margin:4px;background:#f0f1f5;border-radius:8px;padding:10px 12px"><div style="font-size:11px;text-transform:uppercase;color:#555b66">${label}</div><div style="font-size:22px;font-weight:700" data-metric="${label.toLowerCase().replaceAll(" ", "_")}">${value}</div><div style="font-size:12px;color:${bad ? "#b42318" : "#0f7a3d"}" data-change="${label.toLowerCase().replaceAll(" ", "_")}">${change}</div></div>`).join("")}
</td></tr>
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
