// E-mail addresses in the places props do not cover: the page URL (its path and query), the event name, the
// UTM values, and a server hit's path. Props lose a whole entry (schema/props.ts); here each address is cut
// out and replaced by EMAIL_PLACEHOLDER, so the page, the event and the campaign are still counted — under a
// name that identifies nobody. Each field that had one counts as one drop, as a dropped prop does.
import type { BrowserEvent } from "./browser-event.ts";
import { looksLikeEmail } from "./props.ts";
import type { ServerHit } from "./server-hit.ts";

export const EMAIL_PLACEHOLDER = "(email)";

// The same shape as props.ts's test (with the "@" possibly percent-encoded, as in a copied URL), global.
const EMAILS = /[A-Za-z0-9._%+-]+(?:@|%40)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;

/** `text` with every e-mail address in it replaced by EMAIL_PLACEHOLDER (the same text when it has none). */
export function scrubEmails(text: string): string {
  return looksLikeEmail(text) ? text.replace(EMAILS, EMAIL_PLACEHOLDER) : text;
}

/** The event with every e-mail address in `u`, `n` and the UTM values replaced, and how many fields had one. */
export function dropEmailsFromEvent(event: BrowserEvent): { event: BrowserEvent; dropped: number } {
  // Nearly no event has one: the scan allocates nothing until a field does (the closure and the UTM copy this
  // built for every event were ~0.3 µs of each /api/event request). Each UTM value is read by name, not as
  // `utm[key]` over UTM_KEYS: a keyed read whose key changes is megamorphic, a stub-cache probe each time
  // (`KeyedLoadIC_Megamorphic` under this function: 0.14 % of the gateway's samples at full ingest load).
  const { utm } = event;
  const u = scrubEmails(event.u);
  const n = scrubEmails(event.n);
  const utm_source = scrubNullable(utm.utm_source);
  const utm_medium = scrubNullable(utm.utm_medium);
  const utm_campaign = scrubNullable(utm.utm_campaign);
  const utm_term = scrubNullable(utm.utm_term);
  const utm_content = scrubNullable(utm.utm_content);
  const utmDropped =
    (utm_source !== utm.utm_source ? 1 : 0) + (utm_medium !== utm.utm_medium ? 1 : 0) + (utm_campaign !== utm.utm_campaign ? 1 : 0) +
    (utm_term !== utm.utm_term ? 1 : 0) + (utm_content !== utm.utm_content ? 1 : 0);
  const dropped = (u !== event.u ? 1 : 0) + (n !== event.n ? 1 : 0) + utmDropped;
  if (dropped === 0) return { event, dropped };
  return { event: { ...event, u, n, utm: utmDropped === 0 ? utm : { utm_source, utm_medium, utm_campaign, utm_term, utm_content } }, dropped };
}

function scrubNullable(text: string | null): string | null {
  return text === null ? null : scrubEmails(text);
}

/** The hit with every e-mail address in its path replaced, and 1 when it had one. */
export function dropEmailsFromHit(hit: ServerHit): { hit: ServerHit; dropped: number } {
  const path = scrubEmails(hit.path);
  return path === hit.path ? { hit, dropped: 0 } : { hit: { ...hit, path }, dropped: 1 };
}
