// Shared domain types. Every workspace imports these from "@svc/core".

export const ACTORS = ["human", "human_via_ai", "ai_crawler", "ai_agent", "bot"] as const;
export type Actor = (typeof ACTORS)[number];

/** The rule that decided an actor; it is stored on every row as the "what was filtered and why" ledger. */
export const CLASSIFY_RULES = [
  "empty_ua",
  "ai_crawler_token",
  "ai_agent_token",
  "generic_bot",
  "headless_marker",
  "headless_service",
  "non_browser_ua",
  "assistant_referrer",
  "assistant_utm",
  "assistant_webview",
  "default",
] as const;
export type ClassifyRule = (typeof CLASSIFY_RULES)[number];

export interface ClassifyInput {
  readonly ua: string;
  /** Full referrer URL; null or "" means none. */
  readonly referrer: string | null;
  /** utm_source as sent (not normalised); null when absent. */
  readonly utm_source: string | null;
  /** true for the browser script path (POST /api/event), false for middleware hits. */
  readonly js: boolean;
}

export interface Classification {
  readonly actor: Actor;
  /** Canonical crawler/agent/assistant name for the three AI actors; null for human and bot. */
  readonly name: string | null;
  readonly rule: ClassifyRule;
}

export const CHANNELS = ["direct", "search", "social", "ai_assistant", "email", "paid", "referral"] as const;
export type Channel = (typeof CHANNELS)[number];

export const DEVICES = ["desktop", "mobile", "tablet", "other"] as const;
export type DeviceType = (typeof DEVICES)[number];

/** The five UTM parameters an event carries, as body keys or in its page URL's query. */
export const UTM_KEYS = ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"] as const;

export interface Utm {
  readonly utm_source: string | null;
  readonly utm_medium: string | null;
  readonly utm_campaign: string | null;
  readonly utm_term: string | null;
  readonly utm_content: string | null;
}

/** A client-facing validation error: where in the body, and what is wrong. */
export interface FieldError {
  readonly path: string;
  readonly message: string;
}

/** Milliseconds since the epoch; injected everywhere a day or a salt matters. */
export interface Clock {
  readonly now: () => number;
}
export const systemClock: Clock = { now: () => Date.now() };
