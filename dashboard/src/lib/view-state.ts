// The site view's whole state lives in its URL (?f=&period=&days=&actor=&compare=&match=&cfrom=&cto=&open=&q=),
// so a view can be shared, reloaded and walked with the back button. This module is the one reader and writer
// of it. The string is built by hand, not by URLSearchParams (which would encode `/` and `~`): the filters'
// readable, chat-safe form is lib/filters.ts's, and every other value is a fixed word, a number or a date.
import { PROP_KEY_PREFIX, type ViewFilter, filterPairs, readFilters, tabFilterKey, urlSafe } from "./filters.ts";
import { ACTORS, type ActorParam } from "./types.ts";

/** What each choice counts, in a sentence: the actor buttons' tooltips. */
export const ACTOR_HELP: Readonly<Record<ActorParam, string>> = {
  human: "People in a browser who did not arrive from an AI assistant",
  human_via_ai: "People who arrived from an AI assistant (ChatGPT, Perplexity, Claude…)",
  humans: "Every person: humans and humans via AI together",
  ai_crawler: "AI crawlers collecting pages (GPTBot, ClaudeBot…)",
  ai_agent: "AI agents fetching pages for someone (ChatGPT-User, headless browsers)",
  bot: "Other automation: search engine bots, monitors, scripts",
  all: "Everything; crawlers and bots count as hits, not visitors",
};

// Every period is whole days ending today (UTC days, or the site's local days when its time zone is not UTC: the
// API answers in them), except "Last 24 hours": the API's rolling `hours` window (the
// current hour and the 23 before it, from the hourly rollups).
export const PERIODS = [
  { key: "today", label: "Today", days: 1, hours: null },
  { key: "24h", label: "Last 24 hours", days: 1, hours: 24 },
  { key: "7d", label: "Last 7 days", days: 7, hours: null },
  { key: "30d", label: "Last 30 days", days: 30, hours: null },
  { key: "90d", label: "Last 90 days", days: 90, hours: null },
  { key: "12mo", label: "Last 12 months", days: 365, hours: null },
  { key: "custom", label: "Custom", days: null, hours: null },
] as const;
// Links shared before "Last 24 hours" existed said period=2d ("today and yesterday", its stand-in).
const RENAMED_PERIODS: Readonly<Record<string, PeriodKey>> = { "2d": "24h" };
export type PeriodKey = (typeof PERIODS)[number]["key"];

export const ACTOR_CHOICES: readonly { key: ActorParam; label: string }[] = [
  { key: "human", label: "Humans" },
  { key: "human_via_ai", label: "Humans via AI" },
  { key: "humans", label: "All humans" },
  { key: "ai_crawler", label: "AI crawlers" },
  { key: "ai_agent", label: "AI agents" },
  { key: "bot", label: "Bots" },
  { key: "all", label: "All traffic" },
];

export const BREAKDOWNS = [
  { field: "page", title: "Pages", column: "Page" },
  { field: "source", title: "Sources", column: "Source" },
  { field: "channel", title: "Channels", column: "Channel" },
  { field: "utm_source", title: "UTM sources", column: "UTM source" },
  { field: "utm_medium", title: "UTM mediums", column: "UTM medium" },
  { field: "utm_campaign", title: "UTM campaigns", column: "UTM campaign" },
  { field: "country", title: "Countries", column: "Country" },
  { field: "device", title: "Devices", column: "Device" },
  { field: "browser", title: "Browsers", column: "Browser" },
  { field: "os", title: "Operating systems", column: "OS" },
  { field: "event", title: "Events", column: "Event" },
  { field: "rule", title: "Bot ledger", column: "Rule" },
] as const;
export type BreakdownSpec = (typeof BREAKDOWNS)[number];
export type BreakdownField = BreakdownSpec["field"];

/**
 * One tab of a card: a rollup breakdown (`field` one of BREAKDOWNS) or a dimension only the query API counts
 * (entry and exit pages, referrers, UTM content and term, versions, a custom property), named by its filter key.
 */
