// Complete rows for storage tests: every column set, each test overriding what it is about.
import { createHash } from "node:crypto";
import type { EventRow, HitRow, RollupDelta } from "../../src/storage/rows.ts";

export function visitorHash(seed: string): Buffer {
  return createHash("sha256").update(seed).digest();
}

export function eventRow(overrides: Partial<EventRow> = {}): EventRow {
  return {
    site_id: 1,
    ts: Date.UTC(2026, 10, 21, 8, 30, 15, 123),
    name: "pageview",
    page: "/pricing",
    hostname: "example.com",
    referrer_host: "news.ycombinator.com",
    own_referrer_host: "news.ycombinator.com",
    source: "Hacker News",
    channel: "social",
    utm_source: "hn",
    utm_medium: "post",
    utm_campaign: "launch",
    utm_term: "analytics",
    utm_content: "top",
    country: "DE",
    device: "desktop",
    browser: "Firefox",
    browser_version: "133.0",
    os: "Linux",
    os_version: null,
    screen_width: 1920,
    actor: "human",
    ai_name: null,
    rule: "default-human",
    visitor_hash: visitorHash("v1"),
    props: null,
    ...overrides,
  };
}

export function hitRow(overrides: Partial<HitRow> = {}): HitRow {
  return {
    site_id: 1,
    ts: Date.UTC(2026, 10, 21, 8, 31, 0, 0),
    method: "GET",
    page: "/docs",
    status: 200,
    referrer_host: null,
    source: null,
    channel: "direct",
    utm_source: null,
    utm_medium: null,
    utm_campaign: null,
    utm_term: null,
    utm_content: null,
    country: null,
    device: "bot",
    browser: null,
    browser_version: null,
    os: null,
    os_version: null,
    actor: "ai_crawler",
    ai_name: "GPTBot",
    rule: "ua:gptbot",
    visitor_hash: visitorHash("crawler"),
    ...overrides,
  };
}

export function rollupDelta(overrides: Partial<RollupDelta> = {}): RollupDelta {
  return {
    site_id: 1,
    hour: Date.UTC(2026, 10, 21, 8),
    actor: "human",
    dim: "page",
    value: "/pricing",
    pageviews: 1,
    events: 1,
    hits: 0,
    visitors_hour: 1,
    visitors_day: 1,
    ...overrides,
  };
}
