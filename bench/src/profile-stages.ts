// The gateway's CPU per ingest stage, from a `perf` profile of its process (`npm run bench -- --perf`).
//
// Why perf and not `--cpu-prof` alone: V8's sampler attributes the time the thread is off the CPU (waiting for a
// core on this shared 2-core box, or in a syscall that wakes PostgreSQL) to whatever JavaScript frame was on top,
// so a socket write looked like 14 % of the gateway; perf counts only on-CPU time, kernel included. The gateway
// runs with `--perf-basic-prof` so JavaScript frames carry names and bundle lines; each sample is given to the
// stage of its innermost frame that belongs to one (the bundle's `// path` comments say which source file a
// line came from). Native leaves are named by their caller, except JSON.parse (parse) and SHA-256 (lane).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";

export const STAGES = [
  "HTTP (uWebSockets.js, sockets, routing)", "address + rate limit", "parse", "decode", "classify", "enrich",
  "ingest glue (promises, site, hand-over)", "lane (stamp, visitor hash)", "visit state", "rollup counters",
  "COPY encode", "writer + PostgreSQL protocol", "rollup flush + live (per second)", "Effect runtime",
  "garbage collection", "V8 background threads (compiler, GC marking)", "other",
] as const;
export type Stage = (typeof STAGES)[number];

