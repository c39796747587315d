// The per-stage profile reads which source file each bundle line came from in esbuild's `// path` comments,
// whose paths are relative to where esbuild ran: the repo root (launchGateway's build) or gateway/
// (`npm run build:gateway`). Both must read as the same files, or a stage table of one build loses its stages.
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { bundleFiles } from "../src/profile-stages.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "svc-profile-stages-"));

it.each([
  { built: "from the repo root", comments: ["// node_modules/pg/lib/client.js", "// core/src/schema.ts", "// gateway/src/ingest/pipeline.ts"] },
  { built: "from gateway/", comments: ["// ../node_modules/pg/lib/client.js", "// ../core/src/schema.ts", "// src/ingest/pipeline.ts"] },
])("reads a bundle built $built", ({ built, comments }) => {
  const bundle = path.join(dir, `${built.replaceAll(/\W/g, "-")}.mjs`);
  // Lines 1–2 a file's code, 3 the next comment, … (1-based, as perf's bundle lines are).
  writeFileSync(bundle, comments.flatMap((c) => [c, "code();"]).join("\n"));
  const fileOf = bundleFiles(bundle);
  expect([2, 4, 6].map(fileOf)).toEqual(["node_modules/pg/lib/client.js", "core/src/schema.ts", "gateway/src/ingest/pipeline.ts"]);
});
