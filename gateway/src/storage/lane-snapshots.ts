// The site lanes' day states saved by a clean stop (sql/008_actor_snapshots.sql, lanes/snapshot.ts).
// A snapshot is used at most once: the boot deletes them all as it reads them, so a later boot after a
// kill -9 replays the day's raw rows instead of trusting a state that no longer covers them.
import pg from "pg";
import { withTransaction } from "./transaction.ts";

const BYTEA = 17;
// The states are read in binary: as text, a bytea arrives hex-encoded, twice its size, and is decoded in
// JavaScript. Every other column of the query has a binary parser in pg-types; bytea's is the buffer itself.
const binaryTypes = {
  getTypeParser: (oid: number, format?: "text" | "binary") =>
    format === "binary" && oid === BYTEA ? (value: Buffer) => value : pg.types.getTypeParser(oid, format ?? "text"),
};

export interface StoredSnapshot {
  readonly siteId: number;
  readonly dayStart: number;
  /** The latest row time stamp (ms) the state covers. */
  readonly watermark: number;
  readonly bytes: Buffer;
}

/** Replaces every stored snapshot with `snapshots`, in one transaction. */
export async function saveLaneSnapshots(pool: pg.Pool, snapshots: readonly StoredSnapshot[]): Promise<void> {
  await withTransaction(pool, async (client) => {
    await client.query("delete from lane_snapshots");
    for (const s of snapshots) {
      await client.query("insert into lane_snapshots (site_id, day, watermark, state) values ($1, $2::date, $3, $4)", [
        s.siteId,
        new Date(s.dayStart).toISOString().slice(0, 10),
        new Date(s.watermark),
        s.bytes,
      ]);
    }
  });
}

/**
 * Deletes every stored snapshot and returns those of the UTC day starting at `dayStart` — none when the
 * last gateway did not stop cleanly (its rollup repair mark is set), as its snapshots may predate rows it
 * committed later.
 */
export async function takeLaneSnapshots(pool: pg.Pool, dayStart: number): Promise<StoredSnapshot[]> {
  return withTransaction(pool, async (client) => {
    const mark = await client.query<{ from_hour: Date | null }>("select from_hour from rollup_repair where id = 1");
    const { rows } = await client.query<{ site_id: number; day: string; watermark: Date; state: Buffer }>({
      text: "delete from lane_snapshots returning site_id, to_char(day, 'YYYY-MM-DD') as day, watermark, state",
      binary: true,
      types: binaryTypes,
    } as pg.QueryConfig);
    if (mark.rows[0]?.from_hour) return [];
    return rows
      .filter((r) => Date.parse(`${r.day}T00:00:00Z`) === dayStart)
      .map((r) => ({ siteId: r.site_id, dayStart, watermark: r.watermark.getTime(), bytes: r.state }));
  });
}
