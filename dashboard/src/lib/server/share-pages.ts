// The two pages of a shared link that the server shapes itself:
// - `/share/{token}?embed=true` may be framed, but only by the origins the link names (its CSP
//   frame-ancestors); every other page keeps svelte.config.js's `frame-ancestors 'none'`.
// - `/share/{token}/counter`, the embeddable live counter: one small HTML page with its script inline (a
//   SvelteKit page would ship the framework, ~100 KB, for one number). Under 5 KB, checked by the tests.
// Both ask the gateway which origins may frame the link (it tells them even before the password).
import { createHash } from "node:crypto";
import { type BrowserRequest, callGateway } from "./gateway";

export const SHARE_PAGE = /^\/share\/([A-Za-z0-9_-]{43})(\/counter)?\/?$/;

/** The origins allowed to frame the link, or null when the gateway knows no such link. */
async function frameOrigins(event: BrowserRequest, token: string): Promise<string[] | null> {
  const upstream = await callGateway(event, `/api/share/${token}`, { method: "GET", headers: { accept: "application/json" } });
  if (!upstream.ok) return null;
  const body = (await upstream.json()) as { frame_origins?: unknown };
  // The gateway checked each one as an origin when the link was made; checked again before it enters a header.
  return Array.isArray(body.frame_origins) ? body.frame_origins.filter((o): o is string => typeof o === "string" && /^https?:\/\/[a-z0-9.:[\]-]+$/.test(o)) : [];
}

const ancestors = (origins: readonly string[]) => (origins.length === 0 ? "'none'" : origins.join(" "));

/** The embed's page as SvelteKit rendered it, with frame-ancestors opened to the link's origins. */
export async function frameableEmbed(event: BrowserRequest, token: string, rendered: Response): Promise<Response> {
  const origins = await frameOrigins(event, token).catch(() => null);
  const csp = rendered.headers.get("content-security-policy");
  if (origins === null || origins.length === 0 || csp === null) return rendered;
  const headers = new Headers(rendered.headers);
  headers.set("content-security-policy", csp.replace(/frame-ancestors 'none'/, `frame-ancestors ${ancestors(origins)}`));
  return new Response(rendered.body, { status: rendered.status, statusText: rendered.statusText, headers });
}

// The counter reads its link from its own address, so the page is the same bytes for every link and its
// script has one hash for the CSP. `?theme=light|dark` pins a scheme (default: the system's); `?access=` is
// passed on for a link with a password.
const COUNTER_SCRIPT = `(function(){var q=new URLSearchParams(location.search),t=q.get("theme"),d=document;if(t==="light"||t==="dark")d.documentElement.style.colorScheme=t;var a=q.get("access"),u="/api"+location.pathname.replace(/\\/counter\\/?$/,"")+"/counter/live"+(a?"?access="+encodeURIComponent(a):""),n=d.getElementById("n"),l=d.getElementById("l"),f=new Intl.NumberFormat(),s=new EventSource(u);s.addEventListener("count",function(e){var v=JSON.parse(e.data).visitors;n.textContent=f.format(v);l.textContent=v===1?"visitor now":"visitors now";d.body.dataset.live="1"});s.addEventListener("revoked",function(){s.close();n.textContent="\\u2013";d.body.dataset.live="0"})})();`;
const COUNTER_STYLE = `:root{color-scheme:light dark}html,body{margin:0;background:transparent}body{font:15px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:light-dark(#16181d,#e8eaef)}p{display:inline-flex;align-items:center;gap:.4em;margin:0;padding:.35em .7em;border-radius:999px;background:light-dark(#fff,#171a21);border:1px solid light-dark(#dcdfe6,#2e3440)}i{width:.55em;height:.55em;border-radius:50%;background:light-dark(#9aa1ad,#6b7280)}body[data-live="1"] i{background:light-dark(#0f7a3d,#4ade80)}b{font-variant-numeric:tabular-nums}`;
export const COUNTER_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>Visitors now</title><style>${COUNTER_STYLE}</style></head><body><p role="status" aria-live="polite"><i aria-hidden="true"></i><b id="n" data-testid="counter">\u2013</b> <span id="l">visitors now</span></p><script>${COUNTER_SCRIPT}</script></body></html>`;
const hash = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
const COUNTER_CSP = `default-src 'none'; script-src ${hash(COUNTER_SCRIPT)}; style-src ${hash(COUNTER_STYLE)}; connect-src 'self'; base-uri 'none'; form-action 'none'`;

export async function counterPage(event: BrowserRequest, token: string): Promise<Response> {
  const origins = await frameOrigins(event, token).catch(() => null);
  if (origins === null) return new Response("unknown or revoked shared link", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
  return new Response(COUNTER_HTML, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-security-policy": `${COUNTER_CSP}; frame-ancestors ${ancestors(origins)}`,
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
    },
  });
}
