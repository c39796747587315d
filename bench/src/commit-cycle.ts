// `npm run bench:commit-cycle [-- --against OTHER_CHECKOUT --rounds 4 --commits 20000 --sites 1 --suspensions]`:
// the Effect work of one group commit's cycle, in process, CPU time per commit (gateway/README.md "Sixth pass").
// The real GroupCommitWriter and the real SiteLane loop of each checkout, with what is not theirs left out: the commit resolves in a later
// macrotask (as a PostgreSQL socket read does), the lane's day is ready and its `process` builds the
// submission without hashing or counting, and 72 clients each offer a new message in its own macrotask once
// their previous one is answered (as uWebSockets.js callbacks do), so commits carry ~36 rows as in the
// whole-gateway bench.
import { createHook } from "node:async_hooks";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import type { Effect, Fiber } from "effect";
import { build } from "esbuild";

const { values: args } = parseArgs({ options: { against: { type: "string" }, rounds: { type: "string", default: "4" }, clients: { type: "string", default: "72" }, commits: { type: "string", default: "20000" }, suspensions: { type: "boolean", default: false }, sites: { type: "string", default: "1" } } });
const ROUNDS = Number(args.rounds);
const CLIENTS = Number(args.clients);
const COMMITS = Number(args.commits);
// `--sites N`: the clients spread over N lanes (one site each), all handing over to the one writer.
const SITES = Number(args.sites);

interface Checkout {
  readonly name: string;
  readonly writer: typeof import("../../gateway/src/writer/group-commit.ts");
  readonly pending: typeof import("../../gateway/src/writer/pending-commits.ts");
  readonly lane: typeof import("../../gateway/src/lanes/site-lane.ts");
  readonly faults: typeof import("../../gateway/src/supervision/faults.ts");
  readonly log: typeof import("../../gateway/src/log.ts");
  /** The bundle's own copy of Effect runs its fibers. */
  readonly Effect: typeof Effect;
  readonly Fiber: typeof Fiber;
}
// Each checkout's modules bundled as the gateway is (esbuild, no `keepNames`): under the tsx loader every closure
// made per message would be named at run time (`__name`), which alone took a quarter of the CPU.
async function load(root: string, name: string): Promise<Checkout> {
  const out = path.join(os.tmpdir(), `commit-cycle-${process.pid}-${name}.mjs`);
  const src = path.join(root, "gateway/src");
  await build({
    stdin: { contents: ["writer/group-commit.ts", "writer/pending-commits.ts", "lanes/site-lane.ts", "supervision/faults.ts", "log.ts"].map((f, i) => `export * as m${i} from ${JSON.stringify(path.join(src, f))};`).join("\n") + '\nexport { Effect, Fiber } from "effect";', resolveDir: src, loader: "ts" },
    bundle: true, platform: "node", format: "esm", target: "node20", outfile: out, logLevel: "error",
    // repo-root.ts finds the checkout from its own file, not from the temporary bundle's.
    define: { "import.meta.url": JSON.stringify(pathToFileURL(path.join(src, "repo-root.ts")).href) },
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  const m = await import(pathToFileURL(out).href);
  fs.rmSync(out);
  return { name, writer: m.m0, pending: m.m1, lane: m.m2, faults: m.m3, log: m.m4, Effect: m.Effect, Fiber: m.Fiber };
}

/** CPU µs, rows and hand-overs per commit of `COMMITS` commits through one checkout's writer and lanes. */
async function cycle(c: Checkout): Promise<{ us: number; rows: number; handOvers: number; batches: number }> {
  const { Effect, Fiber } = c;
  const writer = new c.writer.GroupCommitWriter({
    pool: null as never,
    commit: () => new Promise<void>((resolve) => setImmediate(resolve)),
    batchMaxRows: 1000,
    flushMs: 2,
    capacity: 64,
    inFlight: 1,
    log: c.log.silentLogger,
    pending: new c.pending.PendingCommits(),
    faults: new c.faults.FaultInjector(),
    onCommitError: () => undefined,
    onCommitted: () => undefined,
  });
  const deps = { clock: { now: () => Date.now() }, writer, faults: new c.faults.FaultInjector(), ownership: null } as never;
  const lanes = Array.from({ length: SITES }, (_, i) => {
    const lane = new c.lane.SiteLane(i + 1, 1000, deps);
    // The lane's own work (hashing, counting) is measured elsewhere: only its loop runs here.
    const bare = lane as unknown as { dayReady: () => boolean; process: (messages: readonly { done: () => void }[]) => unknown };
    bare.dayReady = () => true;
    bare.process = (messages) => ({
      siteId: i + 1, valid: () => true, events: messages as never, hits: [], rollups: [], count: () => undefined, hour: 0,
      committed: () => { for (const m of messages) m.done(); },
      failed: (error: unknown) => { throw error; },
      requests: () => [],
    });
    return lane;
  });
  const writerFiber = Effect.runFork(writer.loop());
  const laneFibers = lanes.map((lane) => Effect.runFork(lane.loop()));
  let started = 0;
  let finished: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finished = resolve));
  // One object per request and no closure: the driver's own cost stays out of the figure.
  class Request {
    readonly rows = [];
    constructor(readonly site: number) {}
    done(): void {
      if (writer.stats.batches < COMMITS) setImmediate(client, this.site);
      else finished();
    }
  }
  const client = (site: number) => {
    started++;
    lanes[site]!.offer(new Request(site));
  };
  // Warm-up, then the measured commits.
  for (let i = 0; i < CLIENTS; i++) setImmediate(client, i % SITES);
  while (writer.stats.batches < 2000) await new Promise((r) => setTimeout(r, 5));
  const batches = writer.stats.batches;
  const startedBefore = started;
  const submissions = writer.stats.submissions;
  const before = process.cpuUsage();
  await done;
  const used = process.cpuUsage(before);
  const commits = writer.stats.batches - batches;
  const handOvers = writer.stats.submissions - submissions;
  for (const lane of lanes) await Effect.runPromise(lane.end());
  await new Promise((r) => setTimeout(r, 20));
  await Effect.runPromise(writer.end());
  await Effect.runPromise(Effect.all([writerFiber, ...laneFibers].map((f) => Fiber.await(f))));
  return { us: (used.user + used.system) / commits, rows: (started - startedBefore) / commits, handOvers: handOvers / commits, batches: writer.stats.batches };
}

// `--suspensions`: counts the fibers' suspensions instead of timing (Effect gives each suspended fiber an
// AsyncResource "effect/Fiber" to resume in; an async hook sees each one made). The hook slows every promise,
// so no time is printed then.
let suspensions = 0;
if (args.suspensions) createHook({ init: (_id, type) => void (type === "effect/Fiber" && suspensions++) }).enable();

const self = await load(path.resolve(import.meta.dirname, "../.."), "this");
const other = args.against ? await load(path.resolve(args.against), "against") : null;
for (let round = 1; round <= ROUNDS; round++) {
  const parts: string[] = [];
  for (const c of other ? [other, self] : [self]) {
    const before = suspensions;
    const { us, rows, handOvers, batches } = await cycle(c);
    parts.push(args.suspensions
      ? `${c.name} ${((suspensions - before) / batches).toFixed(2)} fiber suspensions a commit (${rows.toFixed(1)} rows, ${handOvers.toFixed(2)} hand-overs)`
      : `${c.name} ${us.toFixed(1)} µs a commit (${rows.toFixed(1)} rows, ${handOvers.toFixed(2)} hand-overs)`);
  }
  console.log(`round ${round}: ${parts.join(" · ")}`);
}
