// `npm run bench:copy`: ns per row of the COPY encoders, the writer's hottest code (every ingested row goes
// through one): rows → the bytes of a batch's CopyData. Compares, on the same rows, the binary row encoders generated
// from the column tables (gateway/src/writer/copy-binary.ts) and the same written by hand, after checking that both
// write the same bytes; and, as the reference they replaced two steps back, the text-format string encoders (fields
// concatenated per line, lines per batch, then measured and written into the message's buffer as copy-batch.ts did
// before the seventh pass). The text byte encoder of the seventh to twelfth passes is measured by running this
// bench in a checkout of that time.
//
//   npm run bench:copy -- --rows 20000 --rounds 15
import { parseArgs } from "node:util";
import { createHash } from "node:crypto";
import { CopyBytes, encodeEvents, encodeHits } from "../../gateway/src/writer/copy-binary.ts";
import { type EventRow, type HitRow, type PropValue } from "../../gateway/src/storage/rows.ts";

const { values: args } = parseArgs({
  options: { rows: { type: "string", default: "20000" }, rounds: { type: "string", default: "15" }, batch: { type: "string", default: "38" } },
});
const ROWS = Number(args.rows);
const ROUNDS = Number(args.rounds);
// Rows per batch (one CopyBytes each, as a commit has): 38 is the bench's batch at 64 connections.
const BATCH = Number(args.batch);

// The binary encoders written by hand: what the generated ones must match.
function handEventRow(o: CopyBytes, r: EventRow): void {
  o.fields(26);
  o.int(r.site_id); o.timestamp(r.ts); o.text(r.name); o.text(r.page);
  o.nullableText(r.hostname); o.nullableText(r.referrer_host); o.nullableText(r.source);
  o.text(r.channel); o.nullableText(r.utm_source); o.nullableText(r.utm_medium);
  o.nullableText(r.utm_campaign); o.nullableText(r.utm_term); o.nullableText(r.utm_content);
  o.nullableText(r.country); o.text(r.device); o.nullableText(r.browser); o.nullableText(r.os);
  o.int(r.screen_width); o.text(r.actor); o.nullableText(r.ai_name); o.text(r.rule);
  o.bytea(r.visitor_hash); o.jsonb(r.props); o.nullableText(r.own_referrer_host);
  o.nullableText(r.browser_version); o.nullableText(r.os_version);
}

function handHitRow(o: CopyBytes, r: HitRow): void {
  o.fields(23);
  o.int(r.site_id); o.timestamp(r.ts); o.text(r.method); o.text(r.page); o.smallint(r.status);
  o.nullableText(r.referrer_host); o.nullableText(r.source); o.text(r.channel);
  o.nullableText(r.utm_source); o.nullableText(r.utm_medium); o.nullableText(r.utm_campaign);
  o.nullableText(r.utm_term); o.nullableText(r.utm_content); o.nullableText(r.country);
  o.text(r.device); o.nullableText(r.browser); o.nullableText(r.os); o.text(r.actor);
  o.nullableText(r.ai_name); o.text(r.rule); o.bytea(r.visitor_hash); o.nullableText(r.browser_version);
  o.nullableText(r.os_version);
}

// COPY's text escapes, as the string encoders applied them.
const SPECIAL = /[\\\t\n\r\0]/;
const SPECIAL_ALL = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };
const copyText = (value: string): string => (SPECIAL.test(value) ? value.replaceAll("\0", "").replace(SPECIAL_ALL, (c) => ESCAPES[c]!) : value);

// The string encoders before (commit 425cc30), their codecs as they were.
const NULL = "\\N";
const nullableText = (v: string | null): string => (v === null ? NULL : copyText(v));
const int = (v: number | null): string => (v === null ? NULL : String(v));
let lastMs = Number.NaN;
let lastIso = "";
const timestamp = (ms: number): string => (ms === lastMs ? lastIso : ((lastMs = ms), (lastIso = new Date(ms).toISOString())));
const bytea = (v: Buffer): string => "\\\\x" + v.toString("hex");
const jsonb = (p: Record<string, PropValue> | null): string => (p === null ? NULL : copyText(JSON.stringify(p)));
const text = copyText;

