// Hosted mode (SVC_AUTH_MODE=jwt): tokens issued by an external identity provider. The signature is checked
// against the provider's JWKS (RS256/ES256) or a shared HS256 secret, then `iss`, `aud` and `exp`; the user's
// team is the slug in the configured claim and must be a row of `teams` — anyone else is refused (invite-only).
import { Buffer } from "node:buffer";
import { createSecretKey, type KeyObject } from "node:crypto";
import { createRemoteJWKSet, decodeProtectedHeader, errors as joseErrors, type JWTPayload, jwtVerify } from "jose";
import type pg from "pg";
import type { Clock } from "@svc/core";
import { ApiError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { JwtAuthConfig } from "./auth-config.ts";
import type { Principal } from "./principal.ts";

export const JWKS_ALGORITHMS = ["RS256", "ES256"] as const;
/** 30 s of leeway on `exp`/`nbf` for clock skew between the provider and this host. */
const CLOCK_TOLERANCE_S = 30;

export class ExternalJwtVerifier {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet> | null;
  private readonly secret: KeyObject | null;

  constructor(
    private readonly config: JwtAuthConfig,
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {
    // jose caches the key set for 10 minutes and refetches (at most every 30 s) when a token names an unknown `kid`,
    // so a provider's key rotation is picked up without a restart.
    this.jwks = config.jwksUrl ? createRemoteJWKSet(new URL(config.jwksUrl)) : null;
    this.secret = config.jwtSecret ? createSecretKey(Buffer.from(config.jwtSecret, "utf8")) : null;
  }

  async verify(token: string): Promise<Principal> {
    const payload = await this.verifiedPayload(token);
    const slug = payload[this.config.teamClaim];
    if (typeof slug !== "string" || slug === "") {
      throw new ApiError("forbidden", `no team membership: the token has no "${this.config.teamClaim}" claim (this service is invite-only)`);
    }
    const team = await this.pool.query<{ id: number }>("select id from teams where slug = $1", [slug]);
    if (team.rows.length === 0) throw new ApiError("forbidden", "no team membership: the token's team does not exist here (this service is invite-only)");
    return { teamId: team.rows[0]!.id, via: "jwt", subject: typeof payload.sub === "string" ? payload.sub : "unknown", scope: "admin" };
  }

  private async verifiedPayload(token: string): Promise<JWTPayload> {
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw new ApiError("unauthorized", "malformed token");
    }
    const options = {
      issuer: this.config.issuer,
      audience: this.config.audience,
      requiredClaims: ["exp"],
      clockTolerance: CLOCK_TOLERANCE_S,
      currentDate: new Date(this.clock.now()),
    };
    try {
      if (alg === "HS256" && this.secret) return (await jwtVerify(token, this.secret, { ...options, algorithms: ["HS256"] })).payload;
      if ((JWKS_ALGORITHMS as readonly (string | undefined)[]).includes(alg) && this.jwks) {
        return (await jwtVerify(token, this.jwks, { ...options, algorithms: [...JWKS_ALGORITHMS] })).payload;
      }
    } catch (error) {
      if (error instanceof joseErrors.JWKSTimeout || !(error instanceof joseErrors.JOSEError)) {
        // The provider's key set could not be fetched: not the caller's fault, so not a 401.
        this.log.warn("identity provider key set unavailable", { error: error instanceof Error ? error.message : String(error) });
        throw new ApiError("unavailable", "identity provider keys unavailable; retry shortly");
      }
      throw new ApiError("unauthorized", error instanceof joseErrors.JWTExpired ? "token expired" : "invalid token");
    }
    throw new ApiError("unauthorized", "token algorithm not accepted");
  }
}
