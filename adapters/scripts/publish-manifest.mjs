// In the repository the package exports its TypeScript sources (tests and tsx run them directly, no build);
// a packed package must export the compiled dist/ instead. `prepare` rewrites package.json for packing and
// keeps the original beside it; `restore` (postpack) puts the original back.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

const manifest = new URL("../package.json", import.meta.url);
const saved = new URL("../package.source.json", import.meta.url);
const mode = process.argv[2];

if (mode === "prepare") {
  if (existsSync(saved)) throw new Error("package.source.json exists: a previous pack did not restore; run `node scripts/publish-manifest.mjs restore`");
  const source = readFileSync(manifest, "utf8");
  const pkg = JSON.parse(source);
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const name = String(target).replace(/^\.\/src\//, "").replace(/\.ts$/, "");
    pkg.exports[subpath] = { types: `./dist/${name}.d.ts`, default: `./dist/${name}.js` };
  }
  pkg.types = "./dist/index.d.ts";
  delete pkg.devDependencies;
  delete pkg.scripts;
  writeFileSync(saved, source);
  writeFileSync(manifest, JSON.stringify(pkg, null, 2) + "\n");
} else if (mode === "restore") {
  if (existsSync(saved)) renameSync(saved, manifest);
} else {
  throw new Error("usage: publish-manifest.mjs prepare|restore");
}
