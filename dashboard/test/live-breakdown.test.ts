// How a breakdown card takes a live delta (src/lib/live-breakdown.ts): which counts it adds to which rows, and
// when it has to ask the API instead. The browser test (dashboard.test.ts) shows a row appearing on screen
// ≤ 1 s after its 202; this one walks the cases a real stream rarely produces on cue.
import { describe, expect, it } from "vitest";
import { applyBreakdownDelta } from "../src/lib/live-breakdown.ts";
import type { ActorParam, BreakdownRow, LiveDelta } from "../src/lib/types.ts";

type Dim = LiveDelta["dimensions"][number];
const dim = (actor: Dim["actor"], d: string, value: string, counts: Partial<Dim> = {}): Dim => ({ actor, dim: d, value, pageviews: 0, events: 0, hits: 0, visitors: 0, ...counts });
const delta = (...dimensions: Dim[]): LiveDelta => ({ at: "", committed_at: "", totals: {}, dimensions, dimensions_omitted: 0 });
const row = (value: string, visitors: number, pageviews: number, hits = 0): BreakdownRow => ({ value, label: value || "Direct / None", visitors, pageviews, hits });

const PAGES = [row("/", 5, 9), row("/pricing", 3, 4)];
const FULL = Array.from({ length: 10 }, (_, i) => row(`/p${i}`, 10 - i, 10 - i));

describe("applyBreakdownDelta", () => {
  it.each<[string, readonly BreakdownRow[], string, ActorParam, LiveDelta, { rows?: BreakdownRow[]; changed: boolean; refetch: boolean }]>([
    [
      "adds to a held row and re-ranks",
      PAGES, "page", "human",
      delta(dim("human", "page", "/pricing", { visitors: 3, pageviews: 6 })),
      { rows: [row("/pricing", 6, 10), row("/", 5, 9)], changed: true, refetch: false },
    ],
    [
      "adds a new value to a card that holds every row",
      PAGES, "page", "human",
      delta(dim("human", "page", "/new", { visitors: 1, pageviews: 1 })),
      { rows: [...PAGES, row("/new", 1, 1)], changed: true, refetch: false },
    ],
    [
      "ignores other actors and other dimensions",
      PAGES, "page", "human",
      delta(dim("bot", "page", "/", { hits: 4 }), dim("human", "source", "Google", { visitors: 1 })),
      { rows: PAGES, changed: false, refetch: false },
    ],
    [
      "sums every actor for actor=all, a bot's hits as hits only (no visitor under all)",
      PAGES, "page", "all",
      delta(dim("bot", "page", "/", { hits: 4, visitors: 1 }), dim("human", "page", "/", { pageviews: 1 })),
      { rows: [row("/", 5, 10, 4), PAGES[1]!], changed: true, refetch: false },
    ],
    [
      "sums human and human_via_ai for actor=humans",
      PAGES, "page", "humans",
      delta(dim("human_via_ai", "page", "/", { pageviews: 2, visitors: 1 }), dim("ai_agent", "page", "/", { hits: 3, visitors: 1 })),
      { rows: [row("/", 6, 11, 0), PAGES[1]!], changed: true, refetch: false },
    ],
    [
      "asks the API for a value outside a full top 10 (its earlier counts are unknown)",
      FULL, "page", "human",
      delta(dim("human", "page", "/elsewhere", { visitors: 50, pageviews: 50 })),
      { rows: FULL, changed: false, refetch: true },
    ],
    [
      "asks the API for a new empty value (its label is the gateway's)",
      PAGES.map((r) => ({ ...r })), "source", "human",
      delta(dim("human", "source", "", { visitors: 1, pageviews: 1 })),
      { changed: false, refetch: true },
    ],
    [
      "asks the API for a new bot-ledger rule (its label is the gateway's)",
      [], "rule", "all",
      delta(dim("bot", "rule", "generic_bot", { hits: 1, visitors: 1 })),
      { rows: [], changed: false, refetch: true },
    ],
  ])("%s", (_name, rows, field, actor, d, expected) => {
    const patch = applyBreakdownDelta(rows, field, actor, d, 10);
    expect({ changed: patch.changed, refetch: patch.refetch }).toEqual({ changed: expected.changed, refetch: expected.refetch });
    if (expected.rows) expect(patch.rows).toEqual(expected.rows);
  });

  it("counts an event row's sends, pageviews included, as the API's `events` for field=event", () => {
    const events: BreakdownRow[] = [{ value: "pageview", label: "pageview", visitors: 2, events: 3, hits: 0 }];
    const patch = applyBreakdownDelta(events, "event", "human", delta(dim("human", "event", "pageview", { visitors: 1, pageviews: 2 }), dim("human", "event", "Signup", { events: 1, visitors: 1 })), 10);
    expect(patch.rows).toEqual([
      { value: "pageview", label: "pageview", visitors: 3, events: 5, hits: 0 },
      { value: "Signup", label: "Signup", visitors: 1, events: 1, hits: 0 },
    ]);
  });

  it("never changes the rows it was given", () => {
    const rows = PAGES.map((r) => ({ ...r }));
    applyBreakdownDelta(rows, "page", "human", delta(dim("human", "page", "/", { visitors: 1 })), 10);
    expect(rows).toEqual(PAGES);
  });
});
