// The site view's whole state lives in its URL (?period=&days=&actor=&compare=&open=&q=), so a view can be
// shared, reloaded and walked with the back button. This module is the one reader and writer of it.
import { ACTORS, type ActorParam } from "./types";

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

/** What a breakdown card and its full list both need: which breakdown, for which site and window. */
export interface BreakdownProps {
  site: string;
  spec: BreakdownSpec;
  /** The API's window parameter: `days=N` or `hours=N` (windowParam). */
  window: string;
  actor: ActorParam;
}

export const DEFAULT_PERIOD: PeriodKey = "30d";
// 366: the API's longest window (a year with a leap day).
export const MAX_CUSTOM_DAYS = 366;

export interface ViewState {
  period: PeriodKey;
  /** The window in whole UTC days ending today, as the API takes it (and the custom field's value). */
  days: number;
  /** A rolling window of hours instead (the API's `hours`), or null. */
  hours: number | null;
  actor: ActorParam;
  compare: boolean;
  open: BreakdownField | null;
  q: string;
}

export function readViewState(params: URLSearchParams): ViewState {
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
  const open = (BREAKDOWNS.find((b) => b.field === openParam)?.field ?? null) as BreakdownField | null;
  const hours = PERIODS.find((p) => p.key === period)!.hours;
  return { period, days, hours, actor, compare: params.get("compare") !== "0", open, q: params.get("q") ?? "" };
}

/** The window as the API's query parameter: `hours=24` or `days=30`. */
export const windowParam = (state: Pick<ViewState, "days" | "hours">): string => (state.hours !== null ? `hours=${state.hours}` : `days=${state.days}`);

/** The query string of a state, leaving defaults out so shared links stay short. */
export function viewQuery(state: ViewState): string {
  const params = new URLSearchParams();
  if (state.period !== DEFAULT_PERIOD) params.set("period", state.period);
  if (state.period === "custom") params.set("days", String(state.days));
  if (state.actor !== "human") params.set("actor", state.actor);
  if (!state.compare) params.set("compare", "0");
  if (state.open) params.set("open", state.open);
  if (state.open && state.q) params.set("q", state.q);
  const query = params.toString();
  return query ? `?${query}` : "";
}

export const periodLabel = (state: ViewState) =>
  state.period === "custom" ? `Last ${state.days} days` : PERIODS.find((p) => p.key === state.period)!.label;
export const actorLabel = (actor: ActorParam) => ACTOR_CHOICES.find((a) => a.key === actor)?.label ?? actor;
