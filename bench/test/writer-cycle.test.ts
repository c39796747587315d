// The commit cycle's split the ingest bench prints, from the writer's counters.
import { describe, expect, it } from "vitest";
import { COMMIT_CEILING_CYCLE, describeWriterCycle, writerCycle } from "../src/writer-cycle.ts";

describe("writer cycle", () => {
  it.each([
    { label: "a full-load run", writer: { batches: 6000, copyMs: 9000, answerMs: 2400 }, seconds: 15, cycle: { everyMs: 2.5, copyMs: 1.5, answerMs: 0.4, restMs: 0.6, overlapping: false } },
    { label: "a quiet run, the cycle mostly waiting for rows", writer: { batches: 100, copyMs: 150, answerMs: 10 }, seconds: 10, cycle: { everyMs: 100, copyMs: 1.5, answerMs: 0.1, restMs: 98.4, overlapping: false } },
    { label: "two commits in flight, their parts past the cycle", writer: { batches: 6000, copyMs: 19000, answerMs: 2100 }, seconds: 14, cycle: { everyMs: 2.33, copyMs: 3.17, answerMs: 0.35, restMs: null, overlapping: true } },
    { label: "an older build without the sums", writer: { batches: 4000 }, seconds: 10, cycle: { everyMs: 2.5, copyMs: null, answerMs: null, restMs: null, overlapping: false } },
    { label: "a run that committed nothing", writer: { batches: 0, copyMs: 0, answerMs: 0 }, seconds: 10, cycle: null },
  ])("splits $label", ({ writer, seconds, cycle }) => {
    expect(writerCycle(writer, seconds)).toEqual(cycle);
  });

  it.each([
    { cycle: { everyMs: 2.5, copyMs: 1.5, answerMs: 0.4, restMs: 0.6, overlapping: false }, text: "one every 2.5 ms = 1.5 encoding and PostgreSQL's round trip + 0.4 the 202s and the ledger + 0.6 the rest (the lanes' next turns)" },
    { cycle: { everyMs: 2.33, copyMs: 3.17, answerMs: 0.35, restMs: null, overlapping: true }, text: "one every 2.33 ms, each 3.17 encoding and PostgreSQL's round trip + 0.35 the 202s and the ledger (commits overlap)" },
    { cycle: { everyMs: 2.5, copyMs: null, answerMs: null, restMs: null, overlapping: false }, text: "one every 2.5 ms" },
    { cycle: null, text: "no commit" },
  ])("says $text", ({ cycle, text }) => {
    expect(describeWriterCycle(cycle)).toBe(text);
  });

  it("names the commit ceiling app's parts as its own", () => {
    expect(describeWriterCycle({ everyMs: 0.57, copyMs: 0.41, answerMs: 0.15, restMs: 0.01, overlapping: false }, COMMIT_CEILING_CYCLE)).toBe(
      "one every 0.57 ms = 0.41 encoding and PostgreSQL's round trip + 0.15 the 202s + 0.01 the rest (waiting for the next batch's rows)",
    );
  });
});
