// Finds table tokens in a User-Agent: case-insensitive, and only where neither neighbour is an ASCII letter
// or digit (so `ShowyouBot` is not `YouBot`, `SLCC2` is not `LCC`). Tokens are looked for in the product part
// of the UA only (`productPart`): a URL or e-mail address in a comment names the operator's site, not the
// client (`+https://example.com/about-gptbot` is not GPTBot). All tables' tokens are compiled into ONE
// regular expression: a single left-to-right scan finds the earliest token of any class, and with the
// alternatives ordered longest first the first alternative that fits at a start is the longest token there
// (`Ai2Bot-Dolma` over `AI2Bot`). Adding tokens adds alternatives to that one scan, not more scans.
import type { UaToken } from "./tables.ts";

/** One table of tokens and the class its matches report. */
export interface TokenTable<C extends string> {
  readonly kind: C;
  readonly entries: readonly UaToken[];
}

export interface TokenHit<C extends string> {
  readonly kind: C;
  readonly entry: UaToken;
}

export interface TokenMatcher<C extends string> {
  /**
   * Every token found in `text`, in order of position, each at most once per position (the longest there).
   * Callers pick the first hit of the class that wins by precedence.
   */
  readonly findAll: (text: string) => readonly TokenHit<C>[];
  /** `text` with every occurrence of every token of `kind` cut out. */
  readonly remove: (text: string, kind: C) => string;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

/** The regular expression source matching any of `tokens` at ASCII-alphanumeric boundaries. */
function tokenPatternSource(tokens: readonly string[]): string {
  const ordered = [...tokens].sort((a, b) => b.length - a.length || a.localeCompare(b));
  return `(?<![A-Za-z0-9])(?:${ordered.map(escapeRegExp).join("|")})(?![A-Za-z0-9])`;
}

export function compileTokenMatcher<C extends string>(tables: readonly TokenTable<C>[]): TokenMatcher<C> {
  const byLowerToken = new Map<string, TokenHit<C>>();
  for (const t of tables) for (const entry of t.entries) byLowerToken.set(entry.token.toLowerCase(), { kind: t.kind, entry });
  const every = new RegExp(tokenPatternSource([...byLowerToken.values()].map((h) => h.entry.token)), "gi");
  const removers = new Map(tables.map((t) => [t.kind, new RegExp(tokenPatternSource(t.entries.map((e) => e.token)), "gi")] as const));
  const NONE: readonly TokenHit<C>[] = Object.freeze([]);
  return {
    findAll(text) {
      let hits: TokenHit<C>[] | undefined;
      every.lastIndex = 0;
      for (let m = every.exec(text); m !== null; m = every.exec(text)) {
        // The match is one of the literal tokens up to case, so its lowercase form is the map key.
        (hits ??= []).push(byLowerToken.get(m[0].toLowerCase())!);
      }
      return hits ?? NONE;
    },
    remove(text, kind) {
      const remover = removers.get(kind);
      return remover === undefined ? text : text.replace(remover, "");
    },
  };
}

// A URL (`scheme://…` up to a space, `;` or `)`) or an e-mail address. What such a run contains is the
// operator's site or contact, never the identity of the client sending the header. Each alternative may only
// start where its run starts (the lookbehinds): otherwise every position inside a long run of letters is a new
// start, and a 1,000-character UA with one `@` cost 12 ms instead of microseconds. (`+https://…` in a comment
// still starts a URL: `+` is no scheme character here.)
const URL_OR_EMAIL = /(?<![a-z0-9.-])[a-z][a-z0-9.-]*:\/\/[^\s;)]*|(?<![a-z0-9._%+-])[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}/gi;

/** The UA without URLs and e-mail addresses: the part that names products. */
export function productPart(ua: string): string {
  return ua.includes("://") || ua.includes("@") ? ua.replace(URL_OR_EMAIL, " ") : ua;
}
