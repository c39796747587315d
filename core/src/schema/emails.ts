// E-mail addresses in the places props do not cover: the page URL (its path and query), the event name, the
// UTM values, and a server hit's path. Props lose a whole entry (schema/props.ts); here each address is cut
// out and replaced by EMAIL_PLACEHOLDER, so the page, the event and the campaign are still counted — under a
// name that identifies nobody. Each field that had one counts as one drop, as a dropped prop does.
import { type Utm, UTM_KEYS } from "../types.ts";
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
  // built for every event were ~0.3 µs of each /api/event request).
  const { utm } = event;
  const u = scrubEmails(event.u);
  const n = scrubEmails(event.n);
  let dropped = (u !== event.u ? 1 : 0) + (n !== event.n ? 1 : 0);
  let cleanUtm: { -readonly [K in keyof Utm]: Utm[K] } | null = null;
  for (const key of UTM_KEYS) {
    const value = utm[key];
    if (value === null) continue;
    const out = scrubEmails(value);
    if (out === value) continue;
    dropped++;
    (cleanUtm ??= { ...utm })[key] = out;
  }
  return dropped === 0 ? { event, dropped } : { event: { ...event, u, n, utm: cleanUtm ?? utm }, dropped };
}

/** The hit with every e-mail address in its path replaced, and 1 when it had one. */
export function dropEmailsFromHit(hit: ServerHit): { hit: ServerHit; dropped: number } {
  const path = scrubEmails(hit.path);
  return path === hit.path ? { hit, dropped: 0 } : { hit: { ...hit, path }, dropped: 1 };
}