function stageOfSource(file: string, fn: string): Stage | null {
  if (file.includes("gateway/src/ingest/pipeline.ts")) {
    if (fn.includes("parseJson")) return "parse";
    if (/decode|userAgentHeader/.test(fn)) return "decode";
    if (fn.includes("enrich")) return "enrich";
    return "ingest glue (promises, site, hand-over)";
  }
  if (/ingest\/(client-ip|rate-limits|siphash)|core\/src\/ip\.ts/.test(file)) return "address + rate limit";
  if (file.includes("core/src/schema")) return "decode";
  if (file.includes("core/src/classify")) return "classify";
  if (/core\/src\/(device|traffic)|geo\/country|mmdb/.test(file)) return "enrich";
  if (/visitor-hash|lanes\/(site-lane|registry)/.test(file)) return "lane (stamp, visitor hash)";
  if (file.includes("lanes/visit-state")) return "visit state";
  if (file.includes("rollups/rollup-state")) return "rollup counters";
  // copy-text.ts: the text encoder of the passes before the thirteenth, when an older build runs as `--against`.
  if (/writer\/copy-(?:binary|text)|storage\/rows/.test(file)) return "COPY encode";
  if (/writer\/|node_modules\/pg|pg-protocol|pg-pool/.test(file)) return "writer + PostgreSQL protocol";
  if (/rollups\/|live\//.test(file)) return "rollup flush + live (per second)";
  if (/http\/|routes\/|errors\.ts|sites\/site-cache/.test(file)) return "HTTP (uWebSockets.js, sockets, routing)";
  if (file.includes("node_modules/effect")) return "Effect runtime";
  return null;
}

/** Source file of each bundle line, from esbuild's `// path` comments. */
export function bundleFiles(bundle: string): (line: number) => string | null {
  const starts: number[] = [];
  const files: string[] = [];
  fs.readFileSync(bundle, "utf8").split("\n").forEach((text, i) => {
    // Relative to where esbuild ran: the repo root (`gateway/src/…`, launchGateway's build) or gateway/
    // (`src/…`, `../core/…`: `npm run build:gateway`), both read as from the root.
    const m = /^\/\/ ((?:\.\.\/)*(?:node_modules|gateway|core|src)\/\S+\.(?:js|ts|mjs|cjs))$/.exec(text);
    if (m) {
      starts.push(i + 1);
      files.push(m[1]!.replace(/^(?:\.\.\/)+/, "").replace(/^src\//, "gateway/src/"));
    }
  });
  return (line) => {
    let lo = 0;
    let hi = starts.length - 1;
    let found: string | null = null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! <= line) {
        found = files[mid]!;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
}

const GC = /Heap::|Scavenge|MarkCompact|GCTracer|Sweeper|ConcurrentMarking|IncrementalMarking|Evacuat/;

function stageOfSample(frames: readonly string[], fileAt: (line: number) => string | null): Stage {
  if (GC.test(frames.slice(0, 6).join(" "))) return "garbage collection";
  const firstJs = frames.findIndex((f) => /JS:|uws_linux/.test(f));
  const native = (firstJs < 0 ? frames : frames.slice(0, firstJs)).join(" ");
  if (/JsonParser|JsonParse/.test(native)) return "parse";
  if (/sha256|SHA256|EVP_|node::crypto/.test(native)) return "lane (stamp, visitor hash)";
  for (const f of frames) {
    const bundled = /JS:[*^~]?(\S*) \S*main\.mjs:(\d+):/.exec(f);
    if (bundled) {
      const file = fileAt(Number(bundled[2]));
      const stage = file === null ? null : stageOfSource(file, bundled[1]!);
      if (stage) return stage;
    }
    // COPY row encoders are generated with new Function (writer/copy-binary.ts; `line` in older builds): no file.
    if (/JS:\S*(?:copyRow|line) :\d+:/.test(f)) return "COPY encode";
    if (f.includes("uws_linux")) return "HTTP (uWebSockets.js, sockets, routing)";
    // node:buffer is not here: a Buffer's toString or write belongs to its caller (the request body's decoding,
    // the lane's visitor hash), and counting it as the writer's put ~1 % of the gateway there (fourteenth pass).
    if (/node:net|node:internal\/stream/.test(f)) return "writer + PostgreSQL protocol";
  }
  // Unwinding stops in libc (no frame pointers): uWebSockets.js answers with send() and reads with recv(), while
  // libuv (PostgreSQL's socket) uses write() and read(), so those two are the HTTP side's own syscalls.
  const outer = frames[frames.length - 1]!;
  if (/ __send\+| __libc_recv\+/.test(outer)) return "HTTP (uWebSockets.js, sockets, routing)";
  if (/ start_thread\+/.test(outer)) return "V8 background threads (compiler, GC marking)";
  return "other";
}

export interface StageSamples {
  readonly stages: Map<Stage, number>;
  /** Samples of the process's main thread (thread id = process id), all stages: the event loop's own load. */
  readonly mainThread: number;
  /**
   * Samples with the site lane's turn on the stack (`LaneTurn.add` and everything it calls). The JIT inlines the
   * visit and rollup states' small methods into the turn in one build and not in another, which moves samples
   * between the lane, visit state and rollup counters rows; a frame's inclusive share does not move. The fifteenth
   * pass judged its cuts by it (gateway/README.md): 15.2–15.4 → 13.9–14.1 % of the gateway's samples in three pairs.
   */
  readonly laneTurn: number;
  /**
   * Samples by the innermost JavaScript frame on the stack, named with its source file (`hashKey
   * (core/src/visitor-hash.ts)`), and the native leaf's symbol for a sample with none: what a stage is made of,
   * frame by frame. The native code a frame calls counts as the frame's, as in the stages.
   */
  readonly frames: Map<string, number>;
}

/** The name `frames` files a sample under (StageSamples.frames). */
export function frameOf(frames: readonly string[], fileAt: (line: number) => string | null): string {
  for (const f of frames) {
    const bundled = /JS:[*^~]?(\S*) \S*main\.mjs:(\d+):/.exec(f);
    if (bundled) return `${bundled[1] || "(anonymous)"} (${fileAt(Number(bundled[2])) ?? "main.mjs"})`;
    // Node's own modules (`node:internal/streams/writable:548:23`) and the generated COPY row encoders (no file).
    const js = /JS:[*^~]?(\S*) (node:[^:\s]+|):\d+:\d+/.exec(f);
    if (js) return `${js[1] || "(anonymous)"} (${js[2] || "generated"})`;
  }
  // `ffffffff8123 _raw_spin_unlock_irqrestore+0x1d ([kernel.kallsyms])`: the symbol and the object's name.
  const leaf = /^\S+\s+(.+?)(?:\+0x[0-9a-f]+)?\s+\(([^)]*)\)$/.exec(frames[0]!);
  return leaf ? `${leaf[1]} [${leaf[2]!.split("/").pop()!.replace(/^\[(.*)\]$/, "$1")}]` : frames[0]!;
}

/** The lane's turn: a bundled frame named `add` from lanes/site-lane.ts (`LaneTurn.add`, the file's only `add`). */
function isLaneTurn(frame: string, fileAt: (line: number) => string | null): boolean {
  const bundled = /JS:[*^~]?add \S*main\.mjs:(\d+):/.exec(frame);
  return bundled !== null && fileAt(Number(bundled[1])) === "gateway/src/lanes/site-lane.ts";
}

/** Samples per stage of a `perf script` text, and how many of them ran on thread `mainTid`. */
export function stageSamples(perfScript: string, bundle: string, mainTid: number | null = null): StageSamples {
  const fileAt = bundleFiles(bundle);
  const counts = new Map<Stage, number>(STAGES.map((s) => [s, 0]));
  let mainThread = 0;
  let laneTurn = 0;
  const byFrame = new Map<string, number>();
  for (const block of perfScript.split("\n\n")) {
    const lines = block.split("\n");
    const frames = lines.slice(1).map((l) => l.trim()).filter(Boolean);
    if (frames.length === 0) continue;
    const stage = stageOfSample(frames, fileAt);
    counts.set(stage, counts.get(stage)! + 1);
    if (frames.some((f) => isLaneTurn(f, fileAt))) laneTurn++;
    const frame = frameOf(frames, fileAt);
    byFrame.set(frame, (byFrame.get(frame) ?? 0) + 1);
    // The header is `comm tid time: …`; the comm may hold spaces, the tid is the field before the time.
    if (mainTid !== null && new RegExp(`\\s${mainTid}\\s+\\d+\\.\\d+:`).test(lines[0]!)) mainThread++;
  }
  return { stages: counts, mainThread, laneTurn, frames: byFrame };
}

export const PERF_HZ = 499;

/**
 * Records `pid` with perf for `seconds` (call graphs by frame pointer; the process runs with
 * `--perf-basic-prof`), then reads the samples per stage. Run it alongside the load; it returns after it.
 */
export async function recordStages(pid: number, seconds: number, bundle: string): Promise<StageSamples> {
  const data = `/tmp/svc-bench-perf-${pid}.data`;
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn("perf", ["record", "-F", String(PERF_HZ), "-g", "-p", String(pid), "-o", data, "--", "sleep", String(seconds)], { stdio: "ignore" });
      child.once("error", reject);
      child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`perf record exited ${code}`))));
    });
    const script = spawnSync("perf", ["script", "-i", data], { encoding: "utf8", maxBuffer: 1 << 30 });
    if (script.status !== 0) throw new Error(`perf script failed: ${script.stderr}`);
    return stageSamples(script.stdout, bundle, pid);
  } finally {
    fs.rmSync(data, { force: true });
  }
}
