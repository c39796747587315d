// The live stream's block splitter: whatever the chunking, the same blocks come out, in order, each once.
import { describe, expect, it } from "vitest";
import { sse } from "../src/live/hub.ts";
import { sseBlockSplitter } from "../src/live/sse-blocks.ts";

const stream = `retry: 2000\n${sse("snapshot", { a: 1 })}: heartbeat\n\n${sse("delta", { text: "two\\n\\nlines" })}${sse("resync", {})}`;
const expected = ["retry: 2000\nevent: snapshot\ndata: {\"a\":1}", ": heartbeat", 'event: delta\ndata: {"text":"two\\\\n\\\\nlines"}', "event: resync\ndata: {}"];

describe("sseBlockSplitter", () => {
  it.each([
    ["the whole stream in one chunk", [stream.length]],
    ["one character at a time", Array.from({ length: stream.length }, () => 1)],
    ["cut inside the blank line", [stream.indexOf("\n\n") + 1, stream.length]],
    ["chunks of 7", Array.from({ length: Math.ceil(stream.length / 7) }, () => 7)],
  ])("%s", (_name, sizes) => {
    const split = sseBlockSplitter();
    const blocks: string[] = [];
    let at = 0;
    for (const size of sizes) {
      blocks.push(...split(stream.slice(at, at + size)));
      at += size;
    }
    expect(blocks).toEqual(expected);
  });

  it("keeps an unfinished block until its blank line arrives", () => {
    const split = sseBlockSplitter();
    expect(split("event: delta\ndata: {}\n")).toEqual([]);
    expect(split("\n")).toEqual(["event: delta\ndata: {}"]);
  });
});
