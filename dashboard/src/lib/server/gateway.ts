// The one way the dashboard server talks to the gateway: the browser's own credentials and CSRF headers go
// through unchanged, and the gateway's Set-Cookie comes back unchanged, so the dashboard never needs to know
// the session cookie's name or attributes (the gateway may rename it to a __Host- name behind TLS).
import { env } from "$env/dynamic/private";

export const DEFAULT_API_URL = "http://127.0.0.1:8080";

/** Request headers passed to the gateway as the browser sent them; nothing else (no Host, no hop-by-hop). */
export const FORWARDED_REQUEST_HEADERS = ["cookie", "origin", "sec-fetch-site", "content-type", "authorization", "accept", "last-event-id"] as const;

// Response headers the proxy does not copy: hop-by-hop ones, and the body framing Node's fetch already undid
// (it decompresses, so a copied content-encoding or content-length would describe a different body).
const DROPPED_RESPONSE_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding", "content-encoding", "content-length", "set-cookie"]);

let apiBase: URL | null = null;

/** SVC_API_URL, read and checked once: an http(s) URL without path, query or credentials. */
export function gatewayBase(): URL {
  if (apiBase) return apiBase;
  const raw = env.SVC_API_URL?.trim() || DEFAULT_API_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`SVC_API_URL: not a URL: ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`SVC_API_URL: must be http or https, got ${url.protocol}`);
  if (url.username || url.password || url.search || (url.pathname !== "/" && url.pathname !== "")) {
    throw new Error("SVC_API_URL: must be a bare origin such as http://127.0.0.1:8080 (no path, query or credentials)");
  }
  apiBase = url;
  return url;
}

/** The browser's request as the proxy sees it: SvelteKit's RequestEvent, or the part of it used here. */
export interface BrowserRequest {
  readonly request: Request;
  /** The browser's address: the socket's, or with SVC_DASHBOARD_ADDRESS_HEADER behind a proxy, that header's. */
  getClientAddress(): string;
}

/**
 * Calls the gateway on behalf of the browser, forwarding only the allow-listed headers, and X-Forwarded-For
 * set to the browser's address: the gateway's per-client login limiter (and failed-credential limiter) then
 * counts each browser apart instead of everyone behind this dashboard as one client. It is set, never
 * appended to, so a browser's own X-Forwarded-For never reaches the gateway; the gateway believes it only
 * from the addresses in its SVC_TRUST_PROXY (`npm start` sets loopback, where this server runs).
 */
export function callGateway(
  { request, getClientAddress }: BrowserRequest,
  path: string,
  init: { method?: string; body?: BodyInit | null; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  const headers = new Headers();
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  headers.set("x-forwarded-for", getClientAddress());
  for (const [name, value] of Object.entries(init.headers ?? {})) headers.set(name, value);
  const method = init.method ?? request.method;
  const body = init.body !== undefined ? init.body : method === "GET" || method === "HEAD" ? null : request.body;
  return fetch(new URL(path, gatewayBase()), {
    method,
    headers,
    body,
    redirect: "manual",
    ...(init.signal ? { signal: init.signal } : {}),
    // A streamed request body (the browser's POST passed through) needs half-duplex in Node's fetch.
    ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
  } as RequestInit);
}

/** The gateway's answer as the browser's answer: status, headers (Set-Cookie included, each unchanged), body streamed. */
export function relay(upstream: Response, extra: Record<string, string> = {}): Response {
  const headers = new Headers();
  upstream.headers.forEach((value, name) => {
    if (!DROPPED_RESPONSE_HEADERS.has(name)) headers.set(name, value);
  });
  for (const cookie of upstream.headers.getSetCookie()) headers.append("set-cookie", cookie);
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  const bodyless = upstream.status === 204 || upstream.status === 304;
  return new Response(bodyless ? null : upstream.body, { status: upstream.status, statusText: upstream.statusText, headers });
}

/** A redirect that carries the gateway's Set-Cookie headers unchanged. */
export function redirectWithCookies(location: string, upstream: Response): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const cookie of upstream.headers.getSetCookie()) headers.append("set-cookie", cookie);
  return new Response(null, { status: 303, headers });
}

/** The gateway's `{"error"}` message, or a generic line when the body is not the gateway's JSON. */
export async function gatewayError(upstream: Response): Promise<string> {
  try {
    const body = (await upstream.json()) as { error?: unknown };
    if (typeof body.error === "string") return body.error;
  } catch {
    // not JSON: fall through to the status line
  }
  return `the API answered ${upstream.status}`;
}
