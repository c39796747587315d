// `npm run build`: the package users install, in dist/. esbuild writes the ESM of every export (shared code
// in common chunks) and inlines the one module it takes from the repository's core, src/ip.ts (the
// collector's canonical IP form), so the published package depends on nothing of the repository; tsc writes
// the declarations. The frameworks (peer dependencies) and Node's built-ins stay imports.
//
//   node scripts/build.mjs [outDir]   (default dist)
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const outDir = process.argv[2] ?? `${root}dist`;
const manifest = JSON.parse(readFileSync(`${root}package.json`, "utf8"));
const tsc = fileURLToPath(new URL("../../node_modules/typescript/bin/tsc", import.meta.url));

rmSync(outDir, { recursive: true, force: true });
await build({
  entryPoints: Object.values(manifest.exports).map((target) => `${root}${target}`),
  outdir: outDir,
  outbase: `${root}src`,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  external: [...Object.keys(manifest.peerDependencies ?? {}), "node:*"],
  logLevel: "warning",
});
execFileSync(process.execPath, [tsc, "-p", `${root}tsconfig.build.json`, "--emitDeclarationOnly", "--outDir", outDir], { stdio: "inherit" });
