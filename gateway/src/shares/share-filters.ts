// A shared link's fixed filters: Plausible Stats API v2 filter arrays (`[["is", "visit:source", ["Google"]]]`),
// the ones POST /api/v2/query takes (issue 22). Checked when the link is made by the query engine's own parser
// (query/request.ts) and its RE2 pattern check, so a link never stores filters the engine refuses.
//
// A filtered link's reads — totals, series and previous window; breakdowns; goals; the AI panel; the counter's
// visitors now — are queries of the engine with the link's filters and actors (filtered-reads.ts), so they equal
// POST /api/v2/query with the same filters. Two parts stay out: the bot rule breakdown (the rule is no column of
// the engine's rows) and the AI panel's HTTP status classes (neither is the status: `agent_tasks.status` null).
import type { QueryEngine } from "../query/engine.ts";
import { ApiError } from "../errors.ts";
import { type QueryPlan, filtersParam, parseQuery } from "../query/request.ts";

/** A stored filter, as the owner sent it (the engine parses it again on each read). */
export type Filter = readonly unknown[];

/** The link's filters checked as the engine checks a query's: a 400 naming the field (`filters[0][1]`) otherwise. */
export async function checkShareFilters(engine: QueryEngine, domain: string, filters: readonly unknown[]): Promise<readonly Filter[]> {
  const plan = parseQuery({ site_id: domain, date_range: "day", metrics: ["visitors"], filters });
  await engine.checkFilters(plan);
  return filters as readonly Filter[];
}

/**
 * A read's `filters` parameter (a view's own: the owner's filtered AI panel, a shared view's viewer filters) as
 * JSON, checked as the engine checks a query's: a 400 invalid_query naming `filters[i]` otherwise; none when absent.
 */
export async function checkViewFilters(engine: QueryEngine, domain: string, raw: string | undefined): Promise<readonly Filter[]> {
  const filters = raw === undefined || raw === "" ? [] : filtersParam(raw);
  if (filters.length === 0) return [];
  return checkShareFilters(engine, domain, filters).catch((error: unknown) => {
    throw error instanceof ApiError && error.status === 400 ? new ApiError("invalid_query", error.message, error.details) : error;
  });
}

/** The link's filters and the read's actors as the filters of the rest of a query (`rest` brings none: its own would be replaced). */
export function sharePlan(domain: string, linkFilters: readonly Filter[], actors: readonly string[], rest: Record<string, unknown>): QueryPlan {
  return parseQuery({ site_id: domain, ...rest, filters: [...linkFilters, ["is", "visit:actor", [...actors]]] });
}
