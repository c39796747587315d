// npm run bench:visitors — the site lane's exact visitor and visit state on its own: heap per visitor of the
// day and CPU per row (RollupState.observe, then also the visit rule, VisitState.attribute, as the site lane's
// turn runs them), without HTTP or a database. Run with --expose-gc (the script does).
// The last stdout line is one JSON object with the figures.
import { RollupState, newDeltaSink } from "../../gateway/src/rollups/rollup-state.ts";
import type { RollupRow } from "../../gateway/src/rollups/rollup-state.ts";
import { type VisitRow, VisitState } from "../../gateway/src/lanes/visit-state.ts";
import { HOUR_MS } from "@svc/core";

const VISITORS = 100_000;
const ROWS = 300_000;
const DAY = Date.UTC(2026, 10, 21);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc (npm run bench:visitors does)");

let seed = 1;
const rand = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
const hashes = Array.from({ length: VISITORS }, (_, i) => {
  const b = Buffer.alloc(32);
  b.writeUInt32BE(i, 0);
  b.writeUInt32BE((0x9e3779b9 ^ i) >>> 0, 28);
  return b;
});
const pages = Array.from({ length: 500 }, (_, i) => `/p/${i}`);
const row = (visitor: number, ts: number, page: string): RollupRow & VisitRow => ({
  kind: "event", ts, name: "pageview", page, actor: "human", source: visitor % 3 === 0 ? "Google" : null, channel: visitor % 3 === 0 ? "search" : "direct",
  utm_source: null, utm_medium: null, utm_campaign: null, country: ["DE", "US", "FR", "GB", "IN"][visitor % 5]!, device: "desktop",
  browser: ["Chrome", "Firefox", "Safari"][visitor % 3]!, os: ["Windows", "macOS", "Linux"][visitor % 3]!, ai_name: null, rule: "default", visitor_hash: hashes[visitor]!,
  referrer_host: visitor % 3 === 0 ? "www.google.com" : null, utm_term: null, utm_content: null,
});

// Heap: every visitor once (one row, 14 counters touched).
gc();
const before = process.memoryUsage().heapUsed;
const state = new RollupState(1, DAY);
let sink = newDeltaSink();
for (let v = 0; v < VISITORS; v++) {
  state.observe(row(v, DAY + 9 * HOUR_MS + v, pages[v % pages.length]!), sink);
  if (v % 1000 === 0) sink = newDeltaSink();
}
sink = newDeltaSink();
gc();
const bytesPerVisitor = Math.round((process.memoryUsage().heapUsed - before) / VISITORS);
// Heap of the visit state: one open visit per visitor of the day.
gc();
const visitsBefore = process.memoryUsage().heapUsed;
const visitState = new VisitState();
for (let v = 0; v < VISITORS; v++) visitState.attribute(row(v, DAY + 9 * HOUR_MS + v, pages[v % pages.length]!), hashes[v]!.toString("latin1"));
gc();
const visitBytesPerVisitor = Math.round((process.memoryUsage().heapUsed - visitsBefore) / VISITORS);
// Read after the measurement, so both states are still alive when the heap is measured.
const counted = state.visitors;
const openVisits = visitState.size;

// CPU: Zipf-ish pages over returning visitors, 15 rows a batch, as under load.
const rows = Array.from({ length: ROWS }, (_, i) => {
  const v = Math.floor(rand() * 10_000);
  return row(v, DAY + 10 * HOUR_MS + i * 10, pages[Math.floor(rand() ** 3 * pages.length)]!);
});
// The visit rule rewrites rows in place; doing it again in a later round writes the same values.
// The value Maps' lookups a row of the last round (RollupState.valueLookups): the counters not at the visitor's cursor.
let lookupsPerRow = 0;
const timed = (withVisits: boolean): number => {
  const timings: number[] = [];
  for (let round = 0; round < 3; round++) {
    const copies = rows;
    const s = new RollupState(1, DAY);
    const visits = new VisitState();
    let out = newDeltaSink();
    // CPU time, not wall time: on the shared 2-core box wall-clock figures swung 3–26 µs a row between runs.
    const started = process.cpuUsage();
    // One loop per mode: a branch on the mode inside it made the observe-only loop ~6 % slower.
    if (withVisits) {
      for (let i = 0; i < copies.length; i++) {
        const r = copies[i]!;
        const key = r.visitor_hash.toString("latin1");
        // As the site lane's turn: one lookup of the visitor for both states.
        const visitor = s.visitorOf(key, r);
        visits.attribute(r, key, visitor);
        s.observeAs(r, out, visitor);
        if (i % 15 === 14) out = newDeltaSink();
      }
    } else {
      for (let i = 0; i < copies.length; i++) {
        const r = copies[i]!;
        s.observe(r, out, r.visitor_hash.toString("latin1"));
        if (i % 15 === 14) out = newDeltaSink();
      }
    }
    const used = process.cpuUsage(started);
    timings.push((used.user + used.system) / copies.length);
    lookupsPerRow = Math.round((s.valueLookups / copies.length) * 100) / 100;
  }
  return Math.round(Math.min(...timings) * 100) / 100;
};
const usPerRow = timed(false);
const usPerRowWithVisits = timed(true);

console.log(`visitor state: ${bytesPerVisitor} B of heap per visitor (one row, 15 counters); observe ${usPerRow} µs a row, ${lookupsPerRow} value lookups a row`);
console.log(`visit state: ${visitBytesPerVisitor} B of heap per visitor (${openVisits.toLocaleString("en")} open visits); visit rule + observe ${usPerRowWithVisits} µs a row`);
console.log(
  JSON.stringify({
    bench: "visitor-state",
    visitors: counted,
    heap_bytes_per_visitor: bytesPerVisitor,
    visit_heap_bytes_per_visitor: visitBytesPerVisitor,
    rows: ROWS,
    observe_us_per_row: usPerRow,
    visit_and_observe_us_per_row: usPerRowWithVisits,
    value_lookups_per_row: lookupsPerRow,
  }),
);