export interface TabSpec {
  readonly field: string;
  readonly title: string;
  readonly column: string;
}
/** A tab that reads only from POST /api/v2/query (no rollup keeps it). */
export const isQueryOnly = (field: string) => !BREAKDOWNS.some((b) => b.field === field);

const tab = (field: string, title: string, column: string): TabSpec => ({ field, title, column });
const rollupTab = (field: BreakdownField, title: string): TabSpec => ({ ...BREAKDOWNS.find((b) => b.field === field)!, title });

/**
 * The site view's cards and their tabs, as Plausible groups them. `drill`: with an `is` filter of one value on
 * the tab's own dimension, the tab shows the next level instead (a source's referrers, a browser's versions).
 */
export const CARDS: readonly { key: string; title: string; tabs: readonly TabSpec[]; drill?: Readonly<Record<string, TabSpec>> }[] = [
  { key: "pages", title: "Pages", tabs: [rollupTab("page", "Top pages"), tab("entry", "Entry pages", "Entry page"), tab("exit", "Exit pages", "Exit page")] },
  {
    key: "sources",
    title: "Sources",
    tabs: [
      rollupTab("source", "Sources"), tab("referrer", "Referrers", "Referrer"), rollupTab("channel", "Channels"),
      rollupTab("utm_source", "UTM sources"), rollupTab("utm_medium", "UTM mediums"), rollupTab("utm_campaign", "UTM campaigns"),
      tab("utm-content", "UTM contents", "UTM content"), tab("utm-term", "UTM terms", "UTM term"),
    ],
    drill: { source: tab("referrer", "Referrers", "Referrer") },
  },
  { key: "locations", title: "Locations", tabs: [rollupTab("country", "Countries")] },
  {
    key: "devices",
    title: "Devices",
    tabs: [rollupTab("device", "Devices"), rollupTab("browser", "Browsers"), rollupTab("os", "Operating systems")],
    drill: { browser: tab("browser-version", "Browser versions", "Version"), os: tab("os-version", "OS versions", "Version") },
  },
  { key: "events", title: "Events", tabs: [rollupTab("event", "Events")] },
  { key: "bots", title: "Bot ledger", tabs: [rollupTab("rule", "Bot ledger")] },
];

/** The tab a field names (any card's tab or drill-down, a rollup breakdown, a custom property), or null. */
export function tabSpecOf(field: string): TabSpec | null {
  for (const card of CARDS) {
    const found = card.tabs.find((t) => t.field === field) ?? Object.values(card.drill ?? {}).find((t) => t.field === field);
    if (found) return found;
  }
  const rollup = BREAKDOWNS.find((b) => b.field === field);
  if (rollup) return rollup;
  if (field.startsWith(PROP_KEY_PREFIX) && tabFilterKey(field) !== null) {
    const name = field.slice(PROP_KEY_PREFIX.length);
    return { field, title: `Property ${name}`, column: name };
  }
  return null;
}

/** What a breakdown card and its full list both need: which breakdown, for which site and window. */
export interface BreakdownProps {
  site: string;
  spec: TabSpec;
  /** The API's window parameter: `days=N` or `hours=N` (windowParam). */
  window: string;
  actor: ActorParam;
}

export const DEFAULT_PERIOD: PeriodKey = "30d";
// 366: the API's longest window (a year with a leap day).
export const MAX_CUSTOM_DAYS = 366;

/** What the tiles, the chart's ghost line and the rows' changes compare with. */
export const COMPARISONS = [
  { key: "previous", label: "Previous period" },
  { key: "yoy", label: "Same period last year" },
  { key: "custom", label: "Custom range" },
  { key: "off", label: "No comparison" },
] as const;
export type ComparisonMode = (typeof COMPARISONS)[number]["key"];

export interface Comparison {
  mode: ComparisonMode;
  /** Plausible's "match day of week": the compared range starts on the same weekday. */
  matchWeekday: boolean;
  /** The custom range's first and last day (YYYY-MM-DD, the site's days), when `mode` is custom. */
  from: string | null;
  to: string | null;
}

