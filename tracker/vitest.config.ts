import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "tracker",
    include: ["test/**/*.test.ts"],
  },
});
