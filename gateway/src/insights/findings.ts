// A model's answer made into plain-text findings: shown by the dashboard and returned to assistants over MCP,
// so it must carry no markup and no link the aggregate did not contain (a model that read an injected path
// could otherwise be steered into recommending a phishing URL).
import { displayLabel } from "@svc/core";
import { MAX_FINDINGS } from "./prompt.ts";

// 300 code points per finding: the prompt asks for 200; a little slack keeps a sentence that ran over whole.
// A longer finding keeps its whole sentences that fit; a first sentence longer than this is dropped rather
// than shown cut in half (a reader would take the half for the model's claim).
export const FINDING_MAX = 300;

// Elements whose content is code or metadata, never prose: removed with their content (`<script>alert(1)
// </script>` leaves nothing), to the end of the answer when never closed. Other tags go, their text stays.
const HIDDEN_ELEMENT = /<(script|style|iframe|object|embed|noscript|template|textarea|title|svg|math|head|select|xmp)\b[^>]*>[\s\S]*?(?:<\/\1\s*>|$)/gi;
const HTML_TAG = /<\/?[a-zA-Z][^<>]*>|<!--[\s\S]*?(?:-->|$)/g;
const MARKDOWN_LINK = /!?\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const BARE_URL = /\b(?:https?:\/\/|www\.)[^\s<>()"']+/gi;
const LIST_MARKER = /^\s*(?:[-*•+]|\d{1,2}[.)])\s+/;
const EMPHASIS = /(\*\*|__|`)/g;
// A markdown heading ("## Findings") is the model's framing, not a finding: the whole line is dropped.
const HEADING = /^\s*#{1,6}\s/;

function hostOf(url: string): string | null {
  try {
    return new URL(/^https?:\/\//i.test(url) ? url : `http://${url}`).hostname.toLowerCase().replace(/^www\./, "");
  } catch {
    return null;
  }
}

/** Hosts that appear in the aggregate: any string of it (a page path, a name) that is or contains a URL or a domain. */
export function hostsIn(aggregate: unknown): Set<string> {
  const hosts = new Set<string>();
  const visit = (node: unknown): void => {
    if (typeof node === "string") {
      for (const m of node.matchAll(BARE_URL)) {
        const h = hostOf(m[0]);
        if (h) hosts.add(h);
      }
      if (/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(node)) hosts.add(node.toLowerCase().replace(/^www\./, ""));
    } else if (Array.isArray(node)) node.forEach(visit);
    else if (node !== null && typeof node === "object") for (const [k, v] of Object.entries(node)) (visit(k), visit(v));
  };
  visit(aggregate);
  return hosts;
}

/** The sentence ends of a finding: ". ", "! ", "? " (or "…") followed by a space, and the end of the text. */
const SENTENCE_END = /[.!?…](?=\s|$)/g;

/** The finding whole when it fits, else its whole sentences that fit, else "" (never a sentence cut in half). */
function wholeSentences(line: string, max: number): string {
  if (Array.from(line).length <= max) return line;
  let cut = "";
  for (const m of line.matchAll(SENTENCE_END)) {
    const head = line.slice(0, m.index + 1);
    if (Array.from(head).length > max) break;
    cut = head;
  }
  return cut;
}

/**
 * Plain-text findings from a model's answer: code and metadata elements removed with their content, other HTML
 * tags removed, markdown links to hosts not in the aggregate
 * reduced to their text (and bare URLs to such hosts removed), heading lines, list markers and emphasis dropped,
 * control and invisible characters removed (core's displayLabel); one finding per non-empty line, at most five,
 * each cut to its whole sentences within FINDING_MAX.
 */
export function toFindings(answer: string, aggregate: unknown): string[] {
  const allowed = hostsIn(aggregate);
  const keep = (url: string) => {
    const h = hostOf(url);
    return h !== null && allowed.has(h);
  };
  const text = answer
    .replace(HIDDEN_ELEMENT, "")
    .replace(HTML_TAG, "")
    .replace(MARKDOWN_LINK, (_, label: string, url: string) => (keep(url) ? `${label} (${url})` : label))
    .replace(BARE_URL, (url) => (keep(url) ? url : ""));
  const findings: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    if (HEADING.test(raw)) continue;
    // Cleaned without a cut first (Infinity), so the cut below sees the sentences.
    const line = wholeSentences(displayLabel(raw.replace(LIST_MARKER, "").replace(EMPHASIS, ""), Infinity).replace(/\s+/g, " ").trim(), FINDING_MAX);
    if (line !== "") findings.push(line);
    if (findings.length === MAX_FINDINGS) break;
  }
  return findings;
}
