// Sites: the domains a gateway accepts data for (the table `sites`). The rules for the fields are in
// sites/site-fields.ts, the change channel in site-changes.ts.
import type pg from "pg";
import { DEFAULT_TIME_ZONE } from "@svc/core";
import { DEFAULT_RETENTION_DAYS, checkDomain, checkName, checkRetention, checkTimeZone, normaliseDomain } from "../sites/site-fields.ts";
import { StorageError } from "./storage-error.ts";

export interface SiteRecord {
  id: number;
  domain: string;
  name: string | null;
  team_id: number;
  retention_days: number;
  /** ISO 8601, UTC. */
  created_at: string;
  /** IANA zone its reports' days follow (sql/014); visitor hashes still rotate at 00:00 UTC. */
  time_zone: string;
  /** SHA-256 of the site's hit token (sql/011); null when /api/hit needs none. Never printed: see `describeSite`. */
  hit_token_hash: Buffer | null;
}

/** A site as the API and the CLI show it: whether a hit token is set, never its hash. */
export function describeSite(s: SiteRecord): Omit<SiteRecord, "hit_token_hash"> & { hit_token_set: boolean } {
  const { hit_token_hash, ...rest } = s;
  return { ...rest, hit_token_set: hit_token_hash !== null };
}

interface SiteRow {
  id: number;
  domain: string;
  name: string | null;
  team_id: number;
  retention_days: number;
  created_at: Date;
  time_zone: string;
  hit_token_hash: Buffer | null;
}

const SITE_COLUMNS = "id, domain, name, team_id, retention_days, created_at, time_zone, hit_token_hash";

function toRecord(row: SiteRow): SiteRecord {
  return { ...row, created_at: row.created_at.toISOString() };
}

function rethrowTaken(error: unknown, domain: string): never {
  if ((error as { code?: string }).code === "23505") throw new StorageError("domain_taken", `domain ${domain} is already registered`);
  throw error;
}

export async function listSites(pool: pg.Pool): Promise<SiteRecord[]> {
  const result = await pool.query<SiteRow>(`select ${SITE_COLUMNS} from sites order by id`);
  return result.rows.map(toRecord);
}

/** Looks up by the canonical domain; the input is normalised first, so "Example.com." finds example.com. */
export async function findSiteByDomain(pool: pg.Pool, domain: string): Promise<SiteRecord | null> {
  const canonical = normaliseDomain(domain);
  if (canonical === null) return null;
  const result = await pool.query<SiteRow>(`select ${SITE_COLUMNS} from sites where domain = $1`, [canonical]);
  return result.rows[0] === undefined ? null : toRecord(result.rows[0]);
}

export async function findSiteById(pool: pg.Pool, id: number): Promise<SiteRecord | null> {
  if (!Number.isSafeInteger(id) || id < 1 || id > 2_147_483_647) return null;
  const result = await pool.query<SiteRow>(`select ${SITE_COLUMNS} from sites where id = $1`, [id]);
  return result.rows[0] === undefined ? null : toRecord(result.rows[0]);
}

export async function addSite(
  pool: pg.Pool,
  input: { domain: string; name?: string | null; retention_days?: number; team_id?: number; time_zone?: string },
): Promise<SiteRecord> {
  const domain = checkDomain(input.domain);
  const timeZone = checkTimeZone(input.time_zone ?? DEFAULT_TIME_ZONE);
  const retention = checkRetention(input.retention_days ?? DEFAULT_RETENTION_DAYS);
  const name = checkName(input.name);
  const teamId = input.team_id ?? 1;
  try {
    const result = await pool.query<SiteRow>(
      `insert into sites (domain, name, retention_days, team_id, time_zone) values ($1, $2, $3, $4, $5) returning ${SITE_COLUMNS}`,
      [domain, name, retention, teamId, timeZone],
    );
    return toRecord(result.rows[0]!);
  } catch (error) {
    rethrowTaken(error, domain);
  }
}

export async function updateSite(
  pool: pg.Pool,
  id: number,
  patch: { domain?: string; name?: string | null; retention_days?: number; time_zone?: string },
): Promise<SiteRecord> {
  const sets: string[] = [];
  const values: unknown[] = [];
  let domain: string | null = null;
  if (patch.domain !== undefined) {
    domain = checkDomain(patch.domain);
    values.push(domain);
    sets.push(`domain = $${values.length}`);
  }
  if (patch.name !== undefined) {
    values.push(checkName(patch.name));
    sets.push(`name = $${values.length}`);
  }
  if (patch.retention_days !== undefined) {
    values.push(checkRetention(patch.retention_days));
    sets.push(`retention_days = $${values.length}`);
  }
  if (patch.time_zone !== undefined) {
    values.push(checkTimeZone(patch.time_zone));
    sets.push(`time_zone = $${values.length}`);
  }
  const notFound = (): StorageError => new StorageError("not_found", `no site with id ${id}`);
  if (!Number.isSafeInteger(id) || id < 1 || id > 2_147_483_647) throw notFound();
  if (sets.length === 0) {
    const current = await findSiteById(pool, id);
    if (current === null) throw notFound();
    return current;
  }
  values.push(id);
  try {
    const result = await pool.query<SiteRow>(`update sites set ${sets.join(", ")} where id = $${values.length} returning ${SITE_COLUMNS}`, values);
    if (result.rows[0] === undefined) throw notFound();
    return toRecord(result.rows[0]);
  } catch (error) {
    rethrowTaken(error, domain ?? "");
  }
}

/** Sets (a SHA-256 digest) or clears (null) a site's hit token; false when there is no such site. */
export async function setHitTokenHash(pool: pg.Pool, id: number, hash: Buffer | null): Promise<boolean> {
  if (!Number.isSafeInteger(id) || id < 1 || id > 2_147_483_647) return false;
  const result = await pool.query("update sites set hit_token_hash = $2 where id = $1", [id, hash]);
  return (result.rowCount ?? 0) > 0;
}

/** Deletes the site row (its salts, goals, insight runs and budget days go with it: `on delete cascade`). */
export async function deleteSite(pool: pg.Pool, id: number): Promise<boolean> {
  if (!Number.isSafeInteger(id) || id < 1 || id > 2_147_483_647) return false;
  const result = await pool.query("delete from sites where id = $1", [id]);
  return (result.rowCount ?? 0) > 0;
}

// The tables holding a site's rows without a foreign key to `sites` (raw rows are partitioned; rollups and
// lane snapshots are written by the lanes).
const SITE_ROW_TABLES = ["events", "hits", "rollup_hourly", "rollup_daily", "lane_snapshots"] as const;

/** Deletes every row of a deleted site, in one transaction (after its lane was drained). */
export async function deleteSiteRows(pool: pg.Pool, id: number): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    for (const table of SITE_ROW_TABLES) await client.query(`delete from ${table} where site_id = $1`, [id]);
    await client.query("commit");
  } catch (error) {
    await client.query("rollback").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
