// API keys: `svc_live_` + 43 url-safe characters (32 random bytes, 256 bits). The database keeps only the SHA-256
// of the whole key, plus a short prefix and the last 4 characters so a person can tell keys apart in a list.
//
// A presented key is looked up by its hash through a unique index. That equality compare runs on a digest of
// a 256-bit random value, so its timing reveals nothing usable about any stored key; no plaintext is compared.
// There is deliberately no in-memory cache: every request reads the row, so a revoke (a delete) is immediate.
import { createHash, randomBytes } from "node:crypto";
import type pg from "pg";
import type { Clock } from "@svc/core";
import type { Logger } from "../log.ts";
import { API_KEY_PREFIX } from "./credentials.ts";
import type { Principal, Scope } from "./principal.ts";

const RANDOM_BYTES = 32;
const KEY_PATTERN = /^svc_live_[A-Za-z0-9_-]{43}$/;
/** Prefix shown in listings: `svc_live_` and the first 4 random characters (24 of 256 bits; the rest stays secret). */
const SHOWN_PREFIX_LENGTH = API_KEY_PREFIX.length + 4;
/** last_used_at is written at most once a minute per key, so a busy script does not turn every read into a write. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

export interface CreatedApiKey {
  readonly id: number;
  readonly name: string;
  readonly scope: Scope;
  /** The only time the secret exists outside the caller's hands. */
  readonly key: string;
  readonly created_at: string;
}

export interface ApiKeyListing {
  readonly id: number;
  readonly name: string;
  readonly scope: Scope;
  readonly prefix: string;
  readonly last4: string;
  readonly created_at: string;
  readonly last_used_at: string | null;
}

export const generateApiKey = (): string => API_KEY_PREFIX + randomBytes(RANDOM_BYTES).toString("base64url");
export const hashApiKey = (key: string): Buffer => createHash("sha256").update(key, "utf8").digest();

interface KeyRow {
  id: number;
  name: string;
  scope: Scope;
  prefix: string;
  last4: string;
  created_at: Date;
  last_used_at: Date | null;
}

const listing = (r: KeyRow): ApiKeyListing => ({
  id: r.id,
  name: r.name,
  scope: r.scope,
  prefix: r.prefix,
  last4: r.last4,
  created_at: r.created_at.toISOString(),
  last_used_at: r.last_used_at ? r.last_used_at.toISOString() : null,
});

export class ApiKeys {
  /** Key id → when this process last wrote its last_used_at. Holds one number per key in use. */
  private readonly lastWritten = new Map<number, number>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  async create(teamId: number, name: string, scope: Scope, createdBy: string): Promise<CreatedApiKey> {
    const key = generateApiKey();
    const now = new Date(this.clock.now());
    const row = await this.pool.query<{ id: number }>(
      `insert into api_keys (team_id, name, scope, key_hash, prefix, last4, created_by, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8) returning id`,
      [teamId, name, scope, hashApiKey(key), key.slice(0, SHOWN_PREFIX_LENGTH), key.slice(-4), createdBy, now],
    );
    return { id: row.rows[0]!.id, name, scope, key, created_at: now.toISOString() };
  }

  async list(teamId: number): Promise<ApiKeyListing[]> {
    const rows = await this.pool.query<KeyRow>(
      "select id, name, scope, prefix, last4, created_at, last_used_at from api_keys where team_id = $1 order by id",
      [teamId],
    );
    return rows.rows.map(listing);
  }

  /** Deletes a key of this team; false when no such key (or it belongs to another team). */
  async revoke(teamId: number, id: number): Promise<boolean> {
    const result = await this.pool.query("delete from api_keys where id = $1 and team_id = $2", [id, teamId]);
    this.lastWritten.delete(id);
    return (result.rowCount ?? 0) > 0;
  }

  /** The principal of a live key, or null for a malformed, unknown or revoked one. */
  async verify(key: string): Promise<Principal | null> {
    if (!KEY_PATTERN.test(key)) return null;
    const row = await this.pool.query<{ id: number; team_id: number; scope: Scope }>("select id, team_id, scope from api_keys where key_hash = $1", [hashApiKey(key)]);
    const found = row.rows[0];
    if (!found) return null;
    this.touch(found.id);
    return { teamId: found.team_id, via: "api_key", subject: `api_key:${found.id}`, scope: found.scope };
  }

  private touch(id: number): void {
    const now = this.clock.now();
    const last = this.lastWritten.get(id);
    if (last !== undefined && now - last < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastWritten.set(id, now);
    this.pool.query("update api_keys set last_used_at = $2 where id = $1", [id, new Date(now)]).catch((error: unknown) => {
      this.log.warn("could not record an API key's last use", { key_id: id, error: error instanceof Error ? error.message : String(error) });
    });
  }
}
