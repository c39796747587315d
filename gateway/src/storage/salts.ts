// One 32-byte random salt per site per UTC day, persisted so a restart keeps hashing the same visitor to the
// same value, and deleted once its day is over so a past day's hashes can never be recomputed.
import { randomBytes } from "node:crypto";
import type pg from "pg";
import { StorageError } from "./storage-error.ts";

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function checkDay(day: string): void {
  if (!DAY.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) throw new RangeError(`not a YYYY-MM-DD day: ${day}`);
}

/** The UTC day (YYYY-MM-DD) of an instant, as used for salts and daily rollups. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * The salt of (site, day), created on first use. The insert does nothing when a salt exists, and waits for a
 * concurrent inserter to commit, so the select that follows sees the one salt everyone agrees on.
 */
export async function saltForDay(pool: pg.Pool, siteId: number, day: string): Promise<Buffer> {
  checkDay(day);
  try {
    await pool.query("insert into salts (site_id, day, salt) values ($1, $2, $3) on conflict do nothing", [siteId, day, randomBytes(32)]);
  } catch (error) {
    if ((error as { code?: string }).code === "23503") throw new StorageError("not_found", `no site with id ${siteId}`);
    throw error;
  }
  const result = await pool.query<{ salt: Buffer }>("select salt from salts where site_id = $1 and day = $2", [siteId, day]);
  const row = result.rows[0];
  // Only a concurrent deletion of this very day (retention of a past day racing a late caller) gets here.
  if (row === undefined) throw new Error(`salt of site ${siteId} for ${day} was deleted while being read`);
  return row.salt;
}

/** Deletes every salt of a day before `day`; returns how many were deleted. */
export async function deleteSaltsBefore(pool: pg.Pool, day: string): Promise<number> {
  checkDay(day);
  const result = await pool.query("delete from salts where day < $1", [day]);
  return result.rowCount ?? 0;
}