function stringEventLine(r: EventRow): string {
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

function stringHitLine(r: HitRow): string {
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

/** Batches of `BATCH` rows, each into its own buffer, as the writer's commits are; the batches' bytes joined for the check. */
function inBatches<T>(encode: (rows: readonly T[]) => Buffer): (rows: readonly T[]) => Buffer {
  return (rows) => {
    const out: Buffer[] = [];
    for (let at = 0; at < rows.length; at += BATCH) out.push(encode(rows.slice(at, at + BATCH)));
    return Buffer.concat(out);
  };
}

function bytesWith<T>(line: (o: CopyBytes, row: T) => void): (rows: readonly T[]) => Buffer {
  return (rows) => {
    const out = new CopyBytes();
    for (const row of rows) line(out, row);
    return out.written();
  };
}

// The string path as the writer ran it: a batch's lines joined by `+=`, then measured and written into the message.
function stringWith<T>(line: (row: T) => string): (rows: readonly T[]) => Buffer {
  return (rows) => {
    let text = "";
    for (const row of rows) text += line(row);
    const out = Buffer.allocUnsafe(Buffer.byteLength(text));
    out.write(text, 0);
    return out;
  };
}

// Rows shaped like the ingest's: about half the optional columns set, some props, a few strings to escape, one time
// stamp a batch (a site lane stamps a hand-over with one time).
const PAGES = ["/", "/pricing", "/docs/getting-started", "/blog/2026/11/why-cookieless", "/search?q=a\tb", "/über"];
function events(n: number): EventRow[] {
  return Array.from({ length: n }, (_, i) => ({
    site_id: 1 + (i % 7), ts: Date.UTC(2026, 10, 21, 8) + Math.floor(i / BATCH) * 37, name: i % 9 === 0 ? "Signup" : "pageview",
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
    site_id: 1 + (i % 7), ts: Date.UTC(2026, 10, 21, 8) + Math.floor(i / BATCH) * 41, method: "GET", page: PAGES[i % PAGES.length]!, status: i % 13 === 0 ? 404 : 200,
    referrer_host: null, source: null, channel: "direct", utm_source: null, utm_medium: null, utm_campaign: null, utm_term: null,
    utm_content: null, country: "US", device: "bot", browser: null, os: null, actor: "ai_crawler", ai_name: "GPTBot",
    rule: "ua:gptbot", visitor_hash: createHash("sha256").update(String(i % 50)).digest(), browser_version: null, os_version: null,
  }));
}

interface Variant<T> {
  readonly name: string;
  readonly encode: (rows: readonly T[]) => Buffer;
  /** Another format: not compared byte for byte with the first variant. */
  readonly format?: "text";
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
    if (v.format !== "text" && !v.encode(rows).equals(reference)) throw new Error(`${kind}: ${v.name} writes other bytes than ${variants[0]!.name}`);
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
  for (const v of variants) console.log(`${kind.padEnd(7)} ${v.name.padEnd(24)} ${median(times.get(v.name)!).toFixed(0).padStart(6)} ns/row`);
  if (sink === 0) console.log("");
}

console.log(`${ROWS} rows per kind in batches of ${BATCH}, CPU time, median of ${ROUNDS} rounds (after 3 warm-up rounds)`);
measure("events", events(ROWS), [
  { name: "binary, generated", encode: inBatches((rows: readonly EventRow[]) => encodeEvents(rows).written()) },
  { name: "binary, hand-written", encode: inBatches(bytesWith(handEventRow)) },
  { name: "text string (before)", encode: inBatches(stringWith(stringEventLine)), format: "text" },
]);
measure("hits", hits(ROWS), [
  { name: "binary, generated", encode: inBatches((rows: readonly HitRow[]) => encodeHits(rows).written()) },
  { name: "binary, hand-written", encode: inBatches(bytesWith(handHitRow)) },
  { name: "text string (before)", encode: inBatches(stringWith(stringHitLine)), format: "text" },
]);
