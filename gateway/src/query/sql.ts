// A query plan turned into one DuckDB statement over the enriched rows (rows.ts) of a relation `src`.
//
// Semantics, as Plausible defines them (https://plausible.io/docs/metrics-definitions):
// - Rows in range: from ≤ ts < to (the site's local days). Filters are evaluated per row, a visit dimension
//   reading the row's visit value (source, channel, UTM and actor are stored per visit; entry and exit page come
//   from the enrichment), an event dimension the row's own value.
// - Row metrics count matching rows: visitors = distinct visitor hashes, pageviews = script pageviews, events =
//   script rows (pageviews and custom events), hits = middleware rows.
// - Visit metrics count the visits with at least one matching row: visits, bounce_rate (visits of one row, in
//   whole percent), visit_duration (mean seconds from first to last row, whole seconds), views_per_visit (the
//   visits' pageviews over visits, two decimals). A visit lands in the time bucket of its start.
// - percentage = visitors / all visitors of the query (no dimensions) × 100, one decimal.
// - conversion_rate = converting visitors / visitors of the query without its goal filters, × 100, two decimals;
//   group_conversion_rate divides by the visitors of the same non-goal dimension values instead.
// - Without visit:actor in a filter or dimension only actor `human` counts, as on the dashboard.
import { DAY_MS, DIRECT_LABEL, NOT_SET_LABEL, blankLabel } from "@svc/core";
import type { ResolvedRange } from "./date-range.ts";
import {
  type Filter, type FilterLeaf, type Metric, type QueryPlan, PROP_PREFIX, filterLeaves, isEventDimension, isLeaf, isTimeDimension,
} from "./request.ts";
import type { TimeDimension } from "./request.ts";

export interface QueryGoal {
  /** Plausible's display name: the event name, or `Visit /path` for a page goal. */
  readonly name: string;
  readonly kind: "event" | "page";
  /** The event name, or the page goal's path pattern with Plausible's `*` and `**` wildcards. */
  readonly match: string;
}

export interface SqlContext {
  readonly plan: QueryPlan;
  readonly range: ResolvedRange;
  readonly timeZone: string;
  /** The time dimension's grain (`time` resolved), when there is one. */
  readonly grain: Exclude<TimeDimension, "time"> | null;
  readonly goals: readonly QueryGoal[];
  /** The relation of enriched rows to read. */
  readonly relation: string;
  /**
   * The relations `relation` is the union of (engine.ts load: today's table, the day files, rows copied from
   * PostgreSQL), each holding whole UTC days no other holds. Distinct visitors are counted over each and added up
   * (`perArm`); absent, over `relation`.
   */
  readonly arms?: readonly string[];
  /** What the rollups answered for this statement instead of a scan of every row (engine.ts `fromRollups`). */
  readonly fromRollups?: FromRollups;
}

export interface FromRollups {
  /** Visitors of the query without its goal filters: by the non-goal dimension (a table d…, gv) and in all. */
  readonly ungoaled?: { readonly groups: string | null; readonly total: number };
}

/** Positional parameters: every value a caller sent reaches DuckDB bound, never spliced into the text. */
export class Params {
  readonly values: (string | number)[] = [];
  bind(value: string | number): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
  /** The text and values with only the parameters the text uses, renumbered (DuckDB refuses unused ones). */
  compact(sql: string): { sql: string; values: (string | number)[] } {
    const renumbered = new Map<string, string>();
    const values: (string | number)[] = [];
    const text = sql.replace(/\$(\d+)\b/g, (_, n: string) => {
      let name = renumbered.get(n);
      if (name === undefined) {
        values.push(this.values[Number(n) - 1]!);
        name = `$${values.length}`;
        renumbered.set(n, name);
      }
      return name;
    });
    return { sql: text, values };
  }
}

const NOT_SET = `'${NOT_SET_LABEL}'`;
/** A stored column with its empty value read as core's label for it (source, referrer_host: "Direct / None"). */
const blank = (column: string): string => `coalesce(nullif(${column}, ''), '${blankLabel(column)}')`;

/** Plausible's page-goal wildcards: `**` any characters, `*` any but `/`; the rest literal. Full match. */
export function pagePatternRegex(pattern: string): string {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "*" && pattern[i + 1] === "*") {
      out += ".*";
      i++;
    } else if (c === "*") out += "[^/]*";
    else out += /[\\^$.|?+()[\]{}]/.test(c) ? `\\${c}` : c;
  }
  return out;
}

