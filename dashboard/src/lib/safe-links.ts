// Links built from visitor-supplied labels. A label is only ever a path on the site's own domain or a
// referrer host; the link is always http(s) to exactly that host, so `javascript:` or another scheme can
// never come out of here, whatever the label holds.
import { displayLabel } from "@svc/core/display";

const HOST = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;

/** https://{site domain}{path} when the label is an absolute path; otherwise no link. */
export function pageHref(siteDomain: string, path: string): string | null {
  if (!HOST.test(siteDomain) || !path.startsWith("/") || path.startsWith("//")) return null;
  const url = new URL(`https://${siteDomain}`);
  url.pathname = path.split(/[?#]/)[0]!;
  return url.host === siteDomain.toLowerCase() && url.protocol === "https:" ? url.href : null;
}

/** https://{host}/ when the label is a bare host name (a referrer source such as news.ycombinator.com). */
export function hostHref(host: string): string | null {
  if (!HOST.test(host)) return null;
  return `https://${host.toLowerCase()}/`;
}

/** The one way a visitor-supplied label becomes text on screen. */
export const label = (value: string) => displayLabel(value);
