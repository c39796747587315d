// `npm run bench:ingest-micro [-- --against OTHER_CHECKOUT --rounds 4]`: pieces of an /api/event request measured
// in process, CPU time per call, alternated between this checkout and another (gateway/README.md "Fifth pass"):
//
// - limiter: the event limiter's `event(address, addressId)` over the ingest scenario's 10,000 client addresses
//   in a random order (IPv6 clients by their /64, whose id is made there);
// - country: a country-cache hit for the same addresses, with the caller's `addressId`;
// - answer: a request's answer after its commit, 32 requests a commit — a promise per request with the route's
//   and the transport's `then` (the shape before the fifth pass) against this checkout's LaterResponse.
import path from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { LaterResponse, type HttpResponse, type ResponseSink } from "../../gateway/src/http/transport.ts";

const { values: args } = parseArgs({ options: { against: { type: "string" }, rounds: { type: "string", default: "4" } } });
const ROUNDS = Number(args.rounds);

interface Checkout {
  readonly name: string;
  readonly limits: typeof import("../../gateway/src/ingest/rate-limits.ts");
  readonly country: typeof import("../../gateway/src/geo/country.ts");
  readonly sip: typeof import("../../gateway/src/ingest/siphash.ts");
}
async function load(root: string, name: string): Promise<Checkout> {
  const at = (file: string) => import(pathToFileURL(path.join(root, "gateway/src", file)).href);
  return { name, limits: await at("ingest/rate-limits.ts"), country: await at("geo/country.ts"), sip: await at("ingest/siphash.ts") };
}

// The scenario's client addresses (bench/src/scenario.ts `ip`).
const ip = (i: number) => (i % 5 === 0 ? `2a02:26f0:${(i % 4096).toString(16)}:${Math.floor(i / 4096)}::1` : `${31 + (i % 180)}.${(i >> 3) % 250}.${(i * 7) % 250}.${1 + (i % 250)}`);
const ADDRESSES = Array.from({ length: 10_000 }, (_, i) => ip(i));
let seed = 7;
const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const ORDER = Array.from({ length: 400_000 }, () => Math.floor(rand() * ADDRESSES.length));

function cpuNs(run: () => void, calls: number): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return ((used.user + used.system) * 1000) / calls;
}

function lookups(c: Checkout, what: "limiter" | "country"): number {
  const ids = ADDRESSES.map((a) => c.sip.addressId(a));
  let now = 0;
  const limits = c.limits.createIngestLimits({ eventRatePerClient: 1e9, hitRatePerSite: 1000, now: () => now });
  const country = c.country.openCountryLookup(null);
  for (let i = 0; i < ADDRESSES.length; i++) {
    limits.event(ADDRESSES[i]!, ids[i]);
    country(ADDRESSES[i]!, ids[i]);
  }
  let found = 0;
  const ns = cpuNs(() => {
    for (let r = 0; r < 10; r++) {
      for (const i of ORDER) {
        now++;
        if (what === "limiter") limits.event(ADDRESSES[i]!, ids[i]);
        else found += country(ADDRESSES[i]!, ids[i]) === null ? 0 : 1;
      }
    }
  }, 10 * ORDER.length);
  if (found < 0) throw new Error("unreachable: keeps the lookups' answers used");
  return ns;
}

// The answer after a commit, both ways, for N requests settled 32 at a time by the "writer".
const ACCEPTED: HttpResponse = { status: 202 };
const refused = (): HttpResponse => ({ status: 503 });
let answered = 0;
class Exchange implements ResponseSink {
  answer(response: HttpResponse): void {
    answered += response.status === 202 ? 1 : 0;
  }
}
class Delivery extends LaterResponse {
  done(error?: unknown): void {
    if (this.answered) return;
    this.answer(error === undefined ? ACCEPTED : refused());
  }
}
type Settle = { done(error?: unknown): void };
function promiseRequest(box: Settle[], x: Exchange): void {
  const delivered = new Promise<void>((resolve, reject) => box.push({ done: (error) => (error === undefined ? resolve() : reject(error)) }));
  const result = delivered.then(() => ACCEPTED, refused);
  Promise.resolve(result).then((r) => x.answer(r), () => x.answer(refused()));
}
function laterRequest(box: Settle[], x: Exchange): void {
  const d = new Delivery();
  box.push(d);
  d.answerTo(x);
}
async function answers(request: (box: Settle[], x: Exchange) => void, n: number): Promise<number> {
  const before = process.cpuUsage();
  let box: Settle[] = [];
  for (let i = 0; i < n; i++) {
    request(box, new Exchange());
    if (box.length === 32) {
      const batch = box;
      box = [];
      // The commit settles in a later turn, as the writer's does.
      await Promise.resolve();
      for (const m of batch) m.done();
      await Promise.resolve();
    }
  }
  await new Promise((r) => setTimeout(r, 0));
  const used = process.cpuUsage(before);
  return ((used.user + used.system) * 1000) / n;
}

const self = await load(path.resolve(import.meta.dirname, "../.."), "this");
const other = args.against ? await load(path.resolve(args.against), "against") : null;
for (let round = 1; round <= ROUNDS; round++) {
  const parts: string[] = [];
  for (const what of ["limiter", "country"] as const) {
    const mine = lookups(self, what);
    parts.push(other ? `${what} ${lookups(other, what).toFixed(0)} (against) · ${mine.toFixed(0)} (this) ns` : `${what} ${mine.toFixed(0)} ns`);
  }
  const promised = await answers(promiseRequest, 2_000_000);
  const later = await answers(laterRequest, 2_000_000);
  parts.push(`answer: promise chain ${promised.toFixed(0)} · LaterResponse ${later.toFixed(0)} ns a request`);
  console.log(`round ${round}: ${parts.join("; ")}`);
}
console.log(JSON.stringify({ answered }));
