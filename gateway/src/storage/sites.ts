// Sites: the domains a gateway accepts data for, and the channel that tells every process about changes.
import { domainToASCII } from "node:url";
import pg from "pg";
import { StorageError } from "./storage-error.ts";

export interface SiteRecord {
  id: number;
  domain: string;
  name: string | null;
  team_id: number;
  retention_days: number;
  /** ISO 8601, UTC. */
  created_at: string;
  /** SHA-256 of the site's hit token (sql/011); null when /api/hit needs none. Never printed: see `describeSite`. */
  hit_token_hash: Buffer | null;
}

/** A site as the API and the CLI show it: whether a hit token is set, never its hash. */
export function describeSite(s: SiteRecord): Omit<SiteRecord, "hit_token_hash"> & { hit_token_set: boolean } {
  const { hit_token_hash, ...rest } = s;
  return { ...rest, hit_token_set: hit_token_hash !== null };
}

// 395 days = 13 months: a full year plus the same month of the previous year, for year-over-year views.
export const DEFAULT_RETENTION_DAYS = 395;
// Bounds of the CHECK constraint in sql/001_init.sql (10 years).
export const MIN_RETENTION_DAYS = 1;
export const MAX_RETENTION_DAYS = 3660;
const MAX_NAME_LENGTH = 200;

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The canonical form of a site's domain: what the tracker sends as `location.hostname`. Lowercase, without
 * scheme, credentials, port, path or trailing dot, IDN in punycode. `www.` is kept: www.example.com and
 * example.com are different hostnames and the tracker reports the one the visitor used.
 * Returns null when the input is not a hostname (IP literals in brackets, underscores, empty labels…).
 */
export function normaliseDomain(input: string): string | null {
  let host = input.trim();
  host = host.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/^\/\//, "");
  host = host.split(/[/?#]/, 1)[0]!;
  const at = host.lastIndexOf("@");
  if (at >= 0) host = host.slice(at + 1);
  if (host.startsWith("[")) return null;
  host = host.replace(/:\d*$/, "");
  if (host.includes(":")) return null;
  if (host.endsWith(".")) host = host.slice(0, -1);
  // domainToASCII would percent-decode or map these (browser URL rules); a typed domain never has them.
  if (host === "" || /[\s%\\*]/.test(host)) return null;
  const ascii = domainToASCII(host).toLowerCase();
  if (ascii === "" || ascii.length > 253) return null;
  return ascii.split(".").every((label) => LABEL.test(label)) ? ascii : null;
}

interface SiteRow {
  id: number;
  domain: string;
  name: string | null;
  team_id: number;
  retention_days: number;
  created_at: Date;
  hit_token_hash: Buffer | null;
}

const SITE_COLUMNS = "id, domain, name, team_id, retention_days, created_at, hit_token_hash";

function toRecord(row: SiteRow): SiteRecord {
  return { ...row, created_at: row.created_at.toISOString() };
}

function checkDomain(input: string): string {
  const domain = normaliseDomain(input);
  if (domain === null) throw new StorageError("invalid_domain", `not a valid domain: ${JSON.stringify(input)}`);
  return domain;
}

function checkRetention(days: number): number {
  if (!Number.isInteger(days) || days < MIN_RETENTION_DAYS || days > MAX_RETENTION_DAYS) {
    throw new StorageError("invalid_retention", `retention must be a whole number of days from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}, got ${days}`);
  }
  return days;
}

function checkName(name: string | null | undefined): string | null {
  if (name === null || name === undefined) return null;
  const trimmed = name.trim();
  if (trimmed.length > MAX_NAME_LENGTH) throw new StorageError("invalid_name", `name is longer than ${MAX_NAME_LENGTH} characters`);
  return trimmed === "" ? null : trimmed;
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
  input: { domain: string; name?: string | null; retention_days?: number; team_id?: number },
): Promise<SiteRecord> {
  const domain = checkDomain(input.domain);
  const retention = checkRetention(input.retention_days ?? DEFAULT_RETENTION_DAYS);
  const name = checkName(input.name);
  const teamId = input.team_id ?? 1;
  try {
    const result = await pool.query<SiteRow>(
      `insert into sites (domain, name, retention_days, team_id) values ($1, $2, $3, $4) returning ${SITE_COLUMNS}`,
      [domain, name, retention, teamId],
    );
    return toRecord(result.rows[0]!);
  } catch (error) {
    rethrowTaken(error, domain);
  }
}

export async function updateSite(
  pool: pg.Pool,
  id: number,
  patch: { domain?: string; name?: string | null; retention_days?: number },
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

/**
 * One change announced on channel svc_sites by the trigger of sql/002_sites_notify.sql. `resync` is sent
 * after the listener reconnects: notifications of the gap are lost, so a cache should drop everything.
 */
export type SiteChange =
  | { op: "insert" | "update" | "delete"; id: number; old_domain: string | null; new_domain: string | null }
  | { op: "resync" };

export interface SiteChangeListener {
  close(): Promise<void>;
}

const RECONNECT_FIRST_MS = 250;
const RECONNECT_MAX_MS = 5_000;

/**
 * LISTENs on svc_sites over a dedicated connection (a pooled one would be handed to other queries).
 * Resolves once listening; on a lost connection it reconnects with backoff (250 ms doubling to 5 s) and
 * then reports `resync`.
 */
export async function listenSiteChanges(
  target: string | pg.Pool,
  onChange: (change: SiteChange) => void,
  opts: { log?: (line: string) => void } = {},
): Promise<SiteChangeListener> {
  const config: pg.ClientConfig = typeof target === "string" ? { connectionString: target } : { ...target.options };
  const log = opts.log ?? (() => {});
  let closed = false;
  let client: pg.Client | null = null;
  let timer: NodeJS.Timeout | null = null;
  let delay = RECONNECT_FIRST_MS;

  const onNotification = (message: pg.Notification): void => {
    if (message.channel !== "svc_sites" || message.payload === undefined) return;
    try {
      const change = JSON.parse(message.payload) as SiteChange;
      onChange(change);
    } catch (error) {
      log(`sites: ignored a malformed svc_sites notification (${(error as Error).message})`);
    }
  };

  const connect = async (): Promise<void> => {
    const next = new pg.Client(config);
    next.on("notification", onNotification);
    next.on("error", () => lost(next));
    next.on("end", () => lost(next));
    try {
      await next.connect();
      await next.query("listen svc_sites");
    } catch (error) {
      await next.end().catch(() => undefined);
      throw error;
    }
    if (closed) {
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
  };

  const lost = (which: pg.Client): void => {
    if (closed || client !== which) return;
    client = null;
    which.end().catch(() => undefined);
    log("sites: lost the svc_sites listener connection; reconnecting");
    schedule();
  };

  const schedule = (): void => {
    timer = setTimeout(() => {
      timer = null;
      connect().then(
        () => {
          delay = RECONNECT_FIRST_MS;
          if (!closed) onChange({ op: "resync" });
        },
        () => {
          delay = Math.min(delay * 2, RECONNECT_MAX_MS);
          if (!closed) schedule();
        },
      );
    }, delay);
  };

  await connect();
  return {
    close: async () => {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      const current = client;
      client = null;
      if (current !== null) await current.end().catch(() => undefined);
    },
  };
}
