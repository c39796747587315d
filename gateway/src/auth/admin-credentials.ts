// The admin-mode operator check. Both the e-mail and the password are compared as SHA-256 digests with
// timingSafeEqual: digests have equal length whatever was typed, so neither the length nor the first differing
// byte of the secret leaks through timing, and both comparisons always run (a wrong e-mail costs as much as a
// wrong password and gets the same answer).
import { createHash, timingSafeEqual } from "node:crypto";
import type { AdminAuthConfig } from "./auth-config.ts";

const digest = (s: string): Buffer => createHash("sha256").update(s, "utf8").digest();

export function adminCredentialsMatch(config: AdminAuthConfig, email: string, password: string): boolean {
  const emailOk = timingSafeEqual(digest(email.trim().toLowerCase()), digest(config.adminEmail));
  const passwordOk = timingSafeEqual(digest(password), digest(config.adminPassword));
  return emailOk && passwordOk;
}
