// The day state saved at a clean stop: a state that went through encode → decode must go on exactly like the
// state that never stopped — the same deltas and the same visit attribution for every later row — and the
// stored snapshots are used at most once, only after a clean stop, only on their own day.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DeltaSink, RollupState, newDeltaSink } from "../../src/rollups/rollup-state.ts";
import { decodeDayState, encodeDayState } from "../../src/lanes/snapshot.ts";
import { VisitState } from "../../src/lanes/visit-state.ts";
import type { EventRow, HitRow, RollupDelta } from "../../src/storage/rows.ts";
import { saveLaneSnapshots, takeLaneSnapshots } from "../../src/storage/lane-snapshots.ts";
import { addSite } from "../../src/storage/sites.ts";
import { type TestDatabase, createTestDatabase } from "../support/database.ts";
import { eventRow, hitRow, visitorHash } from "../support/sample-rows.ts";
import { DAY_MS } from "@svc/core";

const DAY = Date.UTC(2026, 10, 21);
const MINUTE = 60_000;

function prng(seed: number) {
  return () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
}

type Row = ({ kind: "event" } & EventRow) | ({ kind: "hit" } & HitRow);

/** A day of script rows from 30 people (some from ChatGPT, some from Google, pauses over 30 minutes) and crawler hits. */
function day(seed: number, count: number): Row[] {
  const rand = prng(seed);
  const rows: Row[] = [];
  let ts = DAY + 8 * 60 * MINUTE;
  for (let i = 0; i < count; i++) {
    ts += Math.floor(rand() * 4 * MINUTE);
    const person = Math.floor(rand() * 30);
    if (rand() < 0.8) {
      const via = rand();
      const own =
        via < 0.2
          ? { actor: "human_via_ai", ai_name: "ChatGPT", rule: "assistant_referrer", source: "ChatGPT", channel: "ai_assistant", referrer_host: "chatgpt.com" }
          : via < 0.4
            ? { actor: "human", ai_name: null, rule: "default", source: "Google", channel: "search", referrer_host: "www.google.com" }
            : { actor: "human", ai_name: null, rule: "default", source: null, channel: "direct", referrer_host: null };
      const row = eventRow({ ts, visitor_hash: visitorHash(`p${person}`), page: `/p${Math.floor(rand() * 60)}`, utm_source: null, utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null, ...own });
      rows.push({ kind: "event", ...row, own_referrer_host: row.referrer_host });
    } else {
      rows.push({ kind: "hit", ...hitRow({ ts, visitor_hash: visitorHash(`c${person % 2}`), actor: "ai_crawler", ai_name: "GPTBot", rule: "ai_crawler_token", page: `/doc/${Math.floor(rand() * 90)}` }) });
    }
  }
  return rows;
}

/** Runs rows through visits and the visitor state as the site lane does; returns each row's deltas and attribution. */
function run(state: RollupState, visits: VisitState, rows: readonly Row[]): { deltas: string[]; attributed: string[] } {
  const deltas: string[] = [];
  const attributed: string[] = [];
  for (const template of rows) {
    const row = { ...template };
    const key = row.visitor_hash.toString("latin1");
    if (row.kind === "event") visits.attribute(row, key);
    attributed.push(`${row.actor}|${row.ai_name}|${row.rule}|${row.source}|${row.channel}|${row.referrer_host}`);
    const sink: DeltaSink = newDeltaSink();
    state.observe(row, sink, key);
    deltas.push(sink.deltas.map((d: RollupDelta) => `${d.hour}|${d.actor}|${d.dim}|${d.value}|${d.pageviews}|${d.events}|${d.hits}|${d.visitors_hour}|${d.visitors_day}`).join(";"));
  }
  return { deltas, attributed };
}

describe("a day state through encode and decode", () => {
  it.each([
    { seed: 1, rows: 600, stopAfter: 0 },
    { seed: 2, rows: 600, stopAfter: 1 },
    { seed: 3, rows: 600, stopAfter: 300 },
    { seed: 4, rows: 900, stopAfter: 899 },
  ])("goes on like the state that never stopped (seed $seed, stop after $stopAfter of $rows rows)", ({ seed, rows, stopAfter }) => {
    const all = day(seed, rows);
    const continuous = { state: new RollupState(1, DAY), visits: new VisitState() };
    const expected = run(continuous.state, continuous.visits, all);

    const before = { state: new RollupState(1, DAY), visits: new VisitState() };
    run(before.state, before.visits, all.slice(0, stopAfter));
    const bytes = encodeDayState(before);
    const restored = decodeDayState(bytes)!;
    expect(restored.state.visitors).toBe(before.state.visitors);
    expect(restored.state.watermark).toBe(before.state.watermark);
    expect(encodeDayState(restored)).toEqual(bytes);
    const after = run(restored.state, restored.visits, all.slice(stopAfter));
    expect(after.deltas).toEqual(expected.deltas.slice(stopAfter));
    expect(after.attributed).toEqual(expected.attributed.slice(stopAfter));
  });

  it("a snapshot of another layout version is not used", () => {
    const bytes = Buffer.from(encodeDayState({ state: new RollupState(1, DAY), visits: new VisitState() }));
    bytes.writeUInt32LE(1, 0);
    expect(decodeDayState(bytes)).toBeNull();
  });
});

describe("stored snapshots", () => {
  let db: TestDatabase;
  let sites: number[];
  beforeAll(async () => {
    db = await createTestDatabase();
    sites = [(await addSite(db.pool, { domain: "a.example" })).id, (await addSite(db.pool, { domain: "b.example" })).id];
  });
  afterAll(async () => {
    await db?.drop();
  });

  const snapshot = (siteId: number, dayStart: number) => ({ siteId, dayStart, watermark: dayStart + 5 * MINUTE, bytes: Buffer.from([1, 0, 255, siteId]) });
  const mark = (hour: number | null) => db.pool.query("update rollup_repair set from_hour = $1", [hour === null ? null : new Date(hour)]);

  it.each([
    { name: "after a clean stop, today's are returned (bytes intact) and all are deleted", repairMark: null, expectSites: [0] },
    { name: "after a killed gateway (repair mark set), none are used, and all are deleted", repairMark: DAY, expectSites: [] },
  ])("$name", async ({ repairMark, expectSites }) => {
    await saveLaneSnapshots(db.pool, [snapshot(sites[0]!, DAY), snapshot(sites[1]!, DAY - DAY_MS)]);
    await mark(repairMark);
    const taken = await takeLaneSnapshots(db.pool, DAY);
    expect(taken).toEqual(expectSites.map((i) => snapshot(sites[i]!, DAY)));
    expect((await db.pool.query("select count(*)::int as n from lane_snapshots")).rows[0].n).toBe(0);
    expect(await takeLaneSnapshots(db.pool, DAY)).toEqual([]);
    await mark(null);
  });
});
