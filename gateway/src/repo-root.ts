// The checkout's root (the folder holding sql/), found by walking up from this module: the same answer
// whether the gateway runs from its TypeScript sources or from the bundle in gateway/dist.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

function findRepoRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "sql", "001_init.sql"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no svc checkout (a folder with sql/001_init.sql) above ${from}`);
  }
}

export const repoRoot = findRepoRoot(path.dirname(fileURLToPath(import.meta.url)));