/** SQL of a goal's condition on a row. */
export function goalCondition(goal: QueryGoal, p: Params): string {
  return goal.kind === "event"
    ? `(kind = 'e' and name = ${p.bind(goal.match)})`
    : `(kind = 'e' and name = 'pageview' and regexp_full_match(page, ${p.bind(pagePatternRegex(goal.match))}))`;
}

/** The SQL value of a dimension for a row (time dimensions at `tsColumn`). */
function dimensionSql(dim: string, ctx: SqlContext, p: Params, tsColumn = "ts"): string {
  if (dim.startsWith(PROP_PREFIX)) {
    const key = dim.slice(PROP_PREFIX.length);
    return `coalesce(json_extract_string(props, ${p.bind(`$."${key.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`)}), '(none)')`;
  }
  if (isTimeDimension(dim)) return timeSql(ctx, p, tsColumn);
  switch (dim) {
    case "event:name":
      return "name";
    case "event:page":
      return "page";
    case "event:hostname":
      return blank("hostname");
    case "event:agent":
      return `case when actor in ('ai_crawler', 'ai_agent') then ${blank("ai_name")} else ${NOT_SET} end`;
    case "visit:entry_page":
      return blank("v_entry");
    case "visit:exit_page":
      return blank("v_exit");
    case "visit:source":
      return blank("source");
    case "visit:referrer":
      return blank("referrer_host");
    case "visit:channel":
      return blank("channel");
    case "visit:country_name":
      return `coalesce((select cn.name from country_names cn where cn.code = country), ${NOT_SET})`;
    case "visit:actor":
      return "actor";
    case "visit:assistant":
      return `case when actor = 'human_via_ai' then ${blank("ai_name")} else ${NOT_SET} end`;
    default:
      // visit:utm_*, device, browser, browser_version, os, os_version, country: the column of the same name.
      return blank(dim.slice("visit:".length));
  }
}

function timeSql(ctx: SqlContext, p: Params, tsColumn: string): string {
  // UTC sites skip the ICU conversion; others go through the zone's rules (half-hour zones and DST included).
  const utc = `make_timestamp(${tsColumn} * 1000)`;
  const local = ctx.timeZone === "UTC" ? utc : `timezone(${p.bind(ctx.timeZone)}, ${utc}::timestamptz)`;
  const first = (): string => `${p.bind(ctx.range.firstDay)}::date`;
  switch (ctx.grain!) {
    case "time:hour":
      return `strftime(date_trunc('hour', ${local}), '%Y-%m-%d %H:00:00')`;
    case "time:day":
      return `strftime(${local}, '%Y-%m-%d')`;
    case "time:week":
      return `strftime(greatest(date_trunc('week', ${local})::date, ${first()}), '%Y-%m-%d')`;
    case "time:month":
      return `strftime(greatest(date_trunc('month', ${local})::date, ${first()}), '%Y-%m-%d')`;
  }
}

/** Dimensions whose value is a stored column (or its blank label): see leafSql. */
const PLAIN_COLUMNS: Readonly<Record<string, string>> = {
  "event:name": "name", "event:page": "page", "event:hostname": "hostname", "visit:source": "source", "visit:referrer": "referrer_host",
  "visit:channel": "channel", "visit:utm_source": "utm_source", "visit:utm_medium": "utm_medium", "visit:utm_campaign": "utm_campaign",
  "visit:utm_content": "utm_content", "visit:utm_term": "utm_term", "visit:device": "device", "visit:browser": "browser",
  "visit:browser_version": "browser_version", "visit:os": "os", "visit:os_version": "os_version", "visit:country": "country", "visit:actor": "actor",
};

/** The label a blank (null or "") stored value of the dimension reads as (dimensionSql's `blank`), null for a column read as it is. */
function queryBlankLabel(dimension: string): string | null {
  if (dimension === "event:name" || dimension === "event:page" || dimension === "visit:actor") return null;
  return blankLabel(dimension.slice(dimension.indexOf(":") + 1));
}

function goalsMatching(leaf: FilterLeaf, goals: readonly QueryGoal[]): QueryGoal[] {
  const fold = (s: string): string => (leaf.caseSensitive ? s : s.toLowerCase());
  const clauses = leaf.clauses.map(fold);
  return goals.filter((g) => (leaf.op === "is" ? clauses.includes(fold(g.name)) : clauses.some((c) => fold(g.name).includes(c))));
}

