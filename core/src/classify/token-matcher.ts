// Finds table tokens in a User-Agent with the corpus rule: case-insensitive, and only where neither neighbour
// is an ASCII letter or digit (so `ShowyouBot` is not `YouBot`, `SLCC2` is not `LCC`), which also finds a
// token inside a URL or e-mail address. One regular expression per table is compiled at load time: a
// single left-to-right scan finds the earliest start, and with the alternatives ordered longest first the
// first alternative that fits at that start is the longest token there (`Ai2Bot-Dolma` over `AI2Bot`).
import type { UaToken } from "./tables.ts";

export interface TokenMatcher {
  /** The entry whose token starts earliest in `text` (longest on a tie), or null. */
  readonly find: (text: string) => UaToken | null;
  /** `text` with every occurrence of every token cut out. */
  readonly remove: (text: string) => string;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

/** The regular expression source matching any of `tokens` at ASCII-alphanumeric boundaries. */
function tokenPatternSource(tokens: readonly string[]): string {
  const ordered = [...tokens].sort((a, b) => b.length - a.length || a.localeCompare(b));
  return `(?<![A-Za-z0-9])(?:${ordered.map(escapeRegExp).join("|")})(?![A-Za-z0-9])`;
}

export function compileTokenMatcher(entries: readonly UaToken[]): TokenMatcher {
  const byLowerToken = new Map(entries.map((e) => [e.token.toLowerCase(), e]));
  const source = tokenPatternSource(entries.map((e) => e.token));
  // Without the g flag exec always starts at 0 and keeps no state between calls.
  const first = new RegExp(source, "i");
  const every = new RegExp(source, "gi");
  return {
    find(text) {
      const m = first.exec(text);
      // The match is one of the literal tokens up to case, so its lowercase form is the map key.
      return m === null ? null : (byLowerToken.get(m[0].toLowerCase()) ?? null);
    },
    remove(text) {
      return text.replace(every, "");
    },
  };
}
