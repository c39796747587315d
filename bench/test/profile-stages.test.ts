// The per-stage profile reads which source file each bundle line came from in esbuild's `// path` comments,
// whose paths are relative to where esbuild ran: the repo root (launchGateway's build) or gateway/
// (`npm run build:gateway`). Both must read as the same files, or a stage table of one build loses its stages.
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { bundleFiles, stageSamples } from "../src/profile-stages.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "svc-profile-stages-"));

it.each([
  { built: "from the repo root", comments: ["// node_modules/pg/lib/client.js", "// core/src/schema.ts", "// gateway/src/ingest/pipeline.ts"] },
  { built: "from gateway/", comments: ["// ../node_modules/pg/lib/client.js", "// ../core/src/schema.ts", "// src/ingest/pipeline.ts"] },
])("reads a bundle built $built", ({ built, comments }) => {
  const bundle = path.join(dir, `${built.replaceAll(/\W/g, "-")}.mjs`);
  // Lines 1–2 a file's code, 3 the next comment, … (1-based, as perf's bundle lines are).
  writeFileSync(bundle, comments.flatMap((c) => [c, "code();"]).join("\n"));
  const fileOf = bundleFiles(bundle);
  expect([2, 4, 6].map(fileOf)).toEqual(["node_modules/pg/lib/client.js", "core/src/schema.ts", "gateway/src/ingest/pipeline.ts"]);
});

// An older build run as `--against` still has its COPY encoding counted as such: its text encoder's file and
// generated `line` functions, as well as today's binary ones (`copyRow`).
it("counts the COPY encoding of this build and of builds before the binary encoder", () => {
  // perf names a bundled frame by its file, the gateway's main.mjs.
  const bundle = path.join(dir, "main.mjs");
  writeFileSync(bundle, ["// gateway/src/writer/copy-binary.ts", "code();", "// gateway/src/writer/copy-text.ts", "code();"].join("\n"));
  const sample = (frame: string) => `node 100 1.000001: 1 cycles:\n\t1 ${frame} (/tmp/perf-100.map)\n\t2 uv_run (/usr/bin/node)`;
  const script = [
    sample("JS:*copyRow :3:21"),
    sample("JS:*line :3:21"),
    sample(`JS:*text file://${bundle}:2:5`),
    sample(`JS:*text file://${bundle}:4:5`),
  ].join("\n\n");
  expect(stageSamples(script, bundle).stages.get("COPY encode")).toBe(4);
});

// A Buffer method's frames (node:buffer) are counted as their caller's stage, not as the writer's socket writes.
it("counts node:buffer frames as their caller's", () => {
  // perf names a bundled frame by its file, main.mjs: a directory of its own.
  const bundle = path.join(mkdtempSync(path.join(dir, "callers-")), "main.mjs");
  writeFileSync(bundle, ["// gateway/src/lanes/site-lane.ts", "code();", "// gateway/src/writer/group-commit.ts", "code();"].join("\n"));
  const sample = (...frames: string[]) => `node 100 1.000001: 1 cycles:\n${frames.map((f, i) => `\t${i + 1} ${f} (/tmp/perf-100.map)`).join("\n")}\n\t9 uv_run (/usr/bin/node)`;
  const script = [
    sample("JS:*write node:buffer:1102:40", `JS:*add file://${bundle}:2:5`),
    sample("JS:*writeOrBuffer node:internal/streams/writable:548:23", `JS:*commit file://${bundle}:4:5`),
  ].join("\n\n");
  const { stages } = stageSamples(script, bundle);
  expect(stages.get("lane (stamp, visitor hash)")).toBe(1);
  expect(stages.get("writer + PostgreSQL protocol")).toBe(1);
});

// The lane's turn is counted inclusive: whatever it called, inlined into it or not, and no other file's `add`.
it("counts the samples with the lane's turn on the stack", () => {
  const bundle = path.join(mkdtempSync(path.join(dir, "lane-turn-")), "main.mjs");
  writeFileSync(bundle, ["// gateway/src/lanes/site-lane.ts", "code();", "// gateway/src/rollups/rollup-state.ts", "code();", "// gateway/src/rollups/ledger.ts", "code();"].join("\n"));
  const sample = (...frames: string[]) => `node 100 1.000001: 1 cycles:\n${frames.map((f, i) => `\t${i + 1} ${f} (/tmp/perf-100.map)`).join("\n")}\n\t9 uv_run (/usr/bin/node)`;
  const script = [
    sample("Builtins_FindOrderedHashMapEntry", `JS:*countDimension file://${bundle}:4:5`, `JS:*add file://${bundle}:2:5`),
    sample(`JS:*add file://${bundle}:2:5`),
    sample(`JS:*add file://${bundle}:6:5`),
    sample(`JS:*observe file://${bundle}:4:5`),
  ].join("\n\n");
  const { stages, laneTurn } = stageSamples(script, bundle);
  expect(laneTurn).toBe(2);
  expect([stages.get("rollup counters"), stages.get("lane (stamp, visitor hash)")]).toEqual([2, 1]);
});

// The hottest frames: each sample under its innermost JavaScript frame with that frame's source file (a bundled
// one by its bundle line, Node's own by its module, a generated COPY encoder as generated), else its native leaf.
it("files each sample under its innermost JavaScript frame, else its native leaf", () => {
  const bundle = path.join(mkdtempSync(path.join(dir, "frames-")), "main.mjs");
  writeFileSync(bundle, ["// core/src/visitor-hash.ts", "code();", "// gateway/src/lanes/site-lane.ts", "code();"].join("\n"));
  const sample = (...frames: string[]) => `node 100 1.000001: 1 cycles:\n${frames.map((f, i) => `\t${i + 1} ${f}`).join("\n")}`;
  const script = [
    sample("SHA256_Update+0x12 (/usr/lib/libcrypto.so.3)", `JS:*hashKey file://${bundle}:2:5+0x63f (/tmp/perf-100.map)`, `JS:*add file://${bundle}:4:5 (/tmp/perf-100.map)`),
    sample(`JS:*hashKey file://${bundle}:2:7 (/tmp/perf-100.map)`),
    sample("JS:*writeOrBuffer node:internal/streams/writable:548:23+0x20 (/tmp/perf-100.map)", `JS:*add file://${bundle}:4:5 (/tmp/perf-100.map)`),
    sample("JS:*copyRow :3:24 (/tmp/perf-100.map)"),
    sample("_raw_spin_unlock_irqrestore+0x1d ([kernel.kallsyms])", "__send+0x4 (/usr/lib/x86_64-linux-gnu/libc.so.6)"),
    sample("[unknown] (/work/node_modules/uWebSockets.js/binaries/uws_linux_x64_115.node)"),
  ].join("\n\n");
  expect(Object.fromEntries(stageSamples(script, bundle).frames)).toEqual({
    "hashKey (core/src/visitor-hash.ts)": 2,
    "writeOrBuffer (node:internal/streams/writable)": 1,
    "copyRow (generated)": 1,
    "_raw_spin_unlock_irqrestore [kernel.kallsyms]": 1,
    "[unknown] [uws_linux_x64_115.node]": 1,
  });
});