function leafSql(leaf: FilterLeaf, ctx: SqlContext, p: Params): string {
  if (leaf.dimension === "event:goal") {
    const matched = goalsMatching(leaf, ctx.goals);
    return matched.length === 0 ? "false" : `(${matched.map((g) => goalCondition(g, p)).join(" or ")})`;
  }
  // `is` on a stored column, case-sensitive, compares the column itself: DuckDB pushes that into the Parquet
  // scan instead of computing the label for every row. A blank value (null or "") reads as its label, so
  // asking for the label asks for the blanks too ("Direct / None", the site view's top source: its filtered
  // tiles over 10M rows 1.7–1.9 s of CPU → 1.6 s). Never null (a null column under `not` must read as "not is",
  // i.e. true).
  const column = PLAIN_COLUMNS[leaf.dimension];
  const label = queryBlankLabel(leaf.dimension);
  if (leaf.op === "is" && leaf.caseSensitive && column !== undefined && (label !== null || !leaf.clauses.some((c) => c === "" || c.startsWith("(") || c === DIRECT_LABEL))) {
    const stored = leaf.clauses.filter((c) => label === null || c !== "").map((c) => `${p.bind(c)}::varchar`);
    if (label !== null && leaf.clauses.includes(label)) return `(${column} is null or ${column} in ('', ${stored.join(", ")}))`;
    return stored.length === 0 ? "false" : `(${column} is not null and ${column} in (${stored.join(", ")}))`;
  }
  const fold = (s: string): string => (leaf.caseSensitive ? s : `lower(${s})`);
  const value = fold(dimensionSql(leaf.dimension, ctx, p));
  const clauses = leaf.clauses.map((c) => fold(`${p.bind(c)}::varchar`));
  const flags = leaf.caseSensitive ? "" : ", 'i'";
  switch (leaf.op) {
    case "is":
      return `(${value} in (${clauses.join(", ")}))`;
    case "is_not":
      return `(${value} not in (${clauses.join(", ")}))`;
    case "contains":
      return `(${clauses.map((c) => `contains(${value}, ${c})`).join(" or ")})`;
    case "contains_not":
      return `not (${clauses.map((c) => `contains(${value}, ${c})`).join(" or ")})`;
    case "matches":
      return `(${leaf.clauses.map((c) => `regexp_matches(${dimensionSql(leaf.dimension, ctx, p)}, ${p.bind(c)}${flags})`).join(" or ")})`;
    case "matches_not":
      return `not (${leaf.clauses.map((c) => `regexp_matches(${dimensionSql(leaf.dimension, ctx, p)}, ${p.bind(c)}${flags})`).join(" or ")})`;
  }
}

function filterSql(filter: Filter, ctx: SqlContext, p: Params, dropGoals: boolean): string {
  if (!isLeaf(filter)) {
    return "children" in filter ? `(${filter.children.map((c) => filterSql(c, ctx, p, dropGoals)).join(` ${filter.op} `)})` : `(not ${filterSql(filter.child, ctx, p, dropGoals)})`;
  }
  if (dropGoals && filter.dimension === "event:goal") return "true";
  return leafSql(filter, ctx, p);
}

/** Whether the query opens every actor (visit:actor named in a dimension or a filter). */
export const opensActors = (plan: QueryPlan): boolean => plan.dimensions.includes("visit:actor") || filterLeaves(plan.filters).some((l) => l.dimension === "visit:actor");

/**
 * The columns of `r` (buildQuery): the row metrics, and a split visit count's one-row visits (all of them, and
 * those whose row is a pageview). Each adds up over arms of disjoint UTC days (`perArm`).
 */
const ROW_COLUMNS = {
  visitors: { count: "count(distinct visitor)::double", type: "double" },
  pageviews: { count: "(count(*) filter (where kind = 'e' and name = 'pageview'))::double", type: "double" },
  events: { count: "(count(*) filter (where kind = 'e'))::double", type: "double" },
  hits: { count: "(count(*) filter (where kind = 'h'))::double", type: "double" },
  singles: { count: "count(*) filter (where kind = 'e' and v_events = 1)", type: "bigint" },
  single_pv: { count: "count(*) filter (where kind = 'e' and v_events = 1 and name = 'pageview')", type: "bigint" },
} as const;
type RowColumn = keyof typeof ROW_COLUMNS;

