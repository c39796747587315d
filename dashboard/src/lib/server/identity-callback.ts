// Hosted mode (gateway SVC_AUTH_MODE=jwt): the identity provider signs people in and sends its token back
// to POST /app/auth/callback (form field `token` or `id_token`, as with an OIDC `response_mode=form_post`).
// The gateway checks it (signature, iss, aud, exp, team claim) through GET /api/auth/me; only a token it
// accepts is kept, as the HttpOnly session cookie the gateway reads, for as long as the token is valid.
import { type BrowserRequest, callGateway, gatewayError } from "./gateway";
import { safeNext } from "./redirect-target";

// The gateway's session cookie. In admin mode the dashboard never writes it (the gateway's own Set-Cookie
// is passed through); in jwt mode the gateway has no login route, so the dashboard stores the token here.
export const JWT_MODE_SESSION_COOKIE = "svc_session";
// 12 hours, the gateway's admin session lifetime: the cookie never outlives a working day even if the
// provider issued a longer token.
const MAX_COOKIE_SECONDS = 12 * 3600;

export async function acceptIdentityToken(event: BrowserRequest): Promise<Response> {
  const { request } = event;
  const form = await request.formData().catch(() => null);
  const token = String(form?.get("token") ?? form?.get("id_token") ?? "").trim();
  const failed = (message: string) => new Response(null, { status: 303, headers: { location: `/app/login?sso=${encodeURIComponent(message)}` } });
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token)) return failed("the sign-in did not return a token");
  const me = await callGateway(event, "/api/auth/me", { method: "GET", headers: { authorization: `Bearer ${token}`, cookie: "" } }).catch(() => null);
  if (!me) return failed("the API is not reachable");
  if (!me.ok) return failed(await gatewayError(me));
  const secure = new URL(request.url).protocol === "https:";
  const maxAge = Math.max(0, Math.min(MAX_COOKIE_SECONDS, secondsUntilExpiry(token)));
  const cookie = `${JWT_MODE_SESSION_COOKIE}=${token}; HttpOnly; SameSite=Lax; Path=/; Max-Age=${maxAge}${secure ? "; Secure" : ""}`;
  return new Response(null, { status: 303, headers: { location: safeNext(form?.get("next")), "set-cookie": cookie, "cache-control": "no-store" } });
}

function secondsUntilExpiry(token: string): number {
  try {
    const payload = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as { exp?: unknown };
    return typeof payload.exp === "number" ? Math.floor(payload.exp - Date.now() / 1000) : MAX_COOKIE_SECONDS;
  } catch {
    return 0;
  }
}
