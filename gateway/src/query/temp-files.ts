// The query engine's temp directory (SVC_DATA_DIR/query-tmp) holds files a process removes when it is done with
// them: a query's CSV copy of PostgreSQL rows (engine.ts) and each process's today file (today-rows.ts). A crash
// leaves them behind; they are recognised by name and by how long nobody has touched them.
import { readdir, rm, stat } from "node:fs/promises";
import path from "node:path";

/** Removes the files of `dir` whose name `matches` and that nobody touched for `ageMs` of real time. */
export async function removeUntouchedFiles(dir: string, matches: (name: string) => boolean, ageMs: number): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!matches(name)) continue;
    const file = path.join(dir, name);
    const touched = await stat(file).then((s) => s.mtimeMs, () => null);
    if (touched !== null && Date.now() - touched > ageMs) await rm(file, { force: true });
  }
}
