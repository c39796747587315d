// The size budget is part of the build: over 1,024 gzip bytes it fails instead of writing dist/svc.js.
import { readFile, stat } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { GZIP_BUDGET_BYTES, TRACKER_BUNDLE, TrackerOverBudget, buildTracker, gzipSize } from "../scripts/build.ts";

describe("tracker build", () => {
  it("produced dist/svc.js within the gzip budget", async () => {
    const code = await readFile(TRACKER_BUNDLE);
    expect(GZIP_BUDGET_BYTES).toBe(1024);
    expect(gzipSize(code)).toBeLessThanOrEqual(GZIP_BUDGET_BYTES);
  });

  it("fails over budget and leaves the existing bundle alone", async () => {
    const before = await stat(TRACKER_BUNDLE);
    const error = await buildTracker(100).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TrackerOverBudget);
    expect(error).toMatchObject({ budgetBytes: 100, gzipBytes: gzipSize(await readFile(TRACKER_BUNDLE)) });
    expect((await stat(TRACKER_BUNDLE)).mtimeMs).toBe(before.mtimeMs);
  });
});
