// A funnel over the query engine's rows (engine.ts overRows): the visitors reaching each step within one visit,
// steps in order. Rows are those POST /api/v2/query would read for the same date range, actors and filters
// (sql.ts rowsWhere); their visits are the enrichment's (rows.ts: one visitor's script rows with gaps under 30
// minutes, never across 00:00 UTC).
//
// Within a visit, rows are ordered as the enrichment orders them (ts, page, name). A visit reaches step 1 at
// its first row matching step 1, and step k at its first row matching step k after the row that reached step
// k − 1: the earliest match is never worse than a later one, so this finds every visit with the steps in order.
// A step's visitors are the distinct visitors with such a visit: a subset of the previous step's.
import type { DuckDBConnection } from "@duckdb/node-api";
import type { FunnelStep } from "../storage/funnels.ts";
import { type QueryGoal, type SqlContext, Params, goalCondition, rowsWhere } from "./sql.ts";

export interface FunnelCounts {
  /** Distinct visitors of the rows (the funnel's population). */
  readonly visitors: number;
  /** Per step, distinct visitors with a visit that reached it after every earlier step. */
  readonly steps: readonly number[];
  /** Per step, whether it names a goal the site no longer has. */
  readonly goalMissing: readonly boolean[];
}

/** The step's condition on a row; null for a goal the site does not have (nobody reaches it). */
function stepCondition(step: FunnelStep, goals: readonly QueryGoal[], p: Params): string | null {
  if ("page_path" in step) return goalCondition({ name: step.page_path, kind: "page", match: step.page_path }, p);
  const goal = goals.find((g) => g.name === step.goal);
  return goal === undefined ? null : goalCondition(goal, p);
}

/** The statement counting `steps` over `ctx.relation`: one row (visitors, s1 … sN). */
export function funnelSql(ctx: SqlContext, steps: readonly FunnelStep[]): { sql: string; values: (string | number)[]; goalMissing: boolean[] } {
  const p = new Params();
  const ctes = [`m as (select visit, visitor, kind, name, page, row_number() over (partition by visit order by ts, page, name) as rn
    from ${ctx.relation} where kind = 'e' and ${rowsWhere(ctx, p)})`];
  const goalMissing: boolean[] = [];
  steps.forEach((step, i) => {
    const condition = stepCondition(step, ctx.goals, p);
    goalMissing.push(condition === null);
    const reached = condition ?? "false";
    ctes.push(i === 0
      ? `s0 as (select visit, any_value(visitor) as visitor, min(rn) as r from m where ${reached} group by visit)`
      : `s${i} as (select m.visit, any_value(m.visitor) as visitor, min(m.rn) as r from m join s${i - 1} prev on m.visit = prev.visit and m.rn > prev.r where ${reached} group by m.visit)`);
  });
  const counts = steps.map((_, i) => `(select count(distinct visitor) from s${i}) as s${i}`);
  return { ...p.compact(`with ${ctes.join(",\n")} select (select count(distinct visitor) from m) as visitors, ${counts.join(", ")}`), goalMissing };
}

export async function countFunnel(connection: DuckDBConnection, ctx: SqlContext, steps: readonly FunnelStep[]): Promise<FunnelCounts> {
  const built = funnelSql(ctx, steps);
  const row = (await connection.runAndReadAll(built.sql, built.values)).getRowsJS()[0]!.map(Number);
  return { visitors: row[0]!, steps: row.slice(1), goalMissing: built.goalMissing };
}

const rate = (part: number, whole: number): number => (whole === 0 ? 0 : Math.round((10_000 * part) / whole) / 100);

/** Each step's visitors with its conversion from the first step and from the previous one, and its drop-off. */
export function funnelSteps(steps: readonly FunnelStep[], counts: FunnelCounts) {
  return steps.map((step, i) => {
    const visitors = counts.steps[i]!;
    const previous = i === 0 ? visitors : counts.steps[i - 1]!;
    return {
      label: "page_path" in step ? step.page_path : `Goal: ${step.goal}`,
      visitors,
      conversion_rate: i === 0 ? (visitors === 0 ? 0 : 100) : rate(visitors, counts.steps[0]!),
      step_conversion_rate: i === 0 ? (visitors === 0 ? 0 : 100) : rate(visitors, previous),
      dropoff: previous - visitors,
      dropoff_rate: rate(previous - visitors, previous),
      ...(counts.goalMissing[i] ? { goal_missing: true } : {}),
    };
  });
}
