// `npm run build:adapters`: the package as npm would publish it (`npm pack`: prepack builds dist/ and rewrites the
// manifest to export it), written to adapters/pack/svc-adapters.tgz, which the gateway serves at /adapters.tgz:
// the package is not on the npm registry, so a site owner installs it from their own gateway
// (`npm install https://stats.example.com/adapters.tgz`). Written under a temporary name and renamed, so a
// gateway starting meanwhile never reads half a file.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = `${root}pack`;
mkdirSync(out, { recursive: true });
const temp = mkdtempSync(`${out}/.tmp-`);
try {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  execFileSync(npm, ["pack", "--loglevel=warn", "--pack-destination", temp], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  const [tarball] = readdirSync(temp).filter((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error("npm pack wrote no .tgz");
  renameSync(`${temp}/${tarball}`, `${out}/svc-adapters.tgz`);
} finally {
  rmSync(temp, { recursive: true, force: true });
}
