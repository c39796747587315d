// Who is asking. Every authenticated route receives one; reads are scoped to `teamId`.
export interface Principal {
  readonly teamId: number;
  /** session: admin login cookie/bearer token; api_key: svc_live_…; jwt: hosted-mode identity provider token. */
  readonly via: "session" | "api_key" | "jwt";
  /** e-mail, key id or JWT subject: for audit lines, never a secret. */
  readonly subject: string;
  /**
   * `read`: every read route, the live stream, the MCP server. `admin`: also sites, goals and team settings.
   * People (sessions, identity-provider JWTs) are admin; an API key has the scope it was created with.
   */
  readonly scope: Scope;
}

export const SCOPES = ["read", "admin"] as const;
export type Scope = (typeof SCOPES)[number];
