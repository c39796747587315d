// E-mail addresses in the places props do not cover: the page URL (its path and query), the event name, the
// UTM values, and a server hit's path. Props lose a whole entry (schema/props.ts); here each address is cut
// out and replaced by EMAIL_PLACEHOLDER, so the page, the event and the campaign are still counted — under a
// name that identifies nobody. Each field that had one counts as one drop, as a dropped prop does.
import type { Utm } from "../types.ts";
import type { BrowserEvent } from "./browser-event.ts";
import { looksLikeEmail } from "./props.ts";
import type { ServerHit } from "./server-hit.ts";

export const EMAIL_PLACEHOLDER = "(email)";

// The same shape as props.ts's test (with the "@" possibly percent-encoded, as in a copied URL), global.
const EMAILS = /[A-Za-z0-9._%+-]+(?:@|%40)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;

function scrub(text: string): string {
  return looksLikeEmail(text) ? text.replace(EMAILS, EMAIL_PLACEHOLDER) : text;
}

const UTM_KEYS = ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"] as const;

/** The event with every e-mail address in `u`, `n` and the UTM values replaced, and how many fields had one. */
export function dropEmailsFromEvent(event: BrowserEvent): { event: BrowserEvent; dropped: number } {
  let dropped = 0;
  const clean = (text: string): string => {
    const out = scrub(text);
    if (out !== text) dropped++;
    return out;
  };
  const u = clean(event.u);
  const n = clean(event.n);
  const utm = { ...event.utm } as { -readonly [K in keyof Utm]: Utm[K] };
  for (const key of UTM_KEYS) {
    const value = utm[key];
    if (value !== null) utm[key] = clean(value);
  }
  return dropped === 0 ? { event, dropped } : { event: { ...event, u, n, utm }, dropped };
}

/** The hit with every e-mail address in its path replaced, and 1 when it had one. */
export function dropEmailsFromHit(hit: ServerHit): { hit: ServerHit; dropped: number } {
  const path = scrub(hit.path);
  return path === hit.path ? { hit, dropped: 0 } : { hit: { ...hit, path }, dropped: 1 };
}
