// The known traffic the read tests assert exact numbers on, sent through the real /api/event and /api/hit.
// Yesterday: 2 humans. Today: humans (visits from Google and from a newsletter), visits via ChatGPT and Perplexity, GPTBot and ClaudeBot hits on chosen
// pages, agent fetches with 404s, a bot, and goal events from humans, an assistant visitor and a crawler (a
// crawler UA sending a browser event is still ai_crawler: the UA decides the actor).
import { expect } from "vitest";
import { type Harness, UA, post } from "../support/harness.ts";

export const FIXTURE_DOMAIN = "fixture.example";
export const TODAY = "2026-03-15";
export const YESTERDAY = "2026-03-14";

const IP = { gb: "81.2.69.142", us: "8.8.8.8", a: "1.1.1.1", b: "9.9.9.9", c: "8.8.4.4", d: "81.2.69.160" } as const;
const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

interface Step {
  readonly at: string;
  readonly send: "event" | "hit";
  readonly body: Record<string, unknown>;
  readonly ua?: string;
  readonly ip?: string;
}

const page = (path: string) => `https://${FIXTURE_DOMAIN}${path}`;
const ev = (at: string, ua: string, ip: string, path: string, extra: Record<string, unknown> = {}): Step => ({
  at, send: "event", ua, ip, body: { d: FIXTURE_DOMAIN, u: page(path), ...extra },
});
const hit = (at: string, ua: string, ip: string, path: string, status: number): Step => ({
  at, send: "hit", body: { domain: FIXTURE_DOMAIN, method: "GET", path, status, user_agent: ua, referrer: null, ip },
});

export const STEPS: readonly Step[] = [
  // Yesterday, 10:00: two humans, one converts.
  ev(`${YESTERDAY}T10:00:00Z`, UA.chrome, IP.gb, "/", { r: "https://www.google.com/" }),
  ev(`${YESTERDAY}T10:01:00Z`, firefox, IP.us, "/pricing"),
  ev(`${YESTERDAY}T10:02:00Z`, firefox, IP.us, "/pricing", { n: "Signup" }),
  // Today, 09:xx: humans.
  ev(`${TODAY}T09:00:00Z`, UA.chrome, IP.gb, "/", { r: "https://www.google.com/" }),
  ev(`${TODAY}T09:01:00Z`, UA.chrome, IP.gb, "/pricing"),
  ev(`${TODAY}T09:02:00Z`, UA.chrome, IP.gb, "/pricing", { n: "Signup" }),
  // A visit entered from a newsletter link: its next page and event count under the newsletter too.
  ev(`${TODAY}T09:03:00Z`, UA.iphone, IP.us, "/?utm_source=newsletter&utm_medium=email&utm_campaign=launch"),
  ev(`${TODAY}T09:04:00Z`, UA.iphone, IP.us, "/blog/a"),
  ev(`${TODAY}T09:05:00Z`, UA.iphone, IP.us, "/blog/a", { n: "Outbound Link", p: { url: "https://other.example/" } }),
  // Today, 10:xx: visits via ChatGPT and Perplexity; one converts.
  ev(`${TODAY}T10:00:00Z`, UA.chrome, IP.a, "/blog/a", { r: "https://chatgpt.com/" }),
  ev(`${TODAY}T10:01:00Z`, UA.chrome, IP.a, "/blog/a", { r: "https://chatgpt.com/", n: "Signup" }),
  ev(`${TODAY}T10:02:00Z`, UA.iphone, IP.b, "/docs", { r: "https://www.perplexity.ai/" }),
  ev(`${TODAY}T10:03:00Z`, firefox, IP.c, "/docs", { r: "https://chatgpt.com/" }),
  // Today, 11:xx: crawlers on chosen pages (/blog/b is crawled but never referred), a crawler firing the goal.
  hit(`${TODAY}T11:00:00Z`, UA.gptbot, IP.us, "/blog/a", 200),
  hit(`${TODAY}T11:01:00Z`, UA.gptbot, IP.us, "/blog/b", 200),
  hit(`${TODAY}T11:02:00Z`, UA.gptbot, IP.us, "/blog/b", 200),
  hit(`${TODAY}T11:03:00Z`, UA.claudebot, IP.a, "/blog/b", 301),
  hit(`${TODAY}T11:04:00Z`, UA.claudebot, IP.a, "/docs", 200),
  ev(`${TODAY}T11:05:00Z`, UA.gptbot, IP.us, "/pricing", { n: "Signup" }),
  // Today, 11:1x: agent fetches with 404s, a headless pageview, a generic bot.
  hit(`${TODAY}T11:10:00Z`, UA.chatgptUser, IP.b, "/docs", 200),
  hit(`${TODAY}T11:11:00Z`, UA.chatgptUser, IP.b, "/missing", 404),
  hit(`${TODAY}T11:12:00Z`, UA.chatgptUser, IP.b, "/missing", 404),
  hit(`${TODAY}T11:13:00Z`, UA.chatgptUser, IP.b, "/docs", 500),
  ev(`${TODAY}T11:14:00Z`, UA.headless, IP.d, "/pricing"),
  hit(`${TODAY}T11:20:00Z`, UA.googlebot, IP.gb, "/", 200),
];

/** Sends every step with the harness clock at its time, then leaves the clock at today 12:30. */
export async function ingestFixture(h: Harness): Promise<void> {
  for (const step of STEPS) {
    h.clock.set(step.at);
    const res =
      step.send === "event"
        ? await post(h.base, "/api/event", step.body, { "user-agent": step.ua!, "x-forwarded-for": step.ip! })
        : await post(h.base, "/api/hit", step.body);
    expect(res.status, JSON.stringify(res.json)).toBe(202);
  }
  h.clock.set(`${TODAY}T12:30:00Z`);
}
