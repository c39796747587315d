// Shared links (sql/018_shares_reports_alerts.sql): the token's SHA-256, the optional password hash, the fixed filters, the
// actor restriction and the origins allowed to frame the embed. Looked up by the token's hash on every read of
// a shared view (no cache: a deleted link stops working at its next request).
import type pg from "pg";
import type { ActorLabel } from "../api-schema/common.ts";
import type { Filter } from "../shares/share-filters.ts";

export interface ShareRecord {
  id: number;
  site_id: number;
  password_hash: string | null;
  filters: readonly Filter[];
  actor: ActorLabel | null;
  frame_origins: readonly string[];
  created_at: Date;
}

/** A link with the site it shows, as a shared view's read needs it. */
export interface SharedSite extends ShareRecord {
  domain: string;
  site_name: string | null;
  team_id: number;
  /** The site's IANA zone: a shared view's days are the site's days, as on the owner's view. */
  time_zone: string;
}

const COLUMNS = "s.id, s.site_id, s.password_hash, s.filters, s.actor, s.frame_origins, s.created_at";

export async function insertShare(
  pool: pg.Pool,
  share: { siteId: number; tokenHash: Buffer; passwordHash: string | null; filters: readonly Filter[]; actor: ActorLabel | null; frameOrigins: readonly string[] },
): Promise<ShareRecord> {
  const { rows } = await pool.query<ShareRecord>(
    `insert into shares as s (site_id, token_hash, password_hash, filters, actor, frame_origins) values ($1, $2, $3, $4, $5, $6) returning ${COLUMNS}`,
    [share.siteId, share.tokenHash, share.passwordHash, JSON.stringify(share.filters), share.actor, share.frameOrigins],
  );
  return rows[0]!;
}

export async function listShares(pool: pg.Pool, siteId: number): Promise<ShareRecord[]> {
  const { rows } = await pool.query<ShareRecord>(`select ${COLUMNS} from shares s where s.site_id = $1 order by s.id`, [siteId]);
  return rows;
}

/** False when the site has no link of that id. */
export async function deleteShare(pool: pg.Pool, siteId: number, shareId: number): Promise<boolean> {
  const { rowCount } = await pool.query("delete from shares where site_id = $1 and id = $2", [siteId, shareId]);
  return rowCount !== 0;
}

export async function findSharedSite(pool: pg.Pool, tokenHash: Buffer): Promise<SharedSite | null> {
  const { rows } = await pool.query<SharedSite>({
    name: "svc_find_shared_site",
    text: `select ${COLUMNS}, t.domain, t.name as site_name, t.team_id, t.time_zone from shares s join sites t on t.id = s.site_id where s.token_hash = $1`,
    values: [tokenHash],
  });
  return rows[0] ?? null;
}

/** Of the given link ids, those that still exist (the revocation sweep of open shared streams). */
export async function existingShareIds(pool: pg.Pool, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const { rows } = await pool.query<{ id: number }>("select id from shares where id = any($1::int[])", [ids]);
  return new Set(rows.map((r) => r.id));
}
