// A site lane's turn on its rows (lanes/site-lane.ts `LaneTurn`), in process: the stamp, the visitor hash, the
// visit rule, the rollup counters and which time stamp a hit keeps. The rows come from the ingest pipeline's own
// steps, as a lane receives them; `npm run bench:event-path` runs this same code.
import { describe, expect, it } from "vitest";
import { RejectionCounters } from "../src/errors.ts";
import { openCountryLookup } from "../src/geo/country.ts";
import * as pipeline from "../src/ingest/pipeline.ts";
import { LaneTurn, type PendingRow } from "../src/lanes/site-lane.ts";
import { VisitState } from "../src/lanes/visit-state.ts";
import { newDeltaSink, RollupState, sinkDeltas } from "../src/rollups/rollup-state.ts";
import type { SiteRecord } from "../src/storage/sites.ts";
import { UA } from "./support/harness.ts";
import { seededRandom } from "./support/seeded-random.ts";
import { visitorHashKeyOfAddress } from "@svc/core";

const SITE_ID = 7;
const site = { id: SITE_ID, domain: "turn.example" } as SiteRecord;
const country = openCountryLookup(null);
const counters = new RejectionCounters();
const DAY_START = Date.parse("2026-11-26T00:00:00Z");
const HOUR_START = Date.parse("2026-11-26T12:00:00Z");
const NOW = Date.parse("2026-11-26T12:30:00Z");
const salt = (fill: number) => Buffer.alloc(32, fill);

function event(ip: string, ua: string, body: Record<string, unknown>): PendingRow {
  const decoded = pipeline.decodeEvent({ d: site.domain, ...body }, counters);
  return pipeline.enrichEvent(decoded, ua, ip, country);
}

function hit(ts: number | null, ip = "203.0.113.9"): PendingRow {
  const [decoded] = pipeline.decodeHits({ domain: site.domain, method: "GET", path: "/api/x", status: 200, user_agent: UA.gptbot, ip, ts }, counters);
  return pipeline.enrichHit(decoded!, site, country);
}

function turn(fill = 1) {
  const state = new RollupState(SITE_ID, DAY_START);
  return { state, turn: new LaneTurn(SITE_ID, salt(fill), NOW, state, new VisitState()) };
}

