// The custom property names (`props` keys) of a site's rows in a window: what the dashboard's Properties card
// offers to pick, so a person chooses among the keys the tracker really sent instead of guessing one. The
// rollups keep no props; the query engine's rows do (the Parquet day files and today's kept copy, engine.ts
// overRows), so this reads the keys from them, with the actors and filters a query would apply: exact, and
// over settled days a scan of one VARCHAR column of compressed files instead of a sequential scan of the
// window's raw rows in PostgreSQL (the reading before). Only rows are read, so its routes do not flush the
// rollups first as the rollup reads do.
import { MAX_PROP_KEYS } from "../api-schema/read.ts";
import { type QueryEngine, readsVisits } from "../query/engine.ts";
import { Params, rowsWhere } from "../query/sql.ts";
import { type Filter, sharePlan } from "../shares/share-filters.ts";
import type { SiteRecord } from "../storage/sites.ts";
import { type ReadWindow, engineWindowRange } from "./window.ts";

export interface PropKey {
  readonly key: string;
  readonly events: number;
}

/**
 * The window's property names over the rows of `window.actors` passing `filters` (a shared link's), the most
 * used first (then by name), at most MAX_PROP_KEYS. `gone`: the request's client has left (query/admission.ts).
 */
export function propKeys(engine: QueryEngine, site: SiteRecord, window: ReadWindow, filters: readonly Filter[] = [], gone?: () => boolean): Promise<PropKey[]> {
  const plan = sharePlan(site.domain, filters, window.actors, { date_range: engineWindowRange(window, "current"), metrics: ["visitors"] });
  return engine.overRows(site, plan, async (connection, ctx) => {
    const p = new Params();
    // Hits carry no props; a row's props is a JSON object when set (ingest keeps nothing else), checked anyway.
    const built = p.compact(`select key, count(*) as events
        from (select unnest(json_keys(props::json)) as key from ${ctx.relation}
               where kind = 'e' and props is not null and json_type(props::json) = 'OBJECT' and ${rowsWhere(ctx, p)})
       group by key order by events desc, key limit ${MAX_PROP_KEYS}`);
    const rows = (await connection.runAndReadAll(built.sql, built.values)).getRowsJS();
    return rows.map((r) => ({ key: String(r[0]), events: Number(r[1]) }));
    // Days without a file are not sessionized unless a filter reads a visit column (entry or exit page).
  }, gone, readsVisits(plan));
}
