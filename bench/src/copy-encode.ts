// `npm run bench:copy`: ns per row of the COPY line encoders, the writer's hottest code (every ingested row
// goes through one). Compares, on the same rows, the encoders generated from the column tables
// (gateway/src/writer/copy-text.ts) with the hand-written concatenation they replaced and with a plain loop
// over the columns, after checking that all three write the same bytes.
//
//   npm run bench:copy -- --rows 20000 --rounds 15
import { parseArgs } from "node:util";
import { createHash } from "node:crypto";
import { COPY_CODECS, encodeEvents, encodeHits } from "../../gateway/src/writer/copy-text.ts";
import { type ColumnTable, EVENT_COLUMNS, type EventRow, HIT_COLUMNS, type HitRow } from "../../gateway/src/storage/rows.ts";

const { values: args } = parseArgs({
  options: { rows: { type: "string", default: "20000" }, rounds: { type: "string", default: "15" } },
});
const ROWS = Number(args.rows);
const ROUNDS = Number(args.rounds);

const { int, text, nullableText, timestamp, bytea, jsonb } = COPY_CODECS;

// The encoders as written by hand before the column tables (commit e7818b3).
function handEventLine(r: EventRow): string {
  return (
    int(r.site_id) + "\t" + timestamp(r.ts) + "\t" + text(r.name) + "\t" + text(r.page) + "\t" +
    nullableText(r.hostname) + "\t" + nullableText(r.referrer_host) + "\t" + nullableText(r.source) + "\t" +
    text(r.channel) + "\t" + nullableText(r.utm_source) + "\t" + nullableText(r.utm_medium) + "\t" +
    nullableText(r.utm_campaign) + "\t" + nullableText(r.utm_term) + "\t" + nullableText(r.utm_content) + "\t" +
    nullableText(r.country) + "\t" + text(r.device) + "\t" + nullableText(r.browser) + "\t" + nullableText(r.os) + "\t" +
    int(r.screen_width) + "\t" + text(r.actor) + "\t" + nullableText(r.ai_name) + "\t" + text(r.rule) + "\t" +
    bytea(r.visitor_hash) + "\t" + jsonb(r.props) + "\t" + nullableText(r.own_referrer_host) + "\t" +
    nullableText(r.browser_version) + "\t" + nullableText(r.os_version) + "\n"
  );
}

function handHitLine(r: HitRow): string {
  return (
    int(r.site_id) + "\t" + timestamp(r.ts) + "\t" + text(r.method) + "\t" + text(r.page) + "\t" + int(r.status) + "\t" +
    nullableText(r.referrer_host) + "\t" + nullableText(r.source) + "\t" + text(r.channel) + "\t" +
    nullableText(r.utm_source) + "\t" + nullableText(r.utm_medium) + "\t" + nullableText(r.utm_campaign) + "\t" +
    nullableText(r.utm_term) + "\t" + nullableText(r.utm_content) + "\t" + nullableText(r.country) + "\t" +
    text(r.device) + "\t" + nullableText(r.browser) + "\t" + nullableText(r.os) + "\t" + text(r.actor) + "\t" +
    nullableText(r.ai_name) + "\t" + text(r.rule) + "\t" + bytea(r.visitor_hash) + "\t" + nullableText(r.browser_version) + "\t" +
    nullableText(r.os_version) + "\n"
  );
}

// The generic alternative: encoders looked up per column at run time.
function loopLine(columns: ColumnTable): (row: Record<string, unknown>) => string {
  const names = Object.keys(columns);
  const encoders = names.map((name) => {
    const { codec, nullable } = columns[name]!;
    return (codec === "text" && nullable === true ? nullableText : COPY_CODECS[codec]) as (value: unknown) => string;
  });
  return (row) => {
    let line = encoders[0]!(row[names[0]!]);
    for (let i = 1; i < names.length; i++) line += "\t" + encoders[i]!(row[names[i]!]);
    return line + "\n";
  };
}

function encodeWith<T>(line: (row: T) => string): (rows: readonly T[]) => string {
  return (rows) => {
    let out = "";
    for (const row of rows) out += line(row);
    return out;
  };
}

