/**
 * Builds src/svc.ts into dist/svc.js (minified IIFE) and enforces the size budget:
 * SPEC "Limits" says about 1 KB, so more than 1,024 bytes after `gzip -9` fails the build.
 * Run: `npm run build -w tracker`. Tests call `buildTracker()` from their global setup.
 */
import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const trackerDir = join(dirname(fileURLToPath(import.meta.url)), "..");
export const TRACKER_SOURCE = join(trackerDir, "src", "svc.ts");
export const TRACKER_BUNDLE = join(trackerDir, "dist", "svc.js");
export const GZIP_BUDGET_BYTES = 1024;

export interface TrackerBuild {
  readonly path: string;
  readonly rawBytes: number;
  readonly gzipBytes: number;
}

export class TrackerOverBudget extends Error {
  constructor(readonly gzipBytes: number, readonly budgetBytes: number) {
    super(`tracker is ${gzipBytes} gzip bytes, over the budget of ${budgetBytes}`);
    this.name = "TrackerOverBudget";
  }
}

/** gzip at level 9, the figure `gzip -9` gives (node's zlib and GNU gzip both use deflate level 9). */
export const gzipSize = (code: Uint8Array | string): number => gzipSync(code, { level: 9 }).length;

export async function buildTracker(budgetBytes: number = GZIP_BUDGET_BYTES): Promise<TrackerBuild> {
  const result = await build({
    entryPoints: [TRACKER_SOURCE],
    bundle: true,
    format: "esm",
    // ES2020 keeps `?.` native (Chrome 80, Firefox 74, Safari 13.1); down-levelling it costs bytes.
    target: "es2020",
    minify: true,
    legalComments: "none",
    write: false,
  });
  const code = result.outputFiles[0]!.contents;
  const gzipBytes = gzipSize(code);
  if (gzipBytes > budgetBytes) throw new TrackerOverBudget(gzipBytes, budgetBytes);
  await mkdir(dirname(TRACKER_BUNDLE), { recursive: true });
  // Written beside and renamed into place: tests of other workspaces build it too, and a reader must never see half a file.
  const partial = `${TRACKER_BUNDLE}.${process.pid}.partial`;
  await writeFile(partial, code);
  await rename(partial, TRACKER_BUNDLE);
  return { path: TRACKER_BUNDLE, rawBytes: code.length, gzipBytes };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  buildTracker().then(
    (built) => {
      console.log(`tracker/dist/svc.js: ${built.rawBytes} bytes raw, ${built.gzipBytes} bytes gzip -9 (budget ${GZIP_BUDGET_BYTES})`);
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    },
  );
}
