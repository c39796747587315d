// Three things happen before SvelteKit renders anything:
// - `/api/*` is proxied to the gateway (SSE included: the body is streamed as it arrives, never buffered);
// - the no-JavaScript sign-in form (POST /app/login) is turned into the gateway's JSON login, its
//   Set-Cookie passed back unchanged; with JavaScript the page calls /api/auth/login itself;
// - POST /app/logout ends the session the same way, and POST /app/auth/callback takes a hosted-mode
//   identity provider's token (see README "Hosted mode"; it comes from the provider's page, so it is the
//   one cross-site post accepted, and only with a token the gateway verifies).
import type { IncomingMessage } from "node:http";
import type { Handle } from "@sveltejs/kit";
import { callGateway, gatewayBase, gatewayError, redirectWithCookies, relay } from "$lib/server/gateway";
import { acceptIdentityToken } from "$lib/server/identity-callback";
import { safeNext } from "$lib/server/redirect-target";
import { SHARE_PAGE, counterPage, frameableEmbed } from "$lib/server/share-pages";
import { isSameOriginPost } from "$lib/server/same-origin";

// Checked at boot, so a bad SVC_API_URL stops the server with one clear line instead of failing per request.
gatewayBase();

export const handle: Handle = async ({ event, resolve }) => {
  const { request, url } = event;
  if (url.pathname === "/api/event" || url.pathname === "/api/hit") {
    // Through this proxy every visitor would arrive from the dashboard's address (one visitor hash for all).
    return Response.json({ error: "send events to the gateway directly (its /api/event and /api/hit), not through the dashboard" }, { status: 404 });
  }
  if (url.pathname === "/api" || url.pathname.startsWith("/api/")) {
    // The browser withdrew the question (a newer view asked instead) when its connection closes before the
    // answer: the gateway's request is closed too, so its query leaves the engine's line (query/admission.ts).
    // SvelteKit's request.signal fires only for a body cut short; the socket tells (adapter-node's platform.req).
    const socket = (event.platform as { req?: IncomingMessage } | undefined)?.req?.socket;
    const withdrawn = new AbortController();
    const withdraw = () => withdrawn.abort();
    socket?.once("close", withdraw);
    try {
      const upstream = await callGateway(event, url.pathname + url.search, { signal: withdrawn.signal });
      return relay(upstream, url.pathname.endsWith("/live") ? { "x-accel-buffering": "no", "cache-control": "no-store" } : {});
    } catch {
      return Response.json({ error: "the API is not reachable" }, { status: 502 });
    } finally {
      socket?.off("close", withdraw);
    }
  }
  if (request.method === "POST" && (url.pathname === "/app/login" || url.pathname === "/app/logout") && !isSameOriginPost(request)) {
    return new Response("Cross-site form submissions are refused", { status: 403, headers: { "content-type": "text/plain; charset=utf-8" } });
  }
  if (request.method === "POST" && url.pathname === "/app/login") {
    const form = await request.formData();
    const upstream = await callGateway(event, "/api/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ email: String(form.get("email") ?? ""), password: String(form.get("password") ?? "") }),
    }).catch(() => null);
    if (upstream?.ok) return redirectWithCookies(safeNext(form.get("next")), upstream);
    const email = String(form.get("email") ?? "");
    event.locals.loginFailure = upstream
      ? { status: upstream.status, error: await gatewayError(upstream), retryAfter: retryAfter(upstream), email }
      : { status: 502, error: "the API is not reachable", retryAfter: null, email };
    // The page's form action renders the form again with this message (see routes/app/login/+page.server.ts).
    return resolve(event);
  }
  if (request.method === "POST" && url.pathname === "/app/logout") {
    const upstream = await callGateway(event, "/api/auth/logout", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }).catch(() => null);
    return upstream ? redirectWithCookies("/app/login", upstream) : new Response(null, { status: 303, headers: { location: "/app/login" } });
  }
  if (request.method === "POST" && url.pathname === "/app/auth/callback") return acceptIdentityToken(event);
  // A shared link's counter and embed: framed only by the origins the link names (lib/server/share-pages.ts).
  const shared = request.method === "GET" ? SHARE_PAGE.exec(url.pathname) : null;
  if (shared?.[2]) return counterPage(event, shared[1]!);
  if (shared && url.searchParams.get("embed") === "true") return frameableEmbed(event, shared[1]!, await resolve(event));
  return resolve(event);
};

function retryAfter(upstream: Response): number | null {
  const value = Number(upstream.headers.get("retry-after"));
  return Number.isFinite(value) && value > 0 ? value : null;
}
