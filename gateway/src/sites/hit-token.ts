// Per-site hit tokens: `svc_hit_` + 43 url-safe characters (32 random bytes). Without one, anybody who knows a
// site's domain can post invented crawler hits with invented addresses to /api/hit. With one set, /api/hit for
// that site needs `Authorization: Bearer svc_hit_…`. Only the SHA-256 is stored (sites.hit_token_hash, sql/011);
// the token is shown once, when it is made. /api/event (the browser script) is unaffected: a page cannot hide
// a secret from its visitors.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { ApiError } from "../errors.ts";
import type { HttpRequest } from "../http/transport.ts";
import type { SiteRecord } from "../storage/sites.ts";

export const HIT_TOKEN_PREFIX = "svc_hit_";

export const generateHitToken = (): string => HIT_TOKEN_PREFIX + randomBytes(32).toString("base64url");
export const hashHitToken = (token: string): Buffer => createHash("sha256").update(token, "utf8").digest();

/** The bearer token of a /api/hit request, or null. */
export function presentedHitToken(req: HttpRequest): string | null {
  const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(req.headers["authorization"] ?? "");
  return match ? match[1]! : null;
}

/** Throws 401 unless the site needs no token or `presented` is its token. */
export function checkHitToken(site: SiteRecord, presented: string | null): void {
  if (site.hit_token_hash === null) return;
  if (presented === null) throw new ApiError("unauthorized", `site ${site.domain} requires a hit token: send Authorization: Bearer ${HIT_TOKEN_PREFIX}…`);
  // Both sides are SHA-256 digests (32 bytes), so the comparison is constant-time and length-independent.
  if (!timingSafeEqual(hashHitToken(presented), site.hit_token_hash)) throw new ApiError("unauthorized", `wrong hit token for site ${site.domain}`);
}
