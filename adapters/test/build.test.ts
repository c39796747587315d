// The package users install is the built one: ESM that plain Node runs, with declarations, core's IP module
// inlined (scripts/build.mjs), and packing points every export subpath at it.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const PACKAGE = fileURLToPath(new URL("..", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "svc-adapters-build-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const manifest = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8")) as { exports: Record<string, string> };

/** The specifiers a built file imports, and those of the chunks it imports, transitively. */
function importsOf(dir: string, file: string, seen = new Set<string>()): Set<string> {
  for (const [, specifier] of readFileSync(join(dir, file), "utf8").matchAll(/(?:from|import)\s*"([^"]+)"/g)) {
    if (seen.has(specifier!)) continue;
    seen.add(specifier!);
    if (specifier!.startsWith("./")) importsOf(dir, specifier!.slice(2), seen);
  }
  return seen;
}

describe("build and pack", () => {
  it("builds runnable ESM with declarations for every export, importing nothing of the repository", async () => {
    const out = join(work, "dist");
    execFileSync(process.execPath, [join(PACKAGE, "scripts/build.mjs"), out], { stdio: "pipe" });
    for (const target of Object.values(manifest.exports)) {
      const name = target.replace("./src/", "").replace(/\.ts$/, "");
      expect(existsSync(join(out, `${name}.js`)), `${name}.js`).toBe(true);
      expect(existsSync(join(out, `${name}.d.ts`)), `${name}.d.ts`).toBe(true);
      const external = [...importsOf(out, `${name}.js`)].filter((s) => !s.startsWith("./"));
      expect(external.filter((s) => s.startsWith("@svc/") || s.endsWith(".ts")), name).toEqual([]);
    }
    // The edge worker runs where node:net does not exist.
    expect([...importsOf(out, "worker.js")].filter((s) => s.startsWith("node:"))).toEqual([]);
    const built = (await import(pathToFileURL(join(out, "index.js")).href)) as typeof import("../src/index.ts");
    expect(built.isPlainBrowser("curl/8.5.0")).toBe(false);
    expect(built.requestPath("/a?b", false)).toBe("/a");
    expect(built.clientAddress("::FFFF:192.0.2.1", null, false)).toBe("192.0.2.1");
  }, 60_000);

  it("points the packed exports at dist and restores the source manifest afterwards", () => {
    const copy = join(work, "pkg");
    mkdirSync(join(copy, "scripts"), { recursive: true });
    copyFileSync(join(PACKAGE, "package.json"), join(copy, "package.json"));
    copyFileSync(join(PACKAGE, "scripts/publish-manifest.mjs"), join(copy, "scripts/publish-manifest.mjs"));
    const script = join(copy, "scripts/publish-manifest.mjs");
    execFileSync(process.execPath, [script, "prepare"]);
    const packed = JSON.parse(readFileSync(join(copy, "package.json"), "utf8")) as { exports: Record<string, unknown>; devDependencies?: unknown };
    expect(packed.exports["./express"]).toEqual({ types: "./dist/express.d.ts", default: "./dist/express.js" });
    expect(Object.keys(packed.exports)).toEqual([".", "./express", "./hono", "./next", "./worker", "./node"]);
    expect(packed.devDependencies).toBeUndefined();
    execFileSync(process.execPath, [script, "restore"]);
    expect(readFileSync(join(copy, "package.json"), "utf8")).toBe(readFileSync(join(PACKAGE, "package.json"), "utf8"));
  });
});
