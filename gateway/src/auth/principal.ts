// Who is asking. Every authenticated route receives one; reads are scoped to `teamId`.
export interface Principal {
  readonly teamId: number;
  /** session: admin login cookie/bearer token; api_key: svc_live_…; jwt: hosted-mode identity provider token. */
  readonly via: "session" | "api_key" | "jwt";
  /** e-mail, key id or JWT subject: for audit lines, never a secret. */
  readonly subject: string;
}
