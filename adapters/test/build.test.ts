// The package users install is the compiled one: tsc emits ESM that plain Node runs (relative .ts imports
// rewritten to .js) with declarations, and packing points every export subpath at it.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const PACKAGE = fileURLToPath(new URL("..", import.meta.url));
const TSC = fileURLToPath(new URL("../../node_modules/typescript/bin/tsc", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "svc-adapters-build-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const manifest = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8")) as { exports: Record<string, string> };

describe("build and pack", () => {
  it("compiles src to runnable ESM with declarations for every export", async () => {
    const out = join(work, "dist");
    execFileSync(process.execPath, [TSC, "-p", join(PACKAGE, "tsconfig.build.json"), "--outDir", out], { stdio: "pipe" });
    for (const target of Object.values(manifest.exports)) {
      const name = target.replace("./src/", "").replace(/\.ts$/, "");
      expect(existsSync(join(out, `${name}.js`)), `${name}.js`).toBe(true);
      expect(existsSync(join(out, `${name}.d.ts`)), `${name}.d.ts`).toBe(true);
      expect(readFileSync(join(out, `${name}.js`), "utf8")).not.toMatch(/from "\.\/[^"]+\.ts"/);
    }
    const built = (await import(pathToFileURL(join(out, "index.js")).href)) as typeof import("../src/index.ts");
    expect(built.isPlainBrowser("curl/8.5.0")).toBe(false);
    expect(built.requestPath("/a?b", false)).toBe("/a");
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