describe("a site lane's turn", () => {
  it("stamps each event with the site, the turn's time and the visitor hash, and drops the address", () => {
    const { turn: t } = turn();
    const rows = [
      event("198.51.100.1", UA.chrome, { u: "https://turn.example/a" }),
      event("198.51.100.1", UA.chrome, { u: "https://turn.example/b" }),
      event("198.51.100.2", UA.chrome, { u: "https://turn.example/a" }),
      event("198.51.100.1", UA.iphone, { u: "https://turn.example/a" }),
    ];
    for (const row of rows) t.add(row);
    expect(t.events.map((e) => [e.site_id, e.ts, e.page])).toEqual([[SITE_ID, NOW, "/a"], [SITE_ID, NOW, "/b"], [SITE_ID, NOW, "/a"], [SITE_ID, NOW, "/a"]]);
    expect(t.hits).toEqual([]);
    expect(rows.map((r) => r.ip)).toEqual(["", "", "", ""]);
    const hashes = t.events.map((e) => e.visitor_hash.toString("hex"));
    // The same address and User-Agent are one visitor; another address or User-Agent is another.
    expect(hashes[1]).toBe(hashes[0]);
    expect(new Set(hashes).size).toBe(3);
  });

  it("hashes with the day's salt: the same visitor under another salt is another hash", () => {
    const a = turn(1).turn;
    const b = turn(2).turn;
    a.add(event("198.51.100.1", UA.chrome, { u: "https://turn.example/" }));
    b.add(event("198.51.100.1", UA.chrome, { u: "https://turn.example/" }));
    expect(a.events[0]!.visitor_hash.equals(b.events[0]!.visitor_hash)).toBe(false);
  });

  // SiteLane.offer hashes a row ahead with the lane's salt of that moment; the turn keeps that hash only when it
  // was made with the turn's own salt (a new day's salt, or a rebuilt state's, came in between otherwise).
  it("keeps a hash made ahead with its own salt and hashes again a row hashed with another", () => {
    const turnSalt = salt(1);
    const t = new LaneTurn(SITE_ID, turnSalt, NOW, new RollupState(SITE_ID, DAY_START), new VisitState());
    const ahead = event("198.51.100.1", UA.chrome, { u: "https://turn.example/" });
    ahead.key = "k".repeat(32);
    ahead.hashedWith = turnSalt;
    const stale = event("198.51.100.1", UA.chrome, { u: "https://turn.example/" });
    stale.key = "k".repeat(32);
    stale.hashedWith = salt(1);
    t.add(ahead);
    t.add(stale);
    expect(t.events.map((e) => e.visitor_hash.toString("latin1"))).toEqual(["k".repeat(32), visitorHashKeyOfAddress(turnSalt, SITE_ID, "198.51.100.1", UA.chrome)]);
    expect([ahead.ip, stale.ip]).toEqual(["", ""]);
  });

  it("applies the visit rule: a visit's later page keeps the source it entered with", () => {
    const { turn: t } = turn();
    t.add(event("198.51.100.1", UA.chrome, { u: "https://turn.example/in", r: "https://chatgpt.com/" }));
    t.add(event("198.51.100.1", UA.chrome, { u: "https://turn.example/next", r: "https://turn.example/in" }));
    expect(t.events.map((e) => [e.page, e.actor, e.source])).toEqual([
      ["/in", "human_via_ai", "ChatGPT"],
      ["/next", "human_via_ai", "ChatGPT"],
    ]);
  });

  // The turn looks a row's visitor up once for the rollup counters and the visit rule, which keeps its visit on
  // the rollup state's visitor record (VisitState.attribute). Oracle: each state looking the hash up itself.
  it("gives every row of 40 turns over two hours the labels and counts of the two states looked up apart", () => {
    const random = seededRandom(26);
    const pick = <T,>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const clients = ["198.51.100.1", "198.51.100.2", "198.51.100.3", "2001:db8::1"].flatMap((ip) => [UA.chrome, UA.iphone, UA.headless, UA.gptbot].map((ua) => [ip, ua] as const));
    const referrers = [undefined, "https://chatgpt.com/", "https://www.google.com/", "https://turn.example/a", "https://perplexity.ai/"];
    const state = new RollupState(SITE_ID, DAY_START);
    const visits = new VisitState({ visitors: 12, values: 1_000 });
    const apart = { state: new RollupState(SITE_ID, DAY_START), visits: new VisitState({ visitors: 12, values: 1_000 }) };
    let now = DAY_START + 11 * 3_600_000;
    for (let n = 0; n < 40; n++) {
      // Gaps of 0–6 minutes, and now and then 35: visits end, and a returning visitor enters anew.
      now += random() < 0.15 ? 35 * 60_000 : Math.floor(random() * 6 * 60_000);
      const t = new LaneTurn(SITE_ID, salt(1), now, state, visits);
      const sink = newDeltaSink();
      for (let i = 0; i < 12; i++) {
        const [ip, ua] = pick(clients);
        const body = { u: `https://turn.example/${pick(["a", "b", "c"])}`, r: pick(referrers) };
        t.add(event(ip, ua, body));
        const row = (event(ip, ua, body) as Extract<PendingRow, { kind: "event" }>).row;
        Object.assign(row, { site_id: SITE_ID, ts: now });
        const key = visitorHashKeyOfAddress(salt(1), SITE_ID, ip, ua);
        apart.visits.attribute(row, key);
        apart.state.observe(row, sink, key);
        const got = t.events.at(-1)!;
        expect([got.actor, got.rule, got.ai_name, got.source, got.channel, got.referrer_host]).toEqual([row.actor, row.rule, row.ai_name, row.source, row.channel, row.referrer_host]);
      }
      const counts = (deltas: ReturnType<typeof sinkDeltas>) => deltas.map((d) => `${d.actor} ${d.dim} ${d.value} ${d.pageviews} ${d.visitors_hour} ${d.visitors_day}`).sort();
      t.count();
      expect(counts(sinkDeltas(t.rollups))).toEqual(counts(sinkDeltas(sink)));
    }
    expect([...visits.entries()]).toEqual([...apart.visits.entries()]);
    expect(state.visitors).toBe(apart.state.visitors);
    // Each visitor under the actor of its latest row as the visit rule labelled it.
    const lastActors = (s: RollupState) => {
      const out: string[] = [];
      s.forEachVisitor((key, lastSeen, lastActor) => out.push(`${Buffer.from(key, "latin1").toString("hex")} ${lastSeen} ${lastActor}`));
      return out.sort();
    };
    expect(lastActors(state)).toEqual(lastActors(apart.state));
  });

  it("counts every row in the turn's rollup counts, in the hour of its time stamp", () => {
    const { turn: t, state } = turn();
    t.add(event("198.51.100.1", UA.chrome, { u: "https://turn.example/" }));
    t.add(event("198.51.100.2", UA.chrome, { u: "https://turn.example/" }));
    t.add(hit(null));
    t.count();
    const totals = sinkDeltas(t.rollups).filter((d) => d.dim === "total");
    expect(totals.map((d) => [d.actor, d.hour, d.pageviews, d.hits, d.visitors_day])).toEqual(
      expect.arrayContaining([["human", HOUR_START, 2, 0, 2], ["ai_crawler", HOUR_START, 0, 1, 1]]),
    );
    expect(state.visitors).toBe(3);
  });

  // The writer counts a turn once its COPY is written (LaneTurn.count): until then the turn has rows and no counts,
  // and a second call, or the lane's own before its next turn, counts nothing again.
  it("counts its rows at `count`, each once, in the order they were added", () => {
    const { turn: t, state } = turn();
    t.add(event("198.51.100.1", UA.chrome, { u: "https://turn.example/a" }));
    t.add(event("198.51.100.1", UA.chrome, { u: "https://turn.example/b" }));
    expect(sinkDeltas(t.rollups)).toEqual([]);
    expect(state.watermark).toBeLessThan(NOW);
    t.count();
    const counted = (dim: string) => sinkDeltas(t.rollups).filter((d) => d.actor === "human" && d.dim === dim).map((d) => [d.value, d.pageviews, d.visitors_day]);
    expect(counted("total")).toEqual([["", 2, 1]]);
    expect(counted("page").sort()).toEqual([["/a", 1, 1], ["/b", 1, 1]]);
    t.add(event("198.51.100.2", UA.chrome, { u: "https://turn.example/a" }));
    t.count();
    t.count();
    expect(counted("total")).toEqual([["", 3, 2]]);
    expect(state.watermark).toBe(NOW);
  });

  // A middleware batches for about a second: its own time stamp is kept inside the current hour, and anything
  // else (earlier hours, whose visitor state is gone, or the future) takes the turn's time.
  it.each([
    ["no time stamp", null, NOW],
    ["earlier this hour", HOUR_START + 10 * 60_000, HOUR_START + 10 * 60_000],
    ["the hour's first millisecond", HOUR_START, HOUR_START],
    ["the turn's own time", NOW, NOW],
    ["the hour before", HOUR_START - 1, NOW],
    ["a millisecond ahead", NOW + 1, NOW],
  ])("a hit with %s is stamped at the right time", (_name, ts, expected) => {
    const { turn: t } = turn();
    t.add(hit(ts));
    expect(t.events).toEqual([]);
    expect(t.hits.map((h) => [h.site_id, h.ts])).toEqual([[SITE_ID, expected]]);
    expect(t.hourStart).toBe(HOUR_START);
  });
});