export interface ViewState {
  period: PeriodKey;
  /** The window in whole UTC days ending today, as the API takes it (and the custom field's value). */
  days: number;
  /** A rolling window of hours instead (the API's `hours`), or null. */
  hours: number | null;
  actor: ActorParam;
  /** Whether anything is compared (comparison.mode is not "off"). */
  compare: boolean;
  comparison: Comparison;
  filters: ViewFilter[];
  /** The tab whose full list is open (a TabSpec's field: a rollup breakdown, a query-only tab, `prop.{name}`). */
  open: string | null;
  q: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const isDay = (v: string | null): v is string => v !== null && DAY.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`));

function readComparison(params: URLSearchParams): Comparison {
  const raw = params.get("compare");
  // `compare=0`: links from before the comparison choice turned the previous period off so.
  const mode: ComparisonMode = raw === "0" ? "off" : (COMPARISONS.find((c) => c.key === raw)?.key ?? "previous");
  const from = params.get("cfrom");
  const to = params.get("cto");
  const custom = mode === "custom" && isDay(from) && isDay(to) && from <= to;
  return { mode: mode === "custom" && !custom ? "previous" : mode, matchWeekday: params.get("match") === "weekday", from: custom ? from : null, to: custom ? to : null };
}

/** The view a URL shows (`url.search` holds the filters in their raw form: see lib/filters.ts). */
export function readViewState(url: Pick<URL, "search" | "searchParams">): ViewState {
  const params = url.searchParams;
  const periodParam = params.get("period") ?? "";
  const period = (PERIODS.find((p) => p.key === periodParam)?.key ?? RENAMED_PERIODS[periodParam] ?? DEFAULT_PERIOD) as PeriodKey;
  const customDays = Number(params.get("days"));
  const days =
    period === "custom"
      ? Number.isInteger(customDays) && customDays >= 1 && customDays <= MAX_CUSTOM_DAYS
        ? customDays
        : 14
      : PERIODS.find((p) => p.key === period)!.days!;
  const actorParam = params.get("actor");
  const actor = ([...ACTORS, "humans", "all"] as readonly string[]).includes(actorParam ?? "") ? (actorParam as ActorParam) : "human";
  const openParam = params.get("open");
  const open = openParam !== null && tabSpecOf(openParam) !== null ? openParam : null;
  const hours = PERIODS.find((p) => p.key === period)!.hours;
  const comparison = readComparison(params);
  return { period, days, hours, actor, compare: comparison.mode !== "off", comparison, filters: readFilters(url.search), open, q: params.get("q") ?? "" };
}

/** The window as the API's query parameter: `hours=24` or `days=30`. */
export const windowParam = (state: Pick<ViewState, "days" | "hours">): string => (state.hours !== null ? `hours=${state.hours}` : `days=${state.days}`);

/** The query string of a state, leaving defaults out so shared links stay short. */
export function viewQuery(state: ViewState): string {
  const pairs = filterPairs(state.filters);
  if (state.period !== DEFAULT_PERIOD) pairs.push(`period=${state.period}`);
  if (state.period === "custom") pairs.push(`days=${state.days}`);
  if (state.actor !== "human") pairs.push(`actor=${state.actor}`);
  const c = state.comparison;
  // `compare: false` from a caller that only knows the toggle turns the comparison off.
  const mode = state.compare ? (c.mode === "off" ? "previous" : c.mode) : "off";
  if (mode === "off") pairs.push("compare=0");
  else if (mode !== "previous") pairs.push(`compare=${mode}`);
  if (mode === "custom" && c.from && c.to) pairs.push(`cfrom=${c.from}`, `cto=${c.to}`);
  if (mode !== "off" && c.matchWeekday) pairs.push("match=weekday");
  if (state.open) pairs.push(`open=${urlSafe(state.open)}`);
  if (state.open && state.q) pairs.push(`q=${urlSafe(state.q)}`);
  return pairs.length ? `?${pairs.join("&")}` : "";
}

export const periodLabel = (state: ViewState) =>
  state.period === "custom" ? `Last ${state.days} days` : PERIODS.find((p) => p.key === state.period)!.label;
export const actorLabel = (actor: ActorParam) => ACTOR_CHOICES.find((a) => a.key === actor)?.label ?? actor;
