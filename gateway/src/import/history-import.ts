// A history import (gateway/README.md "History import"): NDJSON lines read as they arrive, checked one by one
// (import-line.ts), stored in `events` with their rollups in ONE transaction, so a call imports all its good
// lines or nothing. The same bytes sent again (SHA-256 of the body, table `imports`) change nothing.
//
// Two passes, because the lines may come in any order while the visit rule and the exact visitor counts need
// each UTC day's rows in time order:
//   1. each good line becomes an events row (visitor hashed with this import's secret, no address anywhere)
//      and is COPYed into a temporary table, 5,000 rows a statement, while the body streams in;
//   2. a cursor reads them back ordered by time: per UTC day a fresh visit state (lanes/visit-state.ts) and
//      rollup state (rollups/rollup-state.ts) — the live path's own code — attribute each row to its visit and
//      count it, the rows are COPYed into `events` and the day's counts added to the rollups.
// Imported visitors can never share a hash with a live visitor or another import's (the secret), so their
// counts add to a day's rollups exactly: every rollup still equals COUNT(DISTINCT visitor_hash) of its raw
// rows. Only settled days are imported (not today, nor yesterday until 00:15 UTC: read/settled-cache.ts), so
// no site lane's visitor state and no live rollup count is ever touched.
import { Buffer } from "node:buffer";
import { randomBytes, createHash } from "node:crypto";
import { pipeline } from "node:stream/promises";
import { StringDecoder } from "node:string_decoder";
import { Readable } from "node:stream";
import { type Clock, DAY_MS, importedVisitorHash, utcDay, utcDayStart } from "@svc/core";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { VisitState } from "../lanes/visit-state.ts";
import { firstLiveDayMs } from "../read/settled-cache.ts";
import { type DeltaSink, RollupState, newDeltaSink } from "../rollups/rollup-state.ts";
import { addRollups } from "../rollups/rollup-writes.ts";
import { ensurePartitionsBetween } from "../storage/partitions.ts";
import { type ColumnTable, EVENT_COLUMNS, type EventRow } from "../storage/rows.ts";
import { retentionCutoffMs } from "../storage/retention.ts";
import type { SiteRecord } from "../storage/sites.ts";
import { COPY_HEADER, COPY_TRAILER, copyStatement, encodeEvents } from "../writer/copy-binary.ts";
import { type ImportedLine, parseImportLine } from "./import-line.ts";

/** A line longer than this is refused without being held: 16 KB is ~10 times the largest valid line. */
export const MAX_LINE_BYTES = 16 * 1024;
/** Refused lines listed in the report; the rest are counted. */
export const MAX_REFUSED_LISTED = 1000;
// 5,000 rows a COPY statement (~2 MB of COPY data) and 10,000 a cursor fetch: memory stays a few MB whatever the size of the file.
const COPY_ROWS = 5000;
const FETCH_ROWS = 10_000;
const STAGE = "svc_import_rows";
// "svc" in ASCII followed by 03: one import at a time per database. An import creates the monthly partitions
// of its months (an ACCESS EXCLUSIVE lock on events, a few ms); waiting for that behind another import's long
// transaction would queue every ingest COPY behind it.
const IMPORT_LOCK_KEY = 0x73766303;

const SQL_TYPES = { int: "integer", smallint: "smallint", text: "text", timestamp: "timestamptz", bytea: "bytea", jsonb: "jsonb" } as const;
// The staging table's columns from the column table: not `like events`, whose lock on events would be held
// for the whole transaction and block the creation of the months' partitions.
const stageColumns = (columns: ColumnTable): string => Object.entries(columns).map(([name, c]) => `${name} ${SQL_TYPES[c.codec]}`).join(", ");

/** Another import is running against this database. */
export class ImportBusy extends Error {
  override readonly name = "ImportBusy";
}

