// npm run bench:visitors — the site actor's exact visitor state on its own: heap per visitor of the day and
// CPU per row (RollupState.observe), without HTTP or a database. Run with --expose-gc (the script does).
// The last stdout line is one JSON object with the figures.
import { RollupState, newDeltaSink } from "../../gateway/src/actors/rollup-state.ts";
import type { RollupRow } from "../../gateway/src/actors/rollup-state.ts";

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
const row = (visitor: number, ts: number, page: string): RollupRow => ({
  kind: "event", ts, name: "pageview", page, actor: "human", source: visitor % 3 === 0 ? "Google" : null, channel: visitor % 3 === 0 ? "search" : "direct",
  utm_source: null, utm_medium: null, utm_campaign: null, country: ["DE", "US", "FR", "GB", "IN"][visitor % 5]!, device: "desktop",
  browser: ["Chrome", "Firefox", "Safari"][visitor % 3]!, os: ["Windows", "macOS", "Linux"][visitor % 3]!, ai_name: null, rule: "default", visitor_hash: hashes[visitor]!,
});

// Heap: every visitor once (one row, 14 counters touched).
gc();
const before = process.memoryUsage().heapUsed;
const state = new RollupState(1, DAY);
let sink = newDeltaSink();
for (let v = 0; v < VISITORS; v++) {
  state.observe(row(v, DAY + 9 * 3_600_000 + v, pages[v % pages.length]!), sink);
  if (v % 1000 === 0) sink = newDeltaSink();
}
sink = newDeltaSink();
gc();
const bytesPerVisitor = Math.round((process.memoryUsage().heapUsed - before) / VISITORS);
// Read after the measurement, so the state is still alive when the heap is measured.
const counted = state.visitors;

// CPU: Zipf-ish pages over returning visitors, 15 rows a batch, as under load.
const rows = Array.from({ length: ROWS }, (_, i) => {
  const v = Math.floor(rand() * 10_000);
  return row(v, DAY + 10 * 3_600_000 + i * 10, pages[Math.floor(rand() ** 3 * pages.length)]!);
});
const timings: number[] = [];
for (let round = 0; round < 3; round++) {
  const s = new RollupState(1, DAY);
  let out = newDeltaSink();
  const started = performance.now();
  for (let i = 0; i < rows.length; i++) {
    s.observe(rows[i]!, out);
    if (i % 15 === 14) out = newDeltaSink();
  }
  timings.push(((performance.now() - started) * 1000) / rows.length);
}
const usPerRow = Math.round(Math.min(...timings) * 100) / 100;
console.log(`visitor state: ${bytesPerVisitor} B of heap per visitor (one row, 14 counters); observe ${usPerRow} µs a row`);
console.log(JSON.stringify({ bench: "visitor-state", visitors: counted, heap_bytes_per_visitor: bytesPerVisitor, rows: ROWS, observe_us_per_row: usPerRow }));
