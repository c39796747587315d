import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "tracker",
    include: ["test/**/*.test.ts"],
    // Builds dist/svc.js (git-ignored) before any test loads it.
    globalSetup: ["test/support/global-setup.ts"],
    // Real Chromium on a 2-core CI machine shared with the other projects: a test takes ~1 s here,
    // 30 s leaves room for a loaded machine without hiding a hang.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