export interface ImportReport {
  /** imported: committed; duplicate: this body was imported before (nothing changed); dry_run: checked, nothing stored; empty: no line to import. */
  readonly status: "imported" | "duplicate" | "dry_run" | "empty";
  readonly import_id: number | null;
  /** Hex SHA-256 of the body: the import's identity. */
  readonly sha256: string;
  readonly lines: number;
  readonly imported: number;
  readonly refused: number;
  readonly refused_lines: ReadonlyArray<{ readonly line: number; readonly reason: string }>;
  readonly refused_lines_omitted: number;
  /** The UTC days the imported rows cover. */
  readonly days: { readonly from: string; readonly to: string } | null;
}

export interface ImportOptions {
  readonly clock: Clock;
  /** Check every line and report, store nothing. */
  readonly dryRun?: boolean;
  /** Called as each phase ends ("checked" lines staged, "partitions", "counted" rows written, "committed"): the bench's split. */
  readonly onPhase?: (phase: string) => void;
}

/**
 * Splits a byte stream into lines (LF or CRLF), a chunk's lines at a time (one await per chunk, not per line);
 * a line over MAX_LINE_BYTES comes out as null, without being held.
 */
async function* lineBatches(body: AsyncIterable<Buffer>, hash: ReturnType<typeof createHash>): AsyncGenerator<Array<string | null>> {
  // A StringDecoder keeps a character split across two chunks whole.
  const decoder = new StringDecoder("utf8");
  let pending = "";
  let tooLong = false;
  const done = (text: string): string | null => {
    const line = tooLong || (text.length * 3 > MAX_LINE_BYTES && Buffer.byteLength(text, "utf8") > MAX_LINE_BYTES) ? null : text.endsWith("\r") ? text.slice(0, -1) : text;
    tooLong = false;
    return line;
  };
  for await (const chunk of body) {
    hash.update(chunk);
    const text = decoder.write(chunk);
    const out: Array<string | null> = [];
    let start = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
      out.push(done(start === 0 ? pending + text.slice(0, nl) : text.slice(start, nl)));
      if (start === 0) pending = "";
      start = nl + 1;
    }
    const rest = start === 0 ? pending + text : text.slice(start);
    // A line already past the limit (UTF-8 is at least one byte a character) is dropped as it grows.
    if (rest.length > MAX_LINE_BYTES) {
      tooLong = true;
      pending = "";
    } else pending = rest;
    if (out.length > 0) yield out;
  }
  pending += decoder.end();
  if (pending !== "" || tooLong) yield [done(pending)];
}

// A COPY statement's rows are encoded 250 (~80 KB) at a time, each slice's bytes sent before the next is made.
// When the encoder made strings, a whole 5,000-row statement was a rope of ~240,000 pieces alive until it was
// turned into bytes, which outlived young-generation collections: with one string per statement, garbage
// collection was 14.5 of the import's 33.5 s of CPU (1M lines, `node --cpu-prof`); in slices the import's CPU
// fell from 29–30 to 23–24 µs a line (`npm run bench:import -- --lines 300000`, A/B twice at load average 11–15).
const ENCODE_ROWS = 250;

function* encodedSlices(rows: readonly EventRow[]): Generator<Buffer> {
  yield COPY_HEADER;
  for (let at = 0; at < rows.length; at += ENCODE_ROWS) yield encodeEvents(rows.slice(at, at + ENCODE_ROWS)).written();
  yield COPY_TRAILER;
}

async function copyInto(client: pg.PoolClient, table: string, rows: readonly EventRow[]): Promise<void> {
  if (rows.length === 0) return;
  await pipeline(Readable.from(encodedSlices(rows), { objectMode: false }), client.query(copyFrom(copyStatement(table, EVENT_COLUMNS))));
}

/**
 * The connection's statements one after another, each asked when the one before it has settled: pg 8 queues a
 * query asked while another runs, but warns that pg 9 will refuse it. The overlap stays: this process checks or
 * counts the next rows while PostgreSQL runs the last COPY or fetch.
 */
function inTurn(): <T>(statement: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (statement) => {
    const next = last.then(statement);
    last = next.catch(() => undefined);
    return next;
  };
}

/**
 * Imports the NDJSON `body` into `site`'s history on one connection of `pool`, in one transaction. Database
 * failures reject (nothing is stored); bad lines are refused in the report.
 */
