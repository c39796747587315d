// The site view's queue before POST /api/v2/query (src/lib/query-queue.ts), against a sender that records
// what it is asked and answers when told: the tiles go before the chart before the cards whatever order they
// were asked in, at most 2 are in flight, an identical body is sent once, and a withdrawn question leaves the
// queue (or has its request aborted) while another waiter of the same body still gets its answer.
import { describe, expect, it } from "vitest";
import { QueryQueue } from "../src/lib/query-queue.ts";

function recordingSender() {
  const sent: { body: unknown; signal: AbortSignal; answer: (v: string) => void }[] = [];
  const send = (body: unknown, signal: AbortSignal) =>
    new Promise<string>((resolve, reject) => {
      sent.push({ body, signal, answer: resolve });
      signal.addEventListener("abort", () => reject(signal.reason));
    });
  return { sent, send };
}
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("the query queue", () => {
  it("sends the tiles first, alone until they answer, then the chart, asked last; at most 2 in flight; the next when one answers", async () => {
    const { sent, send } = recordingSender();
    const queue = new QueryQueue(send);
    const answers = ["card a", "card b", "chart", "tiles"].map((name) => queue.run({ name }, name.startsWith("card") ? "card" : (name as "chart" | "tiles")));
    await tick();
    // Sent beside the tiles, the chart could reach the engine first and answer before them.
    expect(sent.map((s) => s.body)).toEqual([{ name: "tiles" }]);
    sent[0]!.answer("T");
    await tick();
    expect(sent.map((s) => s.body)).toEqual([{ name: "tiles" }, { name: "chart" }, { name: "card a" }]);
    sent[1]!.answer("C");
    await tick();
    expect(sent.map((s) => s.body)).toEqual([{ name: "tiles" }, { name: "chart" }, { name: "card a" }, { name: "card b" }]);
    sent[2]!.answer("A");
    sent[3]!.answer("B");
    expect(await Promise.all(answers)).toEqual(["A", "B", "C", "T"]);
    expect(queue.size).toEqual({ running: 0, waiting: 0 });
  });

  it("asks an identical body once while it is queued or in flight, and again after it answered", async () => {
    const { sent, send } = recordingSender();
    const queue = new QueryQueue(send);
    const one = queue.run({ q: 1 }, "card");
    const two = queue.run({ q: 1 }, "card");
    await tick();
    expect(sent).toHaveLength(1);
    sent[0]!.answer("x");
    expect(await Promise.all([one, two])).toEqual(["x", "x"]);
    const three = queue.run({ q: 1 }, "card");
    await tick();
    expect(sent).toHaveLength(2);
    sent[1]!.answer("y");
    expect(await three).toBe("y");
  });

  it("a withdrawn question leaves the queue unsent; one in flight is aborted only when nobody else waits for it", async () => {
    const { sent, send } = recordingSender();
    const queue = new QueryQueue(send, 1);
    const first = new AbortController();
    const shared = new AbortController();
    const inFlight = queue.run({ q: "tiles" }, "tiles", first.signal);
    const sameTiles = queue.run({ q: "tiles" }, "tiles", shared.signal);
    const queued = new AbortController();
    const stale = queue.run({ q: "card" }, "card", queued.signal);
    await tick();
    expect(sent.map((s) => s.body)).toEqual([{ q: "tiles" }]);
    queued.abort();
    await expect(stale).rejects.toBeDefined();
    first.abort();
    await expect(inFlight).rejects.toBeDefined();
    // Another waiter still wants the tiles: the request goes on and answers it.
    expect(sent[0]!.signal.aborted).toBe(false);
    sent[0]!.answer("T");
    expect(await sameTiles).toBe("T");
    await tick();
    // The withdrawn card was never sent.
    expect(sent).toHaveLength(1);
    // A question withdrawn while in flight, with nobody else waiting: its request is aborted.
    const last = new AbortController();
    const gone = queue.run({ q: "chart" }, "chart", last.signal);
    await tick();
    last.abort();
    await expect(gone).rejects.toBeDefined();
    expect(sent[1]!.signal.aborted).toBe(true);
    await tick();
    expect(queue.size).toEqual({ running: 0, waiting: 0 });
  });

  it("whenIdle resolves after every question asked in the same turn is answered, and at once on an idle queue", async () => {
    const { sent, send } = recordingSender();
    const queue = new QueryQueue(send);
    let idle = false;
    void queue.whenIdle().then(() => (idle = true));
    // Asked after the wait began, in the same turn: the wait covers it.
    const answer = queue.run({ q: "tiles" }, "tiles");
    await tick();
    expect(sent).toHaveLength(1);
    expect(idle).toBe(false);
    sent[0]!.answer("T");
    await answer;
    await tick();
    expect(idle).toBe(true);
    await expect(queue.whenIdle()).resolves.toBeUndefined();
  });
});
