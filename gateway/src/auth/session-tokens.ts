// Admin-mode session tokens: an HS256 JWT signed with SVC_JWT_SECRET whose `sid` names a row of auth_sessions.
// The signature makes a token unforgeable without a database read; the row makes logout immediate (the row is
// deleted, the token dies with it even though its `exp` is still ahead).
import { Buffer } from "node:buffer";
import { createSecretKey, type KeyObject, randomBytes } from "node:crypto";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import type pg from "pg";
import type { Clock } from "@svc/core";
import type { Principal } from "./principal.ts";

/** 12 hours: one working day signed in; the dashboard asks for the password again the next morning. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;
export const SESSION_ISSUER = "svc-gateway";
export const SESSION_AUDIENCE = "svc-session";
/** The self-hosted operator's team: sites.team_id defaults to 1 and migration 005 creates team 1. */
export const ADMIN_TEAM_ID = 1;

export interface IssuedSession {
  readonly token: string;
  readonly expiresAt: Date;
}

export class SessionTokens {
  private readonly key: KeyObject;

  constructor(
    private readonly pool: pg.Pool,
    secret: string,
    private readonly clock: Clock,
  ) {
    // Imported once: passing raw bytes would make jose import the HMAC key again on every sign and verify.
    this.key = createSecretKey(Buffer.from(secret, "utf8"));
  }

  async issue(subject: string, teamId: number): Promise<IssuedSession> {
    const now = this.clock.now();
    const expiresAt = new Date(now + SESSION_LIFETIME_MS);
    const sid = randomBytes(16);
    // Expired rows are swept here, on the (rare) login path, so the table holds at most a day's logins.
    await this.pool.query("delete from auth_sessions where expires_at <= $1", [new Date(now)]);
    await this.pool.query(
      "insert into auth_sessions (id, team_id, subject, created_at, expires_at) values ($1, $2, $3, $4, $5)",
      [sid, teamId, subject, new Date(now), expiresAt],
    );
    const token = await new SignJWT({ sid: sid.toString("base64url") })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer(SESSION_ISSUER)
      .setAudience(SESSION_AUDIENCE)
      .setSubject(subject)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(this.key);
    return { token, expiresAt };
  }

  /** The principal of a live session, or null for a token that is malformed, forged, expired or logged out. */
  async verify(token: string): Promise<Principal | null> {
    const sid = await this.sessionId(token);
    if (sid === null) return null;
    const row = await this.pool.query<{ team_id: number; subject: string }>(
      "select team_id, subject from auth_sessions where id = $1 and expires_at > $2",
      [sid, new Date(this.clock.now())],
    );
    const session = row.rows[0];
    return session ? { teamId: session.team_id, via: "session", subject: session.subject, scope: "admin" } : null;
  }

  /** Deletes the session of a valid token; false when the token names no live session. */
  async revoke(token: string): Promise<boolean> {
    const sid = await this.sessionId(token);
    if (sid === null) return false;
    const result = await this.pool.query("delete from auth_sessions where id = $1 and expires_at > $2", [sid, new Date(this.clock.now())]);
    return (result.rowCount ?? 0) > 0;
  }

  private async sessionId(token: string): Promise<Buffer | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ["HS256"],
        issuer: SESSION_ISSUER,
        audience: SESSION_AUDIENCE,
        requiredClaims: ["sid", "exp", "sub"],
        currentDate: new Date(this.clock.now()),
      });
      const sid = typeof payload["sid"] === "string" ? Buffer.from(payload["sid"], "base64url") : null;
      return sid !== null && sid.length === 16 ? sid : null;
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) return null;
      throw error;
    }
  }
}
