// A handler's answer given later without a promise (http/transport.ts LaterResponse, the ingest routes' Delivery):
// answered once whether the work finishes before or after the transport hands over its sink, a second answer
// ignored as a settled promise ignores it, and the same through `dispatch` (node.ts) and a promise of it.
import { describe, expect, it } from "vitest";
import { type HttpRequest, type HttpResponse, LaterResponse, type ListenOptions, dispatch } from "../../src/http/transport.ts";

class Later extends LaterResponse {
  made = 0;
  settle(status: number): void {
    if (this.answered) return;
    this.made++;
    this.answer({ status });
  }
}

const sink = () => {
  const got: number[] = [];
  return { got, answer: (r: HttpResponse) => void got.push(r.status) };
};

describe("LaterResponse", () => {
  it.each([
    { name: "answered after the sink was handed over", before: [] as number[], after: [202] },
    { name: "answered before the sink was handed over", before: [202], after: [] as number[] },
    { name: "answered twice after", before: [], after: [202, 503] },
    { name: "answered twice before", before: [202, 503], after: [] },
    { name: "answered before and after", before: [422], after: [503] },
  ])("sends one answer, the first, when $name", ({ before, after }) => {
    const later = new Later();
    const s = sink();
    for (const status of before) later.settle(status);
    later.answerTo(s);
    for (const status of after) later.settle(status);
    expect(s.got).toEqual([[...before, ...after][0]]);
    expect(later.made).toBe(1);
  });

  const options = (result: () => unknown): ListenOptions => ({
    host: "127.0.0.1", port: 0, bodyLimit: 1, handler: result as ListenOptions["handler"],
    tooLarge: () => ({ status: 413 }), closing: () => ({ status: 503 }), onHandlerError: () => ({ status: 500 }),
  });

  it.each([
    { name: "returned", wrap: (l: Later) => l },
    { name: "a promise of it", wrap: (l: Later) => Promise.resolve(l) },
  ])("is answered through dispatch when $name", async ({ wrap }) => {
    const later = new Later();
    const got: number[] = [];
    dispatch(options(() => wrap(later)), {} as HttpRequest, (r) => got.push(r.status));
    await Promise.resolve();
    await Promise.resolve();
    expect(got).toEqual([]);
    later.settle(202);
    expect(got).toEqual([202]);
  });
});
