// CSV and ZIP exports of what a view shows. Every cell goes through core's formula guard (csvRecord: a cell
// starting with =, +, -, @, TAB or CR is prefixed with a quote, so a spreadsheet shows it as text); files are
// UTF-8 with a byte-order mark (Excel reads a CSV without one in the local code page: "é" became "Ã©") and a
// header row. File names carry the site, the period, the actor and, in a filtered shared view, its filters.
import { csvRecord } from "@svc/core/display";
import type { AiPanel, BreakdownRow, GoalsReport, Stats } from "./types";

export type Cell = string | number | null;
export interface Table {
  readonly header: readonly string[];
  readonly rows: readonly (readonly Cell[])[];
}

const BOM = "\ufeff";

export function csvText(table: Table): string {
  return BOM + csvRecord(table.header) + table.rows.map((r) => csvRecord(r)).join("");
}

export function breakdownTable(field: string, rows: readonly BreakdownRow[]): Table {
  const count = field === "event" ? "events" : "pageviews";
  return { header: ["value", "label", "visitors", count, "hits"], rows: rows.map((r) => [r.value, r.label, r.visitors, (field === "event" ? r.events : r.pageviews) ?? 0, r.hits]) };
}

export function seriesTable(stats: Stats): Table {
  return { header: ["bucket", "visitors", "pageviews", "events", "hits"], rows: stats.series.map((p) => [p.bucket, p.visitors, p.pageviews, p.events, p.hits]) };
}

export function goalsTable(report: GoalsReport): Table {
  return { header: ["goal", "conversions", "visitors"], rows: report.goals.map((g) => [g.name, g.conversions, g.visitors]) };
}

export function aiTable(ai: AiPanel): Table {
  return {
    header: ["kind", "name", "operator", "visitors", "pageviews", "hits", "fetches"],
    rows: [
      ...ai.assistants.rows.map((r) => ["assistant", r.name, r.operator, r.visitors, r.pageviews, null, null]),
      ...ai.crawlers.rows.map((r) => ["crawler", r.name, r.operator, null, null, r.hits, null]),
      ...ai.agents.rows.map((r) => ["agent", r.name, r.operator, r.visitors, null, null, r.fetches]),
      ...ai.crawl_to_referral.map((r) => ["crawled page", r.page, null, r.referred, r.referred_pageviews, r.crawled, null]),
    ],
  };
}

// A shared view's fixed filters, set by routes/share (browser only), so its files say which segment they hold.
let viewFilters: readonly unknown[] = [];
export function exportFilters(filters: readonly unknown[]): void {
  viewFilters = filters;
}

/** `shop.example_days-30_human_pages`: site, window, actor, filters, part; safe on every file system. */
export function exportName(site: string, window: string, actor: string, part: string): string {
  const words = (text: string) => text.replace(/[^A-Za-z0-9.]+/g, "-").replace(/^-+|-+$/g, "");
  const filters = viewFilters.length === 0 ? [] : [`filtered-${words(JSON.stringify(viewFilters))}`];
  return [site, window.replace("=", "-"), actor, ...filters, part]
    .join("_")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .slice(0, 180);
}

export function download(name: string, data: BlobPart, type: string): void {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function downloadCsv(name: string, table: Table): void {
  download(`${name}.csv`, csvText(table), "text/csv;charset=utf-8");
}

/** One ZIP of several CSVs (fflate, loaded only when asked: it stays out of the site view's bundle). */
export async function downloadZip(name: string, files: ReadonlyMap<string, Table>): Promise<void> {
  const { strToU8, zipSync } = await import("fflate");
  const entries: Record<string, Uint8Array> = {};
  for (const [file, table] of files) entries[`${file}.csv`] = strToU8(csvText(table));
  const zip = zipSync(entries, { level: 6 });
  download(`${name}.zip`, zip as Uint8Array<ArrayBuffer>, "application/zip");
}
