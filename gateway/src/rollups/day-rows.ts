// Reads one site's raw rows of one UTC day back, in time order, to rebuild that day's visitor and visit
// state (at boot, at a day change, after a failed batch) and, when asked, that day's rollup counts (after a
// failed batch, and at boot after a gateway was killed). A server-side cursor keeps memory flat however busy
// the day was. Script rows already store their visit's values (visit-state.ts), so the counts are the
// stored ones and the visit state only follows them.
//
// The replay gives the event loop back between batches of rows: a day of 1,000,000 rows is 17 s of work at
// load average 4 and minutes on a busy box, and a gateway whose loop is held for SVC_OWNER_TIMEOUT_MS
// (5 s) misses its owner session's heartbeat and health checks, so a cluster takeover of a big day lost the
// site again and again. The rows come REPLAY_BATCH_ROWS at a time, each batch awaited as I/O, so the loop
// runs its timers and sockets between two batches; one batch holds it ~35 ms at load average 4.
import type pg from "pg";
import { type ColumnTable, EVENT_COLUMNS, HIT_COLUMNS, type RollupDelta } from "../storage/rows.ts";
import { withTransaction } from "../storage/transaction.ts";
import { type DeltaSink, ROLLUP_COLUMNS, ROLLUP_OWN_COLUMNS, type RollupRow, RollupState, newDeltaSink } from "./rollup-state.ts";
import { VISIT_COLUMNS, type VisitRow, VisitState } from "../lanes/visit-state.ts";
import { type StateBudget, UNBOUNDED } from "../lanes/state-budget.ts";
import { DAY_MS } from "@svc/core";

/** Rows fetched and replayed between two turns of the event loop (SVC_REPLAY_BATCH_ROWS). */
export const REPLAY_BATCH_ROWS = 2_000;

/** What the replay reads of a row: what the rollups count and what the visit rule reads, each column once. */
const REPLAY_COLUMNS = [...new Set<string>([...ROLLUP_COLUMNS, ROLLUP_OWN_COLUMNS.event, ROLLUP_OWN_COLUMNS.hit, ...VISIT_COLUMNS])];

// A column the table lacks (events have no status, hits no name) reads as null; PostgreSQL takes its type
// from the other branch of the union.
function replaySelect(kind: string, table: string, columns: ColumnTable): string {
  const list = REPLAY_COLUMNS.map((name) => (name in columns ? name : `null as ${name}`));
  return `select '${kind}' as kind, ${list.join(", ")} from ${table} where site_id = $1 and ts >= $2 and ts < $3`;
}

const SELECT = `${replaySelect("event", "events", EVENT_COLUMNS)} union all ${replaySelect("hit", "hits", HIT_COLUMNS)} order by ts`;

// pg returns timestamptz as a Date; the rows hold epoch ms.
const TIMESTAMPS = REPLAY_COLUMNS.filter((name) => ({ ...HIT_COLUMNS, ...EVENT_COLUMNS } as ColumnTable)[name]!.codec === "timestamp");

/** A stored row as the day's replay reads it: what the rollups count, and what a visit's entry decides. */
export type DayRow = RollupRow & VisitRow;

/**
 * Calls `onRow` for each of the site's rows with `dayStart` ≤ ts < `dayEnd` (ms), in time order, fetching
 * `batchRows` at a time.
 */
export async function forEachDayRow(
  pool: pg.Pool, siteId: number, dayStart: number, dayEnd: number, onRow: (row: DayRow) => void, batchRows: number = REPLAY_BATCH_ROWS,
): Promise<number> {
  let count = 0;
  await withTransaction(pool, async (client) => {
    await client.query("set transaction read only");
    await client.query(`declare day_rows no scroll cursor for ${SELECT}`, [siteId, new Date(dayStart), new Date(dayEnd)]);
    while (true) {
      const { rows } = await client.query(`fetch ${batchRows} from day_rows`);
      for (const r of rows) {
        for (const name of TIMESTAMPS) r[name] = (r[name] as Date).getTime();
        onRow(r as DayRow);
      }
      count += rows.length;
      if (rows.length < batchRows) break;
    }
  });
  return count;
}

export interface ReplayOptions {
  /** Keep the day's rollup counts (a recount that replaces the rollups), or only rebuild the state. */
  readonly counts: boolean;
  /** Rows per fetch (REPLAY_BATCH_ROWS unless the gateway's SVC_REPLAY_BATCH_ROWS says otherwise). */
  readonly batchRows?: number;
}

export interface DayRecount {
  readonly state: RollupState;
  readonly visits: VisitState;
  readonly rows: number;
  /** The day's rollup counts, one delta per (actor, dimension, value, hour); empty unless asked for. */
  readonly counts: readonly RollupDelta[];
}

/**
 * Replays one site's rows of the UTC day starting at `dayStart` through a fresh visitor state. With
 * `counts`, the deltas of the whole day are kept (one per counter and hour, so their number is bounded
 * by the day's distinct values × 24, not by its rows); without, they are dropped as they come.
 */
export async function recountDay(pool: pg.Pool, siteId: number, dayStart: number, options: ReplayOptions, budget: StateBudget = UNBOUNDED): Promise<DayRecount> {
  const recount = { state: new RollupState(siteId, dayStart, budget), visits: new VisitState(budget) };
  const { rows, counts } = await replayRows(pool, recount, dayStart, options);
  return { ...recount, rows, counts };
}

/**
 * Replays the site's rows of the state's day from `from` (ms) on into `state` and `visits`: the rows a
 * snapshot (snapshot.ts) does not cover, or the whole day.
 */
export async function replayRows(
  pool: pg.Pool,
  { state, visits }: { state: RollupState; visits: VisitState },
  from: number,
  options: ReplayOptions,
): Promise<{ rows: number; counts: readonly RollupDelta[] }> {
  const kept = newDeltaSink();
  let sink: DeltaSink = options.counts ? kept : newDeltaSink();
  const rows = await forEachDayRow(pool, state.siteId, from, state.dayStart + DAY_MS, (row) => {
    const key = row.visitor_hash.toString("latin1");
    if (row.kind === "event") visits.replay(row, key);
    state.observe(row, sink, key);
    if (!options.counts && sink.deltas.length > 50_000) sink = newDeltaSink();
  }, options.batchRows);
  return { rows, counts: options.counts ? kept.deltas : [] };
}
