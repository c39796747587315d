import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "gateway",
    include: ["test/**/*.test.ts"],
    // Starts the embedded PostgreSQL once when DATABASE_URL is unset; see test/support/database.ts.
    globalSetup: ["./test/support/global-setup.ts"],
    // Real PostgreSQL and spawned processes: a cold embedded start plus migrations takes ~2 s here.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
