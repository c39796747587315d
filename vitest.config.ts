import { defineConfig } from "vitest/config";

// One `npm test` runs every workspace; each folder's own vitest.config.ts sets its timeouts and setup.
export default defineConfig({
  test: {
    projects: ["core", "gateway", "tracker", "adapters", "bench", "mcp", "dashboard"],
    reporters: ["default", "./scripts/plain-summary-reporter.ts"],
  },
});
