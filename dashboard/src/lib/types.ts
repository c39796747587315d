// The gateway's JSON as the dashboard reads it (gateway/src/api-schema/ is the source of truth; these
// mirror the fields the pages use).
export const ACTORS = ["human", "human_via_ai", "ai_crawler", "ai_agent", "bot"] as const;
export type Actor = (typeof ACTORS)[number];
/** The API's actor choices: one actor, `humans` (human + human_via_ai) or `all`. */
export type ActorParam = Actor | "humans" | "all";
export const HUMAN_ACTORS: readonly Actor[] = ["human", "human_via_ai"];
/** The actors a choice counts. */
export const actorsOf = (choice: ActorParam): readonly Actor[] => (choice === "all" ? ACTORS : choice === "humans" ? HUMAN_ACTORS : [choice]);
/** Whose visitors a choice counts: under `all`, AI crawlers and bots are hits only (the gateway's rule). */
export const visitorActorsOf = (choice: ActorParam): readonly Actor[] => (choice === "all" ? ["human", "human_via_ai", "ai_agent"] : actorsOf(choice));
/** People, whose numbers going up is good news (the tiles colour their changes). */
export const isHumanChoice = (choice: ActorParam) => choice === "human" || choice === "human_via_ai" || choice === "humans";

export interface Derived {
  value: number | null;
  basis: "observed" | "inferred";
}
export interface Site {
  id: number;
  domain: string;
  name: string | null;
  team_id: number;
  retention_days: number;
  /** IANA zone its reports' days follow (default UTC). */
  time_zone: string;
  created_at: string;
}
export interface Totals {
  visitors: number;
  pageviews: number;
  events: number;
  hits: number;
  views_per_visitor: Derived;
}
export interface SeriesPoint {
  bucket: string;
  visitors: number;
  pageviews: number;
  events: number;
  hits: number;
}
export interface Stats {
  site_id: number;
  actor: ActorParam;
  days: number;
  from: string;
  to: string;
  /** An hours window's length and first hour (ISO); absent for whole days. */
  hours?: number;
  start?: string;
  visitors_basis?: "inferred";
  current: Totals;
  previous: { from: string; to: string; start?: string; totals: Totals };
  change: Record<"visitors" | "pageviews" | "events" | "hits" | "views_per_visitor", Derived>;
  granularity: "hour" | "day";
  series: SeriesPoint[];
}
export interface BreakdownRow {
  value: string;
  label: string;
  visitors: number;
  pageviews?: number;
  events?: number;
  hits: number;
  /** Visitors' change against the view's comparison (a fraction; null from nothing), from the query API. */
  change?: number | null;
}
export interface Breakdown {
  field: string;
  rows: BreakdownRow[];
}
export interface Named {
  name: string;
  operator: string | null;
}
export interface AiPanel {
  assistants: { visitors: number; pageviews: number; rows: (Named & { visitors: number; pageviews: number })[] };
  crawlers: { hits: number; rows: (Named & { hits: number })[] };
  agents: { fetches: number; rows: (Named & { fetches: number; visitors: number })[] };
  crawl_to_referral: { page: string; crawled: number; referred: number; referred_pageviews: number; never_referred: boolean }[];
  agent_tasks: { fetches: number; status: Record<"2xx" | "3xx" | "4xx" | "5xx", number> | null; error_share: Derived; top_paths: { page: string; fetches: number }[] };
}
export interface GoalsReport {
  goals: { id: number; name: string; created_at: string; conversions: number; visitors: number }[];
}
export interface Me {
  team_id: number;
  via: string;
  subject: string;
  mode: "admin" | "jwt";
}
export interface ApiKey {
  id: number;
  name: string;
  prefix: string;
  last4: string;
  /** `read`: every read route, the live stream, the MCP server; `admin`: also sites, goals and insights runs. */
  scope: "read" | "admin";
  created_at: string;
  last_used_at: string | null;
}
export interface ProviderStatus {
  default_model: string | null;
  endpoint: string | null;
  key_configured: boolean;
  usable: boolean;
}
export interface LlmSettings {
  provider: string;
  model: string | null;
  source: "team" | "environment" | "default";
  providers: Record<string, ProviderStatus>;
}
export interface LiveCounts {
  pageviews: number;
  events: number;
  hits: number;
  visitors: number;
}
export interface LiveSnapshot {
  site: { id: number; domain: string };
  at: string;
  day: string;
  totals: Partial<Record<Actor, LiveCounts>>;
  /** Distinct visitors per actor whose last row is at most 5 minutes old. */
  visitors_last_5_minutes: Partial<Record<Actor, number>>;
}
export interface LiveDelta {
  at: string;
  committed_at: string;
  /** Per actor, and `all`: the exact all-actor counter (its visitors people and agents, distinct over actors). */
  totals: Partial<Record<Actor | "all", LiveCounts>>;
  dimensions: (LiveCounts & { actor: Actor; dim: string; value: string })[];
  dimensions_omitted: number;
}
