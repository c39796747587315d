// The ingest load scenario, shared by the Node runner and the k6 script: a deterministic mix of
// pre-built requests. Rows by actor ≈ 70% human, 10% human_via_ai, 10% ai_crawler, 5% ai_agent,
// 5% bot; Zipf-distributed paths; 10,000 visitor IPs, each with one user agent of its kind (a visitor
// is one IP and UA: drawing the UA anew per request would make nearly every request a new visitor).
// Browsers send events (one row a request); crawlers, agents and bots reach the middleware, which
// batches hits (10 rows a request here).
import fs from "node:fs";
import path from "node:path";
import { repoRoot } from "../../gateway/src/repo-root.ts";

export const BENCH_DOMAIN = "bench.example";

export interface ScenarioRequest {
  readonly path: "/api/event" | "/api/hit";
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly rows: number;
}

const ROW_SHARE = { human: 0.7, human_via_ai: 0.1, ai_crawler: 0.1, ai_agent: 0.05, bot: 0.05 } as const;
const HITS_PER_REQUEST = 10;
const PATHS = 500;
const IPS = 10_000;
const ASSISTANT_REFERRERS = ["https://chatgpt.com/", "https://www.perplexity.ai/search?q=x", "https://claude.ai/chat", "https://gemini.google.com/app", "https://copilot.microsoft.com/"];
const HUMAN_REFERRERS = [null, null, null, "https://www.google.com/", "https://www.bing.com/", "https://news.ycombinator.com/", "https://www.reddit.com/r/webdev/", "https://duckduckgo.com/"];

function prng(seed: number): () => number {
  return () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
}

/** Draws 0..n-1 with weight 1/(i+1) (Zipf, exponent 1): a few items take most of the draws. */
export function zipfSampler(n: number, rand: () => number): () => number {
  const weights = Array.from({ length: n }, (_, i) => 1 / (i + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const cdf: number[] = [];
  let acc = 0;
  for (const w of weights) cdf.push((acc += w / total));
  return () => {
    const x = rand();
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

function userAgentsByActor(): Record<keyof typeof ROW_SHARE, string[]> {
  const file = path.join(repoRoot, "core/test/fixtures/actors.jsonl");
  const out: Record<string, string[]> = { human: [], human_via_ai: [], ai_crawler: [], ai_agent: [], bot: [] };
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const c = JSON.parse(line) as { ua: string; expected: string; src: string };
    // human_via_ai rows decided by the referrer carry ordinary browser UAs: they are the browser pool too.
    if (c.expected === "human" || (c.expected === "human_via_ai" && c.src.includes("+ref"))) out["human"]!.push(c.ua);
    else if (c.expected !== "human_via_ai" && c.ua.trim()) out[c.expected]!.push(c.ua);
  }
  return out as Record<keyof typeof ROW_SHARE, string[]>;
}

const ip = (i: number) => (i % 5 === 0 ? `2a02:26f0:${(i % 4096).toString(16)}:${Math.floor(i / 4096)}::1` : `${31 + (i % 180)}.${(i >> 3) % 250}.${(i * 7) % 250}.${1 + (i % 250)}`);

export function buildScenario(count = 4000, seed = 7): ScenarioRequest[] {
  const rand = prng(seed);
  const uas = userAgentsByActor();
  const page = zipfSampler(PATHS, rand);
  const pick = <T,>(a: readonly T[]) => a[Math.floor(rand() * a.length)]!;
  const visitor = () => Math.floor(rand() * IPS);
  // Knuth's multiplicative hash spreads visitor numbers over the UA list without following ip()'s pattern.
  const uaOf = (list: readonly string[], v: number) => list[((v * 2654435761) >>> 0) % list.length]!;
  // Request shares that give the row shares above, given 10 hits a hit request.
  const eventRows = ROW_SHARE.human + ROW_SHARE.human_via_ai;
  const hitRequests = (1 - eventRows) / HITS_PER_REQUEST;
  const pEvent = eventRows / (eventRows + hitRequests);
  const requests: ScenarioRequest[] = [];
  for (let i = 0; i < count; i++) {
    if (rand() < pEvent) {
      const viaAi = rand() < ROW_SHARE.human_via_ai / eventRows;
      const body = {
        d: BENCH_DOMAIN,
        n: rand() < 0.9 ? "pageview" : pick(["Signup", "Outbound Link", "File Download"]),
        u: `https://${BENCH_DOMAIN}/p/${page()}`,
        r: viaAi ? pick(ASSISTANT_REFERRERS) : pick(HUMAN_REFERRERS),
        w: pick([390, 768, 1280, 1440, 1920]),
      };
      const v = visitor();
      requests.push({ path: "/api/event", headers: { "content-type": "text/plain", "user-agent": uaOf(uas.human, v), "x-forwarded-for": ip(v) }, body: JSON.stringify(body), rows: 1 });
    } else {
      const hits = Array.from({ length: HITS_PER_REQUEST }, () => {
        const x = rand() * (1 - eventRows);
        const actor = x < ROW_SHARE.ai_crawler ? "ai_crawler" : x < ROW_SHARE.ai_crawler + ROW_SHARE.ai_agent ? "ai_agent" : "bot";
        const v = visitor();
        return { domain: BENCH_DOMAIN, method: "GET", path: `/p/${page()}`, status: pick([200, 200, 200, 200, 301, 404]), user_agent: uaOf(uas[actor], v), referrer: null, ip: ip(v) };
      });
      requests.push({ path: "/api/hit", headers: { "content-type": "application/json" }, body: JSON.stringify(hits), rows: HITS_PER_REQUEST });
    }
  }
  return requests;
}
