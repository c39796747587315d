// Anomaly flags (GET …/anomalies) as people read them: grouped by kind, each kind with its count, its flags
// in sentences, and only the kinds about the actor on screen. The API's numbers (observed, expected, score
// and their basis) stay available as each sentence's tooltip. Every field is read defensively: the card
// must survive a gateway that sends odd shapes.
import type { ActorParam } from "./types.ts";

interface Measured {
  value?: unknown;
  basis?: unknown;
}
export interface Flag {
  kind?: unknown;
  subject?: unknown;
  window?: { start?: unknown; end?: unknown };
  observed?: Measured;
  expected?: Measured;
  score?: Measured;
  severity?: unknown;
}

interface KindText {
  readonly title: string;
  /** Which actor choices the kind is about. */
  readonly actors: readonly ActorParam[];
  sentence(subject: string, observed: string, expected: string): string;
}

const KINDS: Readonly<Record<string, KindText>> = {
  crawler_spike: {
    title: "AI crawler spikes",
    actors: ["ai_crawler", "all"],
    sentence: (s, o, e) => `${s} fetched ${o} pages, where about ${e} is usual at this time.`,
  },
  human_drop: {
    title: "Fewer visitors than usual",
    actors: ["human", "humans", "all"],
    sentence: (_s, o, e) => `${o} visitors, where about ${e} is usual for these hours.`,
  },
  crawled_never_referred: {
    title: "Pages AI crawlers read but no assistant sent anyone to",
    actors: ["ai_crawler", "human_via_ai", "humans", "all"],
    sentence: (s, o) => `${s} was crawled ${o} ${o === "1" ? "time" : "times"}, with no visitor from an AI assistant yet.`,
  },
};

const SEVERITY_ORDER: Readonly<Record<string, number>> = { high: 0, medium: 1, low: 2 };

export interface ReadableFlag {
  readonly severity: string;
  readonly sentence: string;
  /** The exact basis of the sentence's numbers, for its tooltip. */
  readonly basis: string;
  readonly start: string | null;
  readonly end: string | null;
  readonly subject: string;
}
export interface FlagGroup {
  readonly kind: string;
  readonly title: string;
  readonly flags: readonly ReadableFlag[];
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? String(Math.round(v * 10) / 10) : "–");
const str = (v: unknown) => (typeof v === "string" ? v : "");

/** `label` turns a visitor-supplied subject into safe text (safe-links.ts `label`). */
export function groupFlags(flags: readonly Flag[], actor: ActorParam, label: (s: string) => string): FlagGroup[] {
  const groups = new Map<string, ReadableFlag[]>();
  for (const flag of flags) {
    if (flag === null || typeof flag !== "object") continue;
    const kind = str(flag.kind);
    const text = KINDS[kind];
    if (text && !text.actors.includes(actor)) continue;
    const subject = label(str(flag.subject)) || "–";
    const observed = num(flag.observed?.value);
    const expected = num(flag.expected?.value);
    const basis = `observed ${observed} (${str(flag.observed?.basis) || "?"}), expected ${expected} (${str(flag.expected?.basis) || "?"}), score ${num(flag.score?.value)} (${str(flag.score?.basis) || "?"})`;
    const readable: ReadableFlag = {
      severity: ["high", "medium", "low"].includes(str(flag.severity)) ? str(flag.severity) : "low",
      sentence: text ? text.sentence(subject, observed, expected) : `${label(kind) || "Unusual"}: ${subject}.`,
      basis,
      start: typeof flag.window?.start === "string" ? flag.window.start : null,
      end: typeof flag.window?.end === "string" ? flag.window.end : null,
      subject,
    };
    let list = groups.get(kind);
    if (!list) groups.set(kind, (list = []));
    list.push(readable);
  }
  const rank = (f: ReadableFlag) => SEVERITY_ORDER[f.severity] ?? 3;
  // The most severe flag first within a kind, and the kind with the most severe flag first.
  return [...groups]
    .map(([kind, list]) => ({ kind, title: KINDS[kind]?.title ?? (label(kind) || "Other"), flags: list.sort((a, b) => rank(a) - rank(b)) }))
    .sort((a, b) => rank(a.flags[0]!) - rank(b.flags[0]!));
}
