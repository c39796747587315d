import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "mcp",
    include: ["test/**/*.test.ts"],
    // The tests start a real gateway on the PostgreSQL of the gateway's global setup (DATABASE_URL, or one
    // embedded server for the run).
    globalSetup: ["../gateway/test/support/global-setup.ts"],
    // Each test spawns the server (node + the tsx loader + the SDK: ~1 s cold on the shared 2-core box) and
    // talks to a real gateway. No assertion depends on this bound.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
