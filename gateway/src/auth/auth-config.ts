// The authentication part of the configuration. config.ts parses each SVC_* variable on its own; the rules
// that tie several together (mode, key sources, placeholders in production) live here, one message each.

/** Shipped defaults so `npm run dev` works out of the box; refused at boot when NODE_ENV=production. */
export const PLACEHOLDER_ADMIN_PASSWORD = "change-me-admin-password";
export const PLACEHOLDER_JWT_SECRET = "change-me-jwt-secret-at-least-32-characters";
/** The shipped values and .env.example's `CHANGE-ME-…` ones alike: a value copied without being replaced. */
export const isPlaceholder = (value: string): boolean => /^change-me/i.test(value);

export const AUTH_MODES = ["admin", "jwt"] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

/** 32 bytes: HS256 keys shorter than the 256-bit hash output weaken the MAC (RFC 7518 §3.2). */
export const MIN_JWT_SECRET_LENGTH = 32;

export const DEFAULT_TEAM_CLAIM = "svc_team";

export interface AdminAuthConfig {
  readonly mode: "admin";
  readonly adminEmail: string;
  readonly adminPassword: string;
  /** Signs and verifies the gateway's own session tokens (HS256). */
  readonly jwtSecret: string;
  /** Variables still at their shipped placeholder (development only): the boot log warns about each. */
  readonly placeholders: readonly ("SVC_ADMIN_PASSWORD" | "SVC_JWT_SECRET")[];
}

export interface JwtAuthConfig {
  readonly mode: "jwt";
  readonly issuer: string;
  readonly audience: string;
  /** RS256/ES256 keys of the identity provider; null when only HS256 is used. */
  readonly jwksUrl: string | null;
  /** Shared HS256 secret with the identity provider; null when only the JWKS is used. */
  readonly jwtSecret: string | null;
  /** Name of the claim holding the team's slug. */
  readonly teamClaim: string;
}

export type AuthConfig = AdminAuthConfig | JwtAuthConfig;

/** The auth variables as config.ts parsed them (null = unset). */
export interface AuthEnv {
  readonly mode: AuthMode;
  readonly adminEmail: string;
  readonly adminPassword: string | null;
  readonly jwtSecret: string | null;
  readonly jwksUrl: string | null;
  readonly issuer: string | null;
  readonly audience: string | null;
  readonly teamClaim: string;
  readonly production: boolean;
}

export const AUTH_ENV_NAMES = [
  "SVC_AUTH_MODE", "SVC_ADMIN_EMAIL", "SVC_ADMIN_PASSWORD", "SVC_JWT_SECRET",
  "SVC_JWT_JWKS_URL", "SVC_JWT_ISSUER", "SVC_JWT_AUDIENCE", "SVC_JWT_TEAM_CLAIM",
] as const;

export function resolveAuthConfig(env: AuthEnv): { config: AuthConfig; problems: string[] } {
  const problems: string[] = [];
  const placeholderInProduction = (name: string) =>
    `${name} is still the shipped placeholder; set a real value (NODE_ENV=production refuses placeholders)`;
  if (env.jwtSecret !== null && isPlaceholder(env.jwtSecret) && env.production) problems.push(placeholderInProduction("SVC_JWT_SECRET"));

  if (env.mode === "admin") {
    const placeholders: ("SVC_ADMIN_PASSWORD" | "SVC_JWT_SECRET")[] = [];
    const adminPassword = env.adminPassword ?? PLACEHOLDER_ADMIN_PASSWORD;
    if (isPlaceholder(adminPassword)) {
      if (env.production) problems.push(placeholderInProduction("SVC_ADMIN_PASSWORD"));
      placeholders.push("SVC_ADMIN_PASSWORD");
    }
    const jwtSecret = env.jwtSecret ?? PLACEHOLDER_JWT_SECRET;
    if (isPlaceholder(jwtSecret)) {
      if (env.production && env.jwtSecret === null) problems.push(placeholderInProduction("SVC_JWT_SECRET"));
      placeholders.push("SVC_JWT_SECRET");
    }
    return { config: { mode: "admin", adminEmail: env.adminEmail.trim().toLowerCase(), adminPassword, jwtSecret, placeholders }, problems };
  }

  if (env.issuer === null) problems.push("SVC_JWT_ISSUER is required when SVC_AUTH_MODE=jwt (the identity provider's `iss`)");
  if (env.audience === null) problems.push("SVC_JWT_AUDIENCE is required when SVC_AUTH_MODE=jwt (the `aud` the identity provider issues for svc)");
  if (env.jwksUrl === null && env.jwtSecret === null) {
    problems.push("SVC_AUTH_MODE=jwt needs a key source: SVC_JWT_JWKS_URL (RS256/ES256) or SVC_JWT_SECRET (HS256)");
  }
  return {
    config: {
      mode: "jwt",
      issuer: env.issuer ?? "",
      audience: env.audience ?? "",
      jwksUrl: env.jwksUrl,
      jwtSecret: env.jwtSecret,
      teamClaim: env.teamClaim,
    },
    problems,
  };
}

/** Variables whose values config.ts never prints in a boot message. */
export const SECRET_ENV_NAMES: ReadonlySet<string> = new Set([
  "SVC_ADMIN_PASSWORD", "SVC_JWT_SECRET", "SVC_OPENAI_API_KEY", "SVC_ANTHROPIC_API_KEY", "SVC_GEMINI_API_KEY", "SVC_SMTP_URL",
]);

/** The 404 answer of the login and logout routes in jwt mode, where the identity provider owns sign-in. */
export const LOGIN_IN_JWT_MODE = "login and logout are handled by the identity provider when SVC_AUTH_MODE=jwt";