export async function importHistory(pool: pg.Pool, site: SiteRecord, body: AsyncIterable<Buffer>, options: ImportOptions): Promise<ImportReport> {
  const now = options.clock.now();
  const firstLive = firstLiveDayMs(now);
  const oldest = retentionCutoffMs(now, site.retention_days);
  // Never stored: no later import, and nobody with the database, can link these visitors to anything.
  const secret = randomBytes(32);
  const hash = createHash("sha256");
  const refusedLines: Array<{ line: number; reason: string }> = [];
  let refused = 0;
  let lineNo = 0;
  let imported = 0;
  let firstDay: string | null = null;
  let lastDay: string | null = null;
  const refuse = (reason: string) => {
    refused++;
    if (refusedLines.length < MAX_REFUSED_LISTED) refusedLines.push({ line: lineNo, reason });
  };

  const client = await pool.connect();
  const turn = inTurn();
  let discard = false;
  let locked = false;
  try {
    const { rows: lock } = await client.query<{ locked: boolean }>("select pg_try_advisory_lock($1) as locked", [IMPORT_LOCK_KEY]);
    locked = lock[0]!.locked;
    if (!locked) throw new ImportBusy("another import is running; try again when it has finished");
    await client.query("begin");
    // A call's statements are bounded (5,000 rows each) but the sort of a large file is not; the shared pool's
    // statement_timeout (60 s) is for reads.
    await client.query("set local statement_timeout = 0");
    // The second pass sorts the staged rows by time: 256 MB sorts a 1M-line file's keys in memory instead of in
    // temporary files (the default 4 MB).
    await client.query("set local work_mem = '256MB'");
    await client.query(`create temporary table ${STAGE} (${stageColumns(EVENT_COLUMNS)}) on commit drop`);

    // Pass 1: check, enrich, hash and stage.
    let batch: EventRow[] = [];
    let staging: Promise<void> = Promise.resolve();
    // A rejected COPY is awaited below; until then it must not count as unhandled.
    const settle = <T>(p: Promise<T>): Promise<T> => (p.catch(() => undefined), p);
    for await (const texts of lineBatches(body, hash)) for (const text of texts) {
      lineNo++;
      if (text === null) {
        refuse(`line longer than ${MAX_LINE_BYTES} bytes`);
        continue;
      }
      if (text.trim() === "") continue;
      const parsed = parseImportLine(text, site.domain);
      if (!parsed.ok) {
        refuse(parsed.reason);
        continue;
      }
      const line: ImportedLine = parsed.line;
      if (line.ts >= firstLive) {
        refuse(`timestamp is on a live day (today, and yesterday until 00:15 UTC: its rows come from ingest); history ends on ${utcDay(firstLive - DAY_MS)}`);
        continue;
      }
      if (line.ts < oldest) {
        refuse(`timestamp is older than the site's retention of ${site.retention_days} days (the first day kept is ${utcDay(oldest)})`);
        continue;
      }
      const day = utcDay(line.ts);
      // Absent visitor: a visitor of this line alone (a NUL cannot occur in a stored visitor string).
      const visitor_hash = importedVisitorHash(secret, day, line.visitor ?? `\u0000line ${lineNo}`);
      // The checked fields object becomes the row itself, as in the site lane: no copy per row.
      batch.push(Object.assign(line.fields, { site_id: site.id, ts: line.ts, visitor_hash }) as EventRow);
      imported++;
      if (firstDay === null || day < firstDay) firstDay = day;
      if (lastDay === null || day > lastDay) lastDay = day;
      if (batch.length >= COPY_ROWS) {
        // One COPY in flight while the next batch is parsed: PostgreSQL stores one while this process checks
        // the next (at most two batches held).
        await staging;
        const rows = batch;
        staging = settle(turn(() => copyInto(client, STAGE, rows)));
        batch = [];
      }
    }
    await staging;
    await copyInto(client, STAGE, batch);
    batch = [];
    options.onPhase?.("checked");

    const sha256 = hash.digest();
    const report = (status: ImportReport["status"], importId: number | null): ImportReport => ({
      status,
      import_id: importId,
      sha256: sha256.toString("hex"),
      lines: lineNo,
      imported: status === "imported" || status === "dry_run" ? imported : 0,
      refused,
      refused_lines: refusedLines,
      refused_lines_omitted: refused - refusedLines.length,
      days: firstDay === null || lastDay === null ? null : { from: firstDay, to: lastDay },
    });
    if (options.dryRun || imported === 0) {
      await client.query("rollback");
      return report(options.dryRun ? "dry_run" : "empty", null);
    }
    // Claimed before the second pass: a body imported before stops here. A concurrent import of the same body
    // waits on the unique key until this one ends, then finds it.
    const claimed = await client.query<{ id: number }>(
      `insert into imports (site_id, sha256, lines, imported, refused, first_day, last_day) values ($1, $2, $3, $4, $5, $6, $7)
       on conflict (site_id, sha256) do nothing returning id`,
      [site.id, sha256, lineNo, imported, refused, firstDay, lastDay],
    );
    if (claimed.rows[0] === undefined) {
      await client.query("rollback");
      const { rows } = await pool.query<{ id: number }>("select id from imports where site_id = $1 and sha256 = $2", [site.id, sha256]);
      return report("duplicate", rows[0]?.id ?? null);
    }

    // The months' partitions (past months have none: their rows would land in events_default), each in its
    // own short transaction; this one holds no lock on events yet.
    await ensurePartitionsBetween(pool, Date.parse(`${firstDay}T00:00:00Z`), Date.parse(`${lastDay}T00:00:00Z`));

    options.onPhase?.("partitions");
    // Pass 2: in time order, per UTC day: the visit rule, the exact counts, the rows into events.
    // ts as epoch ms (a float8 the driver reads with parseFloat), not a timestamptz it would parse into a Date.
    const columns = Object.keys(EVENT_COLUMNS).map((c) => (c === "ts" ? "(extract(epoch from ts) * 1000)::float8 as ts" : c));
    await client.query(`declare svc_import_cursor no scroll cursor for select ${columns.join(", ")} from ${STAGE} order by ts`);
    let dayStart = -1;
    let state: RollupState | null = null;
    let visits: VisitState | null = null;
    let sink: DeltaSink = newDeltaSink();
    const endDay = async () => {
      const deltas = sink.deltas;
      if (deltas.length > 0) await turn(() => addRollups(client, deltas));
      sink = newDeltaSink();
    };
    const fetch = () => turn(() => client.query<EventRow>(`fetch ${FETCH_ROWS} from svc_import_cursor`));
    let next = fetch();
    while (true) {
      const { rows } = await next;
      // The next rows are read (and the last ones COPYed) by PostgreSQL while these are counted.
      const more = rows.length === FETCH_ROWS;
      if (more) next = settle(fetch());
      const out: EventRow[] = [];
      for (const row of rows) {
        const start = utcDayStart(row.ts);
        if (start !== dayStart || state === null || visits === null) {
          await endDay();
          dayStart = start;
          state = new RollupState(site.id, dayStart);
          visits = new VisitState();
        }
        const key = row.visitor_hash.toString("latin1");
        visits.attribute(row, key);
        state.observe(Object.assign(row, { kind: "event" as const }), sink, key);
        out.push(row);
      }
      await staging;
      staging = settle(turn(() => copyInto(client, "events", out)));
      if (!more) break;
    }
    await staging;
    await endDay();
    await client.query("close svc_import_cursor");
    options.onPhase?.("counted");
    await client.query("commit");
    options.onPhase?.("committed");
    return report("imported", claimed.rows[0].id);
  } catch (error) {
    if (error instanceof ImportBusy) throw error;
    await client.query("rollback").catch(() => undefined);
    // A failed COPY leaves the connection's protocol state not worth trusting.
    discard = true;
    throw error;
  } finally {
    if (locked && !discard) await client.query("select pg_advisory_unlock($1)", [IMPORT_LOCK_KEY]).catch(() => (discard = true));
    // A discarded connection ends its session, and its advisory lock with it.
    client.release(discard);
  }
}
