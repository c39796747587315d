// One line of the actor corpus format (core/test/fixtures/actors-corpus-README.md "Format"): the classifier input plus, optionally,
// the expected label. Used by `npm run classify`, the tests and the core benchmark.
import { ACTORS, type Actor, type ClassifyInput } from "../types.ts";

export interface CorpusLine {
  readonly input: ClassifyInput;
  /** The labelled actor, when the line carries `expected`. */
  readonly expected: Actor | undefined;
  /** The labelled name; only meaningful when `expected` is present (null for human and bot). */
  readonly name: string | null;
  readonly src: string | undefined;
}

export type CorpusLineResult = { readonly ok: true; readonly line: CorpusLine } | { readonly ok: false; readonly error: string };

const isActor = (v: unknown): v is Actor => typeof v === "string" && (ACTORS as readonly string[]).includes(v);
const describe = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v);

/** Parses one line; an error names the offending key so the caller can prefix the line number. */
export function parseCorpusLine(text: string): CorpusLineResult {
  if (text.trim() === "") return { ok: false, error: "empty line; expected a JSON object" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `not valid JSON (${(error as Error).message})` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: `expected a JSON object, got ${describe(value)}` };
  }
  const o = value as Record<string, unknown>;
  if (typeof o.ua !== "string") return { ok: false, error: `"ua" must be a string, got ${describe(o.ua)}` };
  for (const key of ["referrer", "utm_source"] as const) {
    if (o[key] !== undefined && o[key] !== null && typeof o[key] !== "string") {
      return { ok: false, error: `"${key}" must be a string or null, got ${describe(o[key])}` };
    }
  }
  if (typeof o.js !== "boolean") return { ok: false, error: `"js" must be true or false, got ${describe(o.js)}` };
  if (o.expected !== undefined && !isActor(o.expected)) {
    return { ok: false, error: `"expected" must be one of ${ACTORS.join(", ")}, got ${JSON.stringify(o.expected)}` };
  }
  if (o.name !== undefined && o.name !== null && typeof o.name !== "string") {
    return { ok: false, error: `"name" must be a string or null, got ${describe(o.name)}` };
  }
  if (o.src !== undefined && typeof o.src !== "string") return { ok: false, error: `"src" must be a string, got ${describe(o.src)}` };
  return {
    ok: true,
    line: {
      input: {
        ua: o.ua,
        referrer: (o.referrer as string | null | undefined) ?? null,
        utm_source: (o.utm_source as string | null | undefined) ?? null,
        js: o.js,
      },
      expected: o.expected as Actor | undefined,
      name: (o.name as string | null | undefined) ?? null,
      src: o.src as string | undefined,
    },
  };
}
