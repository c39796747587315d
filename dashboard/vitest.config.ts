import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "dashboard",
    include: ["test/**/*.test.ts"],
    // Builds the dashboard and the tracker, and provides PostgreSQL (see test/support/global-setup.ts).
    globalSetup: ["./test/support/global-setup.ts"],
    // Real Chromium, a real gateway and the built dashboard on a shared 2-core machine: a browser step takes
    // ~1 s here; 60 s per test leaves room for a loaded machine without hiding a hang.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