/**
 * The arms to count the row metrics over one by one (SqlContext.arms), or null to count the union at once. Over
 * a UNION ALL, DuckDB's grouped count(distinct) holds what it has grouped in memory instead of spilling it: the
 * site view's page card (distinct visitors per page over 3.4M rows, 30 days) ran out of memory at 160 and 192 MB
 * through the union of today's table and the day files, and fits 64 MB over the day files alone, where it
 * spills; 3M generated rows over 5,000 pages the same way at 64 MB (test/query/union-spill.test.ts). Grouping by
 * visit (the visit metrics) spills through the union (1.5M visits in the same test), so it stays one statement
 * over it. Each arm holds whole UTC days and a visitor's hash rotates at 00:00 UTC, so no visitor is in two
 * arms: distinct counts add up. Rows by goal (a union of their own) are counted at once as before.
 */
function perArm(ctx: SqlContext, byGoal: boolean): readonly string[] | null {
  return ctx.arms !== undefined && ctx.arms.length > 1 && !byGoal ? ctx.arms : null;
}

const ROW_METRICS: ReadonlySet<Metric> = new Set(["visitors", "pageviews", "events", "hits", "percentage", "conversion_rate", "group_conversion_rate"]);
const VISIT_LEVEL: ReadonlySet<Metric> = new Set(["visits", "bounce_rate", "visit_duration", "views_per_visit"]);

/** Dimensions and filters whose value every row of a visit shares (entry and exit page, a visit's time bucket). */
const VISIT_CONSTANT: ReadonlySet<string> = new Set(["visit:entry_page", "visit:exit_page"]);

/** Whether the visit metrics may count a visit by its first row: no actor opened, every dimension and filter visit-constant. */
function visitConstant(plan: QueryPlan): boolean {
  return !opensActors(plan) && plan.dimensions.every((d) => VISIT_CONSTANT.has(d) || isTimeDimension(d)) && filterLeaves(plan.filters).every((l) => VISIT_CONSTANT.has(l.dimension));
}

export interface BuiltQuery {
  readonly sql: string;
  readonly values: (string | number)[];
  /** Result columns: d0 … then the metrics by name, then __total (rows before pagination). */
  readonly dimensionColumns: readonly string[];
}

/** The condition on a row of the query's rows: in range, of its actors, passing its filters (goal filters kept unless `dropGoals`). */
export function rowsWhere(ctx: SqlContext, p: Params, dropGoals = false): string {
  const parts = [`ts >= ${p.bind(ctx.range.fromMs)}`, `ts < ${p.bind(ctx.range.toMs)}`];
  if (!opensActors(ctx.plan)) parts.push("actor = 'human'");
  for (const f of ctx.plan.filters) parts.push(filterSql(f, ctx, p, dropGoals));
  return parts.join(" and ");
}

