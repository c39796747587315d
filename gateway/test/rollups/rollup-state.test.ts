// The actor's visitor state against a naive recomputation: for every (hour, actor, dimension, value), the
// summed deltas equal the row counts and the distinct visitors of that hour and of the day — including
// crawlers that touch hundreds of counters (the per-visitor list turns into a Map) and batches of any size.
import { describe, expect, it } from "vitest";
import { type DeltaSink, type RollupRow, RollupState, forEachDimension, markConsumed, newDeltaSink } from "../../src/rollups/rollup-state.ts";
import { eventRow, hitRow, visitorHash } from "../support/sample-rows.ts";
import { HOUR_MS } from "@svc/core";

const DAY = Date.UTC(2026, 10, 21);

function prng(seed: number) {
  return () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
}

interface Sums {
  pageviews: number;
  events: number;
  hits: number;
  visitors_hour: number;
  visitors_day: number;
}

function naive(rows: readonly RollupRow[]): Map<string, Sums> {
  const out = new Map<string, Sums & { hourSet: Set<string> }>();
  const daySets = new Map<string, Set<string>>();
  for (const row of rows) {
    const hour = row.ts - (row.ts % HOUR_MS);
    const v = row.visitor_hash.toString("hex");
    // Every row once under its actor's dimensions, and once more in the all-actor total.
    const count = (actor: string) => (dim: string, value: string) => {
      const key = `${hour}|${actor}|${dim}|${value}`;
      let s = out.get(key);
      if (!s) out.set(key, (s = { pageviews: 0, events: 0, hits: 0, visitors_hour: 0, visitors_day: 0, hourSet: new Set() }));
      if (row.kind === "hit") s.hits++;
      else if (row.name === "pageview") s.pageviews++;
      else s.events++;
      // A page's visitors are its viewers: a custom event there adds to its events only.
      if (dim === "page" && row.kind === "event" && row.name !== "pageview") return;
      // The all-actor total counts people and agents: crawlers and bots add hits only.
      if (actor === "all" && (row.actor === "ai_crawler" || row.actor === "bot")) return;
      if (!s.hourSet.has(v)) {
        s.hourSet.add(v);
        s.visitors_hour++;
      }
      const dayKey = `${actor}|${dim}|${value}`;
      let day = daySets.get(dayKey);
      if (!day) daySets.set(dayKey, (day = new Set()));
      if (!day.has(v)) {
        day.add(v);
        s.visitors_day++;
      }
    };
    forEachDimension(row, (visit, dim, value) => visit(dim, value), count(row.actor));
    count("all")("total", "");
  }
  return new Map([...out].map(([k, { hourSet: _, ...sums }]) => [k, sums]));
}

/**
 * The summed deltas of `rows` counted in batches. `consume`: each batch's deltas are marked consumed once read, as a
 * site lane does when their commit settled, so later batches reuse their delta objects.
 */
function observed(rows: readonly RollupRow[], batchSizes: () => number, consume = false): Map<string, Sums> {
  const state = new RollupState(1, DAY);
  const out = new Map<string, Sums>();
  let sink: DeltaSink = newDeltaSink();
  let left = batchSizes();
  const drain = () => {
    for (const d of sink.deltas) {
      const key = `${d.hour}|${d.actor}|${d.dim}|${d.value}`;
      const s = out.get(key) ?? { pageviews: 0, events: 0, hits: 0, visitors_hour: 0, visitors_day: 0 };
      s.pageviews += d.pageviews;
      s.events += d.events;
      s.hits += d.hits;
      s.visitors_hour += d.visitors_hour;
      s.visitors_day += d.visitors_day;
      out.set(key, s);
    }
    if (consume) markConsumed(sink);
    sink = newDeltaSink();
    left = batchSizes();
  };
  for (const row of rows) {
    state.observe(row, sink);
    if (--left <= 0) drain();
  }
  drain();
  return out;
}

function randomDay(seed: number, count: number): RollupRow[] {
  const rand = prng(seed);
  const pick = <T,>(a: readonly T[]) => a[Math.floor(rand() * a.length)]!;
  const rows: RollupRow[] = [];
  let ts = DAY + 9 * HOUR_MS;
  for (let i = 0; i < count; i++) {
    ts += Math.floor(rand() * 40_000); // ~4 hours over 700 rows
    if (rand() < 0.6) {
      rows.push({
        kind: "event",
        ...eventRow({ ts, visitor_hash: visitorHash(`h${Math.floor(rand() * 12)}`), page: `/p${Math.floor(rand() * 8)}`, name: pick(["pageview", "pageview", "Signup"]), source: pick([null, "Google", "ChatGPT"]), utm_source: pick([null, "hn"]), ai_name: null }),
      });
    } else {
      // Two crawlers walking 200 pages: each visits far more than 32 counters.
      rows.push({
        kind: "hit",
        ...hitRow({ ts, visitor_hash: visitorHash(`c${Math.floor(rand() * 2)}`), actor: "ai_crawler", ai_name: "GPTBot", page: `/doc/${Math.floor(rand() * 200)}`, status: pick([200, 200, 404, 301]) }),
      });
    }
  }
  return rows;
}

