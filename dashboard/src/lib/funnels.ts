// Funnels as the gateway defines and answers them (routes/funnels.ts): the definitions a site keeps and one
// funnel's answer over a window. One home for both, read by the funnel card and the settings' editor.
import { api, sitePath } from "./api";

export type FunnelStep = { page_path: string; goal?: undefined } | { goal: string; page_path?: undefined };

export interface Funnel {
  id: number;
  site_id: number;
  name: string;
  steps: FunnelStep[];
  created_at: string;
  updated_at: string;
}

export interface FunnelStepResult {
  label: string;
  visitors: number;
  conversion_rate: number;
  step_conversion_rate: number;
  dropoff: number;
  dropoff_rate: number;
  goal_missing?: boolean;
}

export interface FunnelResult {
  funnel: Funnel;
  date_range: string[];
  visitors: number;
  steps: FunnelStepResult[];
}

/** 2 to 8 steps: the gateway's limits (api-schema/funnels.ts). */
export const MIN_STEPS = 2;
export const MAX_STEPS = 8;

export const listFunnels = (site: string) => api.get<{ funnels: Funnel[] }>(sitePath(site, "/funnels")).then((r) => r.funnels);

/** The funnel over the window (`days=7` or `hours=24`) for the actor, with Stats API v2 `filters`. */
export function funnelResult(site: string, funnelId: number, window: string, actor: string, filters: readonly unknown[] = []): Promise<FunnelResult> {
  const extra = filters.length > 0 ? `&filters=${encodeURIComponent(JSON.stringify(filters))}` : "";
  return api.get<FunnelResult>(sitePath(site, `/funnels/${funnelId}/result?${window}&actor=${actor}${extra}`));
}

/** A step in words: its page pattern, or the goal it names. */
export const stepText = (step: FunnelStep): string => (step.goal !== undefined ? `Goal: ${step.goal}` : step.page_path);
