// npm run bench:core [-- --seconds 2]
// The per-event domain work of one ingest request on one core, over the corpus UA mix:
// classify + device parse + referrer/channel + page path + visitor hash (the gateway's enrich step), plus the body
// decode on its own (fast path and Schema-only). "Cold" is the first pass in a fresh process: every distinct UA is a
// cache miss in both the classifier and the device parser, and nothing is JIT-compiled yet. "Warm" repeats the mix.
// The last stdout line is one JSON object with the figures.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  classify,
  createDeviceParser,
  decodeBrowserEvent,
  decodeBrowserEventWithSchema,
  DEVICE_CACHE_CAPACITY,
  type DeviceInfo,
  pagePath,
  parseDeviceUncached,
  trafficSource,
  utcDay,
  utmFromUrl,
  visitorHash,
} from "@svc/core";

const { values: args } = parseArgs({ options: { seconds: { type: "string", default: "2" } } });
const warmSeconds = Number(args.seconds);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
// The repository's own copy of the labelled corpus: a bench must run from a clone alone.
const corpusPath = path.join(root, "core/test/fixtures/actors.jsonl");
if (!fs.existsSync(corpusPath)) throw new Error(`no corpus: expected ${corpusPath}`);

interface CorpusLine {
  readonly ua: string;
  readonly referrer: string | null;
  readonly utm_source: string | null;
  readonly js: boolean;
}

const lines: CorpusLine[] = fs
  .readFileSync(corpusPath, "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l) => JSON.parse(l) as CorpusLine);

// One synthetic request per corpus line: a page URL carrying the line's utm_source, a client address spread over
// IPv4 and IPv6 (a third IPv6, about the share seen on consumer traffic), and a body as the tracker sends it.
const events = lines.map((line, i) => {
  const url = `https://example.com/blog/post-${i % 40}${line.utm_source === null ? "" : `?utm_source=${encodeURIComponent(line.utm_source)}`}`;
  return {
    ...line,
    url,
    ip: i % 3 === 0 ? `2001:db8:${(i * 7919) % 65536}::${i % 255}` : `198.51.${i % 256}.${(i * 31) % 256}`,
    ts: Date.UTC(2026, 10, 21) + i * 1000,
    body: JSON.parse(JSON.stringify({ d: "example.com", n: "pageview", u: url, r: line.referrer, h: "example.com", w: 390 + (i % 1500) })) as unknown,
  };
});
const distinctUas = new Set(lines.map((l) => l.ua)).size;
const salt = new Uint8Array(32).fill(7);
let checksum = 0; // consumed at the end so no step can be optimised away

function enrich(e: (typeof events)[number], parseDevice: (ua: string) => DeviceInfo): void {
  const utm = utmFromUrl(e.url);
  const who = classify({ ua: e.ua, referrer: e.referrer, utm_source: utm.utm_source, js: e.js });
  const device = parseDevice(e.ua);
  const traffic = trafficSource({ referrer: e.referrer, pageHost: "example.com", utm, assistant: who.actor === "human_via_ai" ? who.name : null });
  const page = pagePath(e.url);
  const day = utcDay(e.ts);
  const hash = visitorHash(salt, 1, e.ip, e.ua);
  checksum += hash[0]! + device.device.length + traffic.channel.length + page.length + day.length + who.rule.length;
}

// Rates are per second of this process's CPU time (user + system), i.e. events per core-second: the machine is
// shared, and wall-clock rates swung 10x between runs under other processes' load while CPU-time rates held.
// The wall-clock rate of the warm run is reported beside it.
interface Rate {
  readonly cpu: number;
  readonly wall: number;
}

function measure(run: () => number): Rate {
  const wallStart = process.hrtime.bigint();
  const cpuStart = process.cpuUsage();
  const count = run();
  const cpu = process.cpuUsage(cpuStart);
  return { cpu: count / ((cpu.user + cpu.system) / 1e6), wall: count / (Number(process.hrtime.bigint() - wallStart) / 1e9) };
}

/** Repeats `pass` for about `seconds` in five rounds and returns the median round, so one GC pause does not decide. */
function steadyRate(pass: () => void, perPass: number, seconds: number): Rate {
  const rates: Rate[] = [];
  for (let round = 0; round < 5; round++) {
    rates.push(
      measure(() => {
        const start = process.hrtime.bigint();
        let done = 0;
        while (Number(process.hrtime.bigint() - start) / 1e9 < seconds / 5) {
          pass();
          done += perPass;
        }
        return done;
      }),
    );
  }
  return rates.sort((a, b) => a.cpu - b.cpu)[2]!;
}

const parseDevice = createDeviceParser(DEVICE_CACHE_CAPACITY);
const cold = measure(() => {
  for (const e of events) enrich(e, parseDevice);
  return events.length;
});
const warm = steadyRate(() => {
  for (const e of events) enrich(e, parseDevice);
}, events.length, warmSeconds);
// Every UA a cache miss in the device parser: a UA-rotating crawler, or a cache far too small.
const uncachedUa = steadyRate(() => {
  for (const e of events) enrich(e, parseDeviceUncached);
}, events.length, warmSeconds / 2);

const decodeFast = steadyRate(() => {
  for (const e of events) if (decodeBrowserEvent(e.body).ok) checksum++;
}, events.length, warmSeconds / 2);
const decodeSchema = steadyRate(() => {
  for (const e of events) if (decodeBrowserEventWithSchema(e.body).ok) checksum++;
}, events.length, warmSeconds / 2);

const round = (n: number, digits = 0) => Number(n.toFixed(digits));
console.log(`corpus ${path.relative(root, corpusPath)}: ${events.length} events, ${distinctUas} distinct user agents (checksum ${checksum})`);
console.log(
  `enrich (classify + device + traffic + page + day + hash), events per core-second: cold ${round(cold.cpu)}, ` +
    `warm ${round(warm.cpu)} (wall clock ${round(warm.wall)}/s), device cache always missing ${round(uncachedUa.cpu)}`,
);
console.log(`decode /api/event body: fast path ${round(1e6 / decodeFast.cpu, 3)} µs, Schema only ${round(1e6 / decodeSchema.cpu, 3)} µs`);
console.log(
  JSON.stringify({
    events: events.length,
    distinct_user_agents: distinctUas,
    cold_events_per_s: round(cold.cpu),
    warm_events_per_s: round(warm.cpu),
    us_per_event_warm: round(1e6 / warm.cpu, 3),
    warm_events_per_wall_s: round(warm.wall),
    uncached_ua_events_per_s: round(uncachedUa.cpu),
    decode_fast_us: round(1e6 / decodeFast.cpu, 3),
    decode_schema_us: round(1e6 / decodeSchema.cpu, 3),
    // The machine is shared; a load average above the core count lowers the wall-clock figure most.
    load_avg_1m: round(os.loadavg()[0]!, 2),
    cpus: os.cpus().length,
  }),
);