// Rows shaped like the ingest's: about half the optional columns set, some props, a few strings to escape.
const PAGES = ["/", "/pricing", "/docs/getting-started", "/blog/2026/11/why-cookieless", "/search?q=a\tb", "/über"];
function events(n: number): EventRow[] {
  return Array.from({ length: n }, (_, i) => ({
    site_id: 1 + (i % 7), ts: Date.UTC(2026, 10, 21, 8) + i * 37, name: i % 9 === 0 ? "Signup" : "pageview",
    page: PAGES[i % PAGES.length]!, hostname: "example.com", referrer_host: i % 3 === 0 ? "www.google.com" : null,
    source: i % 3 === 0 ? "Google" : null, channel: i % 3 === 0 ? "search" : "direct",
    utm_source: i % 5 === 0 ? "newsletter" : null, utm_medium: i % 5 === 0 ? "email" : null, utm_campaign: i % 5 === 0 ? "nov" : null,
    utm_term: null, utm_content: null, country: i % 11 === 0 ? null : "DE", device: "desktop", browser: "Firefox", os: "Linux",
    screen_width: i % 4 === 0 ? null : 1920, actor: "human", ai_name: null, rule: "default-human",
    visitor_hash: createHash("sha256").update(String(i % 500)).digest(), props: i % 9 === 0 ? { plan: "pro", seats: 3 } : null,
    own_referrer_host: i % 3 === 0 ? "www.google.com" : null, browser_version: "133.0", os_version: i % 2 === 0 ? null : "10",
  }));
}
function hits(n: number): HitRow[] {
  return Array.from({ length: n }, (_, i) => ({
    site_id: 1 + (i % 7), ts: Date.UTC(2026, 10, 21, 8) + i * 41, method: "GET", page: PAGES[i % PAGES.length]!, status: i % 13 === 0 ? 404 : 200,
    referrer_host: null, source: null, channel: "direct", utm_source: null, utm_medium: null, utm_campaign: null, utm_term: null,
    utm_content: null, country: "US", device: "bot", browser: null, os: null, actor: "ai_crawler", ai_name: "GPTBot",
    rule: "ua:gptbot", visitor_hash: createHash("sha256").update(String(i % 50)).digest(), browser_version: null, os_version: null,
  }));
}

interface Variant<T> {
  readonly name: string;
  readonly encode: (rows: readonly T[]) => string;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

// Rounds alternate between the variants so a noisy neighbour slows them alike; the median round counts. Each
// round is timed in this process's CPU time, not wall time: on the shared 2-core box wall time mostly
// measured how often the process was preempted.
function measure<T>(kind: string, rows: readonly T[], variants: ReadonlyArray<Variant<T>>): void {
  const reference = variants[0]!.encode(rows);
  for (const v of variants) {
    if (v.encode(rows) !== reference) throw new Error(`${kind}: ${v.name} writes other bytes than ${variants[0]!.name}`);
  }
  const times = new Map(variants.map((v) => [v.name, [] as number[]]));
  let sink = 0;
  for (let round = 0; round < ROUNDS + 3; round++) {
    for (const v of variants) {
      const start = process.cpuUsage();
      sink += v.encode(rows).length;
      const used = process.cpuUsage(start);
      const ns = ((used.user + used.system) * 1000) / rows.length;
      if (round >= 3) times.get(v.name)!.push(ns);
    }
  }
  for (const v of variants) console.log(`${kind.padEnd(7)} ${v.name.padEnd(12)} ${median(times.get(v.name)!).toFixed(0).padStart(6)} ns/row`);
  if (sink === 0) console.log("");
}

console.log(`${ROWS} rows per kind, CPU time, median of ${ROUNDS} rounds (after 3 warm-up rounds)`);
measure("events", events(ROWS), [
  { name: "hand-written", encode: encodeWith(handEventLine) },
  { name: "generated", encode: encodeEvents },
  { name: "loop", encode: encodeWith(loopLine(EVENT_COLUMNS)) as (rows: readonly EventRow[]) => string },
]);
measure("hits", hits(ROWS), [
  { name: "hand-written", encode: encodeWith(handHitLine) },
  { name: "generated", encode: encodeHits },
  { name: "loop", encode: encodeWith(loopLine(HIT_COLUMNS)) as (rows: readonly HitRow[]) => string },
]);
