// The secrets of a shared link. The token (32 random bytes, 43 url-safe characters: as unguessable as an API
// key) is shown once and stored only as its SHA-256. A password is stored as an scrypt hash: N = 2^15, r = 8,
// p = 1 costs about 60 ms and 32 MB on this machine per check, so an offline guess at a leaked hash costs the
// same, and the unlock route is rate-limited like login besides. After the password, the viewer holds an
// access key (12 hours, like a session): an HMAC over the link's id and the key's expiry, keyed by the stored
// password hash, so any gateway can check it, and changing or removing the link ends every key at once.
import { Buffer } from "node:buffer";
import { createHash, createHmac, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { HOUR_MS } from "@svc/core";

export const generateShareToken = (): string => randomBytes(32).toString("base64url");
export const hashShareToken = (token: string): Buffer => createHash("sha256").update(token, "utf8").digest();
/** The form of a token the routes accept before any look-up (anything else is an unknown link). */
export const SHARE_TOKEN = /^[A-Za-z0-9_-]{43}$/;

const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_BYTES = 32;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFC"), salt, KEY_BYTES, { ...params, maxmem: SCRYPT.maxmem }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** `scrypt$N$r$p$salt$hash` (base64url): the parameters travel with the hash, so they can be raised later. */
export async function hashSharePassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, SCRYPT);
  return ["scrypt", SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

export async function verifySharePassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split("$");
  if (kind !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const key = await derive(password, Buffer.from(salt, "base64url"), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

export const ACCESS_LIFETIME_MS = 12 * HOUR_MS;

const accessMac = (shareId: number, expires: string, passwordHash: string): Buffer =>
  createHmac("sha256", passwordHash).update(`svc-share-access|${shareId}|${expires}`).digest();

/** A viewer's access key after the right password: `<expiry ms, base 36>.<mac>`. */
export function issueShareAccess(shareId: number, passwordHash: string, nowMs: number): { access: string; expiresAt: number } {
  const expiresAt = nowMs + ACCESS_LIFETIME_MS;
  const expires = expiresAt.toString(36);
  return { access: `${expires}.${accessMac(shareId, expires, passwordHash).toString("base64url")}`, expiresAt };
}

export function shareAccessValid(access: string | undefined, shareId: number, passwordHash: string, nowMs: number): boolean {
  const match = /^([0-9a-z]{1,12})\.([A-Za-z0-9_-]{43})$/.exec(access ?? "");
  if (!match) return false;
  if (parseInt(match[1]!, 36) <= nowMs) return false;
  return timingSafeEqual(Buffer.from(match[2]!, "base64url"), accessMac(shareId, match[1]!, passwordHash));
}