/** The statement answering `ctx.plan` over `ctx.relation`, with or without its pagination. */
export function buildQuery(ctx: SqlContext, { paginate }: { paginate: boolean }): BuiltQuery {
  const { plan } = ctx;
  const p = new Params();
  const dims = plan.dimensions;
  const cols = dims.map((_, i) => `d${i}`);
  const hasGoalDim = dims.includes("event:goal");

  const filtersOnly = (dropGoals: boolean): string[] => plan.filters.map((f) => filterSql(f, ctx, p, dropGoals));
  const where = (dropGoals: boolean): string => rowsWhere(ctx, p, dropGoals);

  const ctes: string[] = [`m as (select * from ${ctx.relation} where ${where(false)})`];
  const needsUngoaled = plan.metrics.includes("conversion_rate") || plan.metrics.includes("group_conversion_rate");
  const ungoaled = ctx.fromRollups?.ungoaled;
  if (needsUngoaled && ungoaled === undefined) ctes.push(`u as (select * from ${ctx.relation} where ${where(true)})`);
  const ungoaledTotal = ungoaled === undefined ? "(select count(distinct visitor) from u)" : p.bind(ungoaled.total);

  // Rows by goal: a row counts once under each goal it matches (a pageview may match several page goals).
  let rows = "m";
  if (hasGoalDim) {
    const arms = ctx.goals.map((g) => `select ${p.bind(g.name)}::varchar as goal, * from m where ${goalCondition(g, p)}`);
    ctes.push(`g as (${arms.length > 0 ? arms.join(" union all ") : "select null::varchar as goal, * from m where false"})`);
    rows = "g";
  }
  const dimOf = (dim: string, ts = "ts"): string => (dim === "event:goal" ? "goal" : dimensionSql(dim, ctx, p, ts));
  const selectDims = (ts = "ts"): string => dims.map((d, i) => `${dimOf(d, ts)} as d${i}`).join(", ");
  const groupBy = dims.length > 0 ? " group by all" : "";
  const withDims = (rest: string, ts = "ts"): string => (dims.length > 0 ? `${selectDims(ts)}, ${rest}` : rest);

  const wantsRows = plan.metrics.some((m) => ROW_METRICS.has(m));
  const wantsVisits = plan.metrics.some((m) => VISIT_LEVEL.has(m));
  const parts: string[] = [];
  // Visit metrics over rows whose values may differ within a visit (visitConstant below otherwise): a visit
  // counts once per group it has a matching row in, so those rows are grouped by visit — except a visit of one
  // row, which is its own group: counted from its row in `r` (it bounced, lasted 0 s, and has a pageview when
  // its row is one), so only longer visits reach the hash table. The site view's tiles filtered by a source
  // (10M rows, 30 days; 2.7M visits, 83 % of one row): 475,000 groups instead of 2.7M, the statement's CPU
  // 2.2–2.8 s → 1.7–1.9 s (DuckDB, 2 threads, load average 5–7).
  const split = wantsVisits && !visitConstant(plan);
  const rowColumns: RowColumn[] = [];
  if (wantsRows || !wantsVisits) rowColumns.push("visitors", "pageviews", "events", "hits");
  if (split) rowColumns.push("singles", "single_pv");
  if (rowColumns.length > 0) {
    // Without row metrics, only the groups where a visit counts (those of the longer visits join below).
    const having = split && !wantsRows && dims.length > 0 ? " having singles > 0" : "";
    // Counted per arm (`perArm`), or over the query's rows (`m`, or `g` by goal) at once.
    const arms = perArm(ctx, hasGoalDim);
    const grouped = arms === null ? [rows] : arms.map((arm) => `(select * from ${arm} where ${where(false)})`);
    const counted = (from: string): string => `select ${withDims(rowColumns.map((c) => `${ROW_COLUMNS[c].count} as ${c}`).join(", "))} from ${from}${groupBy}`;
    ctes.push(grouped.length === 1
      ? `r as (${counted(grouped[0]!)}${having})`
      : `r as (select ${[...cols, ...rowColumns.map((c) => `sum(${c})::${ROW_COLUMNS[c].type} as ${c}`)].join(", ")}
        from (${grouped.map(counted).join(" union all ")})${groupBy}${having})`);
    if (!split) parts.push("r");
  }
  if (wantsVisits) {
    // One row per (dimension values, visit) first, so a visit's own values are counted once; a visit's time
    // bucket is its start (not before the range).
    const start = ctx.grain === null ? "v_start" : `greatest(v_start, ${p.bind(ctx.range.fromMs)})`;
    const perVisit = (where: string): string =>
      `select ${withDims("visit, any_value(v_bounce) as b, any_value(v_duration) as du, any_value(v_pageviews) as pv", start)} from ${rows} where kind = 'e'${where} group by all`;
    if (visitConstant(plan)) {
      // Every filter and dimension reads a value its visit's rows share, so a visit matches as its first row
      // does: visits wholly inside the range are counted as their `v_first` rows, no grouping by visit (visit
      // metrics by entry page over 10M rows, 5.5M visits: 5.5 s of CPU → 0.9 s, and no hash table of 5.5M
      // visits); only visits cut by a range end (a local day of a zone off UTC) are grouped per visit. `v_human`
      // stands in for the actor filter: a visit counts when any of its rows is a human's, as the per-row
      // filter has it.
      const inside = `v_start >= ${p.bind(ctx.range.fromMs)} and v_start + round(v_duration * 1000) < ${p.bind(ctx.range.toMs)}`;
      // A range of whole UTC days cuts no visit (none spans 00:00 UTC), and a visit's first row is at its start:
      // a plain range on ts, which the Parquet scan prunes by statistics, and no second scan for cut visits.
      const utcDays = ctx.range.fromMs % DAY_MS === 0 && ctx.range.toMs % DAY_MS === 0;
      const first = ["v_first", "v_human", utcDays ? `ts >= ${p.bind(ctx.range.fromMs)} and ts < ${p.bind(ctx.range.toMs)}` : inside, ...filtersOnly(false)].join(" and ");
      const firsts = `select ${withDims("visit, v_bounce as b, v_duration as du, v_pageviews as pv", start)} from ${ctx.relation} where ${first}`;
      ctes.push(`vv as (${utcDays ? firsts : `${firsts} union all ${perVisit(` and not (${inside})`)}`})`);
      ctes.push(`v as (select ${dims.length > 0 ? `${cols.join(", ")}, ` : ""}count(*)::double as visits, coalesce(avg(b::int), 0) as bounce, coalesce(avg(du), 0) as duration,
        coalesce(sum(pv) / count(*), 0)::double as vpv from vv${groupBy})`);
      parts.push("v");
    } else {
      // The longer visits grouped (vv, vm), beside the one-row visits of `r`: a visit bounced when it had one row.
      ctes.push(`vv as (${perVisit(" and v_events > 1")})`);
      ctes.push(`vm as (select ${dims.length > 0 ? `${cols.join(", ")}, ` : ""}count(*) as longer, sum(du) as du, sum(pv) as pv from vv${groupBy})`);
      const visits = "(coalesce(singles, 0) + coalesce(longer, 0))";
      ctes.push(`v as (select *, ${visits}::double as visits, coalesce(coalesce(singles, 0) / nullif(${visits}, 0), 0) as bounce,
        coalesce(coalesce(du, 0) / nullif(${visits}, 0), 0) as duration, coalesce((coalesce(single_pv, 0) + coalesce(pv, 0)) / nullif(${visits}, 0), 0)::double as vpv
        from r ${dims.length > 0 ? `full outer join vm using (${cols.join(", ")})` : "cross join vm"})`);
      parts.push("v");
    }
  }
  let joined = parts[0]!;
  if (parts.length === 2) joined = dims.length > 0 ? `r full outer join v using (${cols.join(", ")})` : "r cross join v";

  const nonGoalDims = dims.map((d, i) => [d, i] as const).filter(([d]) => d !== "event:goal");
  if (plan.metrics.includes("group_conversion_rate") && nonGoalDims.length > 0) {
    ctes.push(ungoaled?.groups
      ? `gd as (select * from ${ungoaled.groups})`
      : `gd as (select ${nonGoalDims.map(([d, i]) => `${dimOf(d)} as d${i}`).join(", ")}, count(distinct visitor)::double as gv from u group by all)`);
    joined = `${joined} left join gd using (${nonGoalDims.map(([, i]) => `d${i}`).join(", ")})`;
  }

  const metricSql = (m: Metric): string => {
    switch (m) {
      case "visitors":
      case "pageviews":
      case "events":
      case "hits":
        return `coalesce(${m}, 0)`;
      case "visits":
        return "coalesce(visits, 0)";
      case "bounce_rate":
        return "coalesce(round(bounce * 100), 0)";
      case "visit_duration":
        return "coalesce(round(duration), 0)";
      case "views_per_visit":
        return "coalesce(round(vpv, 2), 0)";
      case "percentage":
        return "coalesce(round(100.0 * visitors / nullif((select count(distinct visitor) from m), 0), 1), 0)";
      case "conversion_rate":
        return `coalesce(round(100.0 * visitors / nullif(${ungoaledTotal}, 0), 2), 0)`;
      case "group_conversion_rate":
        return nonGoalDims.length > 0
          ? "coalesce(round(100.0 * visitors / nullif(gv, 0), 2), 0)"
          : `coalesce(round(100.0 * visitors / nullif(${ungoaledTotal}, 0), 2), 0)`;
    }
  };
  const select = [...cols, ...plan.metrics.map((m) => `${metricSql(m)}::double as "${m}"`), "count(*) over () as __total"].join(", ");

  const orderTerms = plan.orderBy.map(([name, dir]) => {
    const i = dims.indexOf(name);
    return `${i >= 0 ? `d${i}` : `"${name}"`} ${dir}`;
  });
  // Then every dimension ascending, so equal metrics come in a stable order and pages never overlap.
  for (const c of cols) orderTerms.push(`${c} asc`);
  let sql = `with ${ctes.join(",\n")} select ${select} from ${joined} order by ${orderTerms.join(", ")}`;
  if (paginate) sql += ` limit ${plan.limit} offset ${plan.offset}`;
  return { ...p.compact(sql), dimensionColumns: cols };
}

export { isEventDimension };
