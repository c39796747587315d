// Once per run of the dashboard project: build the dashboard (build/ is git-ignored, so a fresh clone
// tests exactly what `npm start` serves) and the tracker the fixture pages load, then provide the
// PostgreSQL server the gateway harness creates its databases on (the gateway project's own setup).
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { join, dirname } from "node:path";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";
import databaseSetup from "../../../gateway/test/support/global-setup.ts";
import { buildTracker } from "../../../tracker/scripts/build.ts";
import { DASHBOARD_DIR } from "../../scripts/launch.ts";

const VITE_BIN = join(dirname(createRequire(import.meta.url).resolve("vite/package.json")), "bin/vite.js");

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await Promise.all([
    promisify(execFile)(process.execPath, [VITE_BIN, "build"], {
      cwd: DASHBOARD_DIR,
      maxBuffer: 64 * 1024 * 1024,
      // vitest sets NODE_ENV=test, which would give Svelte's development build (≈ 14 KB more gzip on the
      // site view); the tests check what `npm start` serves.
      env: { ...process.env, NODE_ENV: "production" },
    }),
    buildTracker(),
  ]);
  return databaseSetup(project);
}
