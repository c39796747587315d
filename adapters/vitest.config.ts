import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "adapters",
    include: ["test/**/*.test.ts"],
    // Real servers, a workerd process and child processes on a shared 2-core machine: 150 sequential requests or
    // a process start can take seconds under load. No assertion depends on this bound.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
