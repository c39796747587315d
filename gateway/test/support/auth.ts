// Credentials for tests that speak HTTP to a harness gateway in admin mode with the default (placeholder)
// operator credentials: a session for the auth matrix and an API key made through the real route.
import { PLACEHOLDER_ADMIN_PASSWORD } from "../../src/auth/auth-config.ts";

export const ADMIN_EMAIL = "admin@localhost";
export const ADMIN_PASSWORD = PLACEHOLDER_ADMIN_PASSWORD;

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON, the raw text when it is not JSON, null for an empty body. */
  readonly json: any;
}

/** One request over a real socket; `body` is sent as JSON unless it is already a string. */
export async function call(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers["content-type"] ??= "application/json";
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
  }
  const res = await fetch(base + path, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, json };
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** Logs in as the admin. `cookie` is ready for a `Cookie` request header (`svc_session=…`). */
export async function loginAsAdmin(base: string, email = ADMIN_EMAIL, password = ADMIN_PASSWORD): Promise<{ token: string; cookie: string }> {
  const reply = await call(base, "POST", "/api/auth/login", { body: { email, password } });
  if (reply.status !== 200) throw new Error(`login failed: ${reply.status} ${JSON.stringify(reply.json)}`);
  const setCookie = reply.headers.get("set-cookie") ?? "";
  const cookie = setCookie.split(";")[0]!;
  if (!cookie.startsWith("svc_session=")) throw new Error(`login set no session cookie: ${setCookie}`);
  return { token: reply.json.token as string, cookie };
}

/** Creates an API key through POST /api/keys with a session token; returns the `svc_live_…` secret. Keys are `read` unless asked. */
export async function createApiKey(base: string, token: string, name = "test key", scope: "read" | "admin" = "read"): Promise<string> {
  const reply = await call(base, "POST", "/api/keys", { body: { name, scope }, headers: bearer(token) });
  if (reply.status !== 201) throw new Error(`key creation failed: ${reply.status} ${JSON.stringify(reply.json)}`);
  return reply.json.key as string;
}
