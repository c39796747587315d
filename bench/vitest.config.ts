import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "bench",
    include: ["test/**/*.test.ts"],
    // The commit ceiling's test needs a PostgreSQL server: DATABASE_URL, or the gateway's embedded one.
    globalSetup: ["../gateway/test/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