describe("RollupState", () => {
  it.each([
    { label: "one row a batch", seed: 1, batch: () => 1 },
    { label: "batches of 1..40 rows", seed: 2, batch: (r => () => 1 + Math.floor(r() * 40))(prng(9)) },
    { label: "one batch for everything", seed: 3, batch: () => Infinity },
    { label: "batches of 1..40 rows, each consumed before the next", seed: 4, batch: (r => () => 1 + Math.floor(r() * 40))(prng(11)), consume: true },
    { label: "one row a batch, each consumed before the next", seed: 5, batch: () => 1, consume: true },
  ])("sums to the naive counts with $label", ({ seed, batch, consume }) => {
    const rows = randomDay(seed, 700);
    const expected = naive(rows);
    expect(expected.size).toBeGreaterThan(300);
    expect(observed(rows, batch, consume)).toEqual(expected);
  });

  it("reuses a counter's delta object only once its batch was consumed: a batch in flight keeps its counts", () => {
    const state = new RollupState(1, DAY);
    const row = (ts: number, v: string): RollupRow => ({ kind: "event", ...eventRow({ ts, visitor_hash: visitorHash(v) }) });
    const inFlight = newDeltaSink();
    state.observe(row(DAY + 1000, "a"), inFlight);
    const counted = structuredClone(inFlight.deltas.map(({ slot: _, ...d }) => d));
    const next = newDeltaSink();
    state.observe(row(DAY + 2000, "b"), next);
    state.observe(row(DAY + 3000, "a"), next);
    // The first batch has not settled: the second counted into new objects and left it as it was.
    expect(inFlight.deltas.map(({ slot: _, ...d }) => d)).toEqual(counted);
    expect(next.deltas.some((d) => inFlight.deltas.includes(d))).toBe(false);
    const total = (sink: DeltaSink) => sink.deltas.find((d) => d.dim === "total" && d.actor === "human")!;
    expect(total(next)).toMatchObject({ pageviews: 2, visitors_hour: 1, visitors_day: 1 });

    markConsumed(inFlight);
    markConsumed(next);
    const third = newDeltaSink();
    state.observe(row(DAY + HOUR_MS + 4000, "a"), third);
    // Both settled: the third batch's counters reset their objects (of the latest batch) for the new hour.
    expect(third.deltas.every((d) => next.deltas.includes(d))).toBe(true);
    expect(total(third)).toMatchObject({ hour: DAY + HOUR_MS, pageviews: 1, visitors_hour: 1, visitors_day: 0 });
  });

  // One visitor's rows, and the value Maps' lookups each made: a counter is taken from the visitor's cursor when it is
  // the one (countDimension), so only a value new to the visitor, or one away from where its first row left it, is
  // looked up. The sample row counts under 12 dimensions besides the all-actor total.
  it.each([
    { label: "the same page again", rows: [{}, {}, {}], lookups: [12, 0, 0] },
    // The next row's first counter is its actor's total, the first of the list: not past a page a later row appended.
    { label: "a second page, then the first again, then a third", rows: [{ page: "/a" }, { page: "/b" }, { page: "/a" }, { page: "/c" }], lookups: [12, 1, 0, 1] },
    // After a page new to the visitor, the next dimension is the one after the page its cursor was on.
    { label: "a new page each row", rows: [{ page: "/a" }, { page: "/b" }, { page: "/c" }, { page: "/d" }], lookups: [12, 1, 1, 1] },
    // A new actor is every dimension new; back under it, only its total is away from the cursor (the first actor's is there).
    { label: "a person who then arrives from an assistant", rows: [{}, { actor: "human_via_ai" as const }, { actor: "human_via_ai" as const }], lookups: [12, 12, 1] },
  ])("looks up only the values not at the visitor's cursor: $label", ({ rows, lookups }) => {
    const state = new RollupState(1, DAY);
    const sink = newDeltaSink();
    const made: number[] = [];
    rows.forEach((overrides, i) => {
      const before = state.valueLookups;
      state.observe({ kind: "event", ...eventRow({ ts: DAY + 1000 * i, visitor_hash: visitorHash("a"), ...overrides }) }, sink);
      made.push(state.valueLookups - before);
    });
    expect(made).toEqual(lookups);
  });

  it("counts visitors in the last window by the actor of their latest row", () => {
    const state = new RollupState(1, DAY);
    const sink = newDeltaSink();
    state.observe({ kind: "event", ...eventRow({ ts: DAY + 1000, visitor_hash: visitorHash("a") }) }, sink);
    state.observe({ kind: "event", ...eventRow({ ts: DAY + 5000, visitor_hash: visitorHash("b") }) }, sink);
    state.observe({ kind: "hit", ...hitRow({ ts: DAY + 6000, visitor_hash: visitorHash("b"), actor: "bot" }) }, sink);
    expect(state.visitors).toBe(2);
    expect(state.recentVisitors(DAY + 2000)).toEqual({ bot: 1 });
    expect(state.recentVisitors(DAY)).toEqual({ human: 1, bot: 1 });
  });
});
