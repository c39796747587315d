// The four wire formats a team can choose (PATCH /api/team/llm), each one non-streaming request with the
// instructions as the system message and the aggregate's JSON as the only user message:
//   local      Ollama's POST {SVC_LLM_HOST}/api/chat                      → message.content
//   openai     POST {SVC_OPENAI_BASE_URL}/v1/chat/completions (any compatible server) → choices[0].message.content
//   anthropic  Messages API, POST {SVC_ANTHROPIC_BASE_URL}/v1/messages   → content[].text
//   gemini     POST {SVC_GEMINI_BASE_URL}/v1beta/models/{model}:generateContent → candidates[0].content.parts[].text
// One HTTP client for all: a timeout per attempt, one retry on 429 or 5xx honouring Retry-After (at most 30 s),
// an answer read up to 256 KB, and errors through the outbound redaction step (outbound/redact.ts) that name
// the provider and the HTTP status, never its URL or a key, with what to set to fix it.
import { Buffer } from "node:buffer";
import type { LlmEnvironment } from "../config.ts";
import { type OutboundFailure, type Redact, outboundError } from "../outbound/redact.ts";
import type { RunProvider } from "../storage/insight-runs.ts";

export interface ChatRequest {
  readonly model: string;
  readonly system: string;
  readonly user: string;
}

// 0.2: findings should restate the numbers, not vary run to run. 1,024 tokens: five 200-character sentences
// are ~300 tokens; the rest is margin for models that think aloud before answering.
const TEMPERATURE = 0.2;
const MAX_TOKENS = 1024;
// The longest Retry-After honoured; a provider asking for more is reported as rate limited instead of holding
// the run (and the site's run slot) for minutes.
export const MAX_RETRY_AFTER_MS = 30_000;
// Without a Retry-After, wait 1 s before the one retry.
const DEFAULT_RETRY_MS = 1000;
// 256 KB: five findings are ~1.5 KB of text; a chat answer with its JSON envelope and a model's visible
// reasoning stays under 50 KB. A larger body is a misbehaving server: reading stops there and the run fails
// rather than buffering whatever it sends.
export const MAX_ANSWER_BYTES = 256 * 1024;

export class ProviderError extends Error {
  override readonly name = "ProviderError";
}

interface WireFormat {
  url(env: LlmEnvironment, model: string): string;
  headers(env: LlmEnvironment): Record<string, string>;
  body(req: ChatRequest): unknown;
  /** The answer's text, or null when the response does not have the format's shape. */
  text(json: any): string | null;
}

const joinUrl = (base: string, path: string): string => base.replace(/\/+$/, "") + path;

export const WIRE_FORMATS: Record<RunProvider, WireFormat> = {
  local: {
    url: (env) => joinUrl(env.localHost, "/api/chat"),
    headers: () => ({}),
    body: (req) => ({
      model: req.model,
      messages: [{ role: "system", content: req.system }, { role: "user", content: req.user }],
      stream: false,
      options: { temperature: TEMPERATURE, num_predict: MAX_TOKENS },
    }),
    text: (json) => (typeof json?.message?.content === "string" ? json.message.content : null),
  },
  openai: {
    // SVC_OPENAI_BASE_URL may be given with or without its /v1 (the OpenAI SDKs' base URL includes it).
    url: (env) => {
      const base = (env.openaiBaseUrl ?? "https://api.openai.com/v1").replace(/\/+$/, "");
      return base + (/\/v1$/.test(base) ? "/chat/completions" : "/v1/chat/completions");
    },
    headers: (env): Record<string, string> => (env.openaiApiKey ? { authorization: `Bearer ${env.openaiApiKey}` } : {}),
    body: (req) => ({
      model: req.model,
      messages: [{ role: "system", content: req.system }, { role: "user", content: req.user }],
      temperature: TEMPERATURE,
      max_tokens: MAX_TOKENS,
    }),
    text: (json) => (typeof json?.choices?.[0]?.message?.content === "string" ? json.choices[0].message.content : null),
  },
  anthropic: {
    url: (env) => joinUrl(env.anthropicBaseUrl, "/v1/messages"),
    // 2023-06-01: the Messages API's current (and only non-beta) version header.
    headers: (env) => ({ "x-api-key": env.anthropicApiKey ?? "", "anthropic-version": "2023-06-01" }),
    body: (req) => ({
      model: req.model,
      max_tokens: MAX_TOKENS,
      temperature: TEMPERATURE,
      system: req.system,
      messages: [{ role: "user", content: req.user }],
    }),
    text: (json) => {
      if (!Array.isArray(json?.content)) return null;
      const parts = json.content.filter((c: any) => c?.type === "text" && typeof c.text === "string").map((c: any) => c.text as string);
      return parts.length > 0 ? parts.join("\n") : null;
    },
  },
  gemini: {
    url: (env, model) => joinUrl(env.geminiBaseUrl, `/v1beta/models/${encodeURIComponent(model)}:generateContent`),
    headers: (env) => ({ "x-goog-api-key": env.geminiApiKey ?? "" }),
    body: (req) => ({
      systemInstruction: { parts: [{ text: req.system }] },
      contents: [{ role: "user", parts: [{ text: req.user }] }],
      generationConfig: { temperature: TEMPERATURE, maxOutputTokens: MAX_TOKENS },
    }),
    text: (json) => {
      const parts = json?.candidates?.[0]?.content?.parts;
      if (!Array.isArray(parts)) return null;
      const texts = parts.filter((p: any) => typeof p?.text === "string").map((p: any) => p.text as string);
      return texts.length > 0 ? texts.join("\n") : null;
    },
  },
};

/** Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
export function retryAfterMs(header: string | null, nowMs: number): number | null {
  if (header === null || header.trim() === "") return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Every HTTP-date form (IMF-fixdate, RFC 850, asctime) starts with a day name; Date.parse alone would read "1.5" as a date.
  if (!/^[A-Za-z]{3}/.test(value)) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new ProviderError("stopped"));
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), reject(new ProviderError("stopped"))), { once: true });
  });

export interface CompleteOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly now?: () => number;
  /** The gateway's redaction step, with its configured secrets. */
  readonly redact: Redact;
}

type Failure = { ok: false; retryable: boolean; retryAfterMs: number | null; failure: OutboundFailure };
type Attempt = { ok: true; text: string } | Failure;

const fail = (failure: OutboundFailure, retryable = false, retryAfter: number | null = null): Failure => ({ ok: false, retryable, retryAfterMs: retryAfter, failure });

/** The body as text, at most `max` bytes; null when it is longer (the rest is not read). */
async function readCapped(res: Response, max: number): Promise<string | null> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function attempt(url: string, init: RequestInit, format: WireFormat, options: CompleteOptions): Promise<Attempt> {
  const signals = [AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : [])];
  const timedOut = (error: unknown) => error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.any(signals) });
  } catch (error) {
    if (options.signal?.aborted) throw new ProviderError("stopped");
    return fail(timedOut(error) ? { kind: "timeout", ms: options.timeoutMs } : { kind: "unreachable", cause: error });
  }
  let body: string | null;
  try {
    body = await readCapped(res, MAX_ANSWER_BYTES);
  } catch (error) {
    if (options.signal?.aborted) throw new ProviderError("stopped");
    return fail(timedOut(error) ? { kind: "timeout", ms: options.timeoutMs } : { kind: "unreachable", cause: error });
  }
  if (!res.ok) {
    const retryable = res.status === 429 || res.status >= 500;
    return fail({ kind: "status", status: res.status, body: body ?? "" }, retryable, retryAfterMs(res.headers.get("retry-after"), (options.now ?? Date.now)()));
  }
  if (body === null) return fail({ kind: "answer", what: `answered with more than ${MAX_ANSWER_BYTES / 1024} KB` });
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return fail({ kind: "answer", what: "answered with something other than JSON" });
  }
  const text = format.text(json);
  if (text === null) return fail({ kind: "answer", what: "answered JSON without the expected text field" });
  return { ok: true, text };
}

/** What to set when a provider cannot be reached or refuses the key (the variables of config.ts, the team setting). */
const WHERE: Record<RunProvider, { readonly address: string; readonly key: string | null }> = {
  local: { address: "start Ollama (ollama serve) or set SVC_LLM_HOST to where it listens", key: null },
  openai: { address: "check SVC_OPENAI_BASE_URL", key: "SVC_OPENAI_API_KEY" },
  anthropic: { address: "check SVC_ANTHROPIC_BASE_URL", key: "SVC_ANTHROPIC_API_KEY" },
  gemini: { address: "check SVC_GEMINI_BASE_URL", key: "SVC_GEMINI_API_KEY" },
};
/** The other way out of any provider failure: the team setting (the dashboard's Settings, PATCH /api/team/llm). */
export const OTHER_PROVIDER = "or choose another provider (or none) under Settings → Language model";

/** The fix for a failure, as a clause after the message; "" when there is nothing to set. */
function remedy(provider: RunProvider, failure: OutboundFailure): string {
  const where = WHERE[provider];
  if (failure.kind === "unreachable") return `; ${where.address} in the gateway's environment, ${OTHER_PROVIDER}`;
  if (failure.kind === "status" && (failure.status === 401 || failure.status === 403) && where.key) return `; check ${where.key} in the gateway's environment`;
  if (failure.kind === "status" && failure.status === 404) return "; check the model name (SVC_LLM_MODEL or the team's model under Settings → Language model)";
  return "";
}

/** The stored sentence of a failure: outboundError's (redacted), then what to set. */
const sentence = (provider: RunProvider, failure: OutboundFailure, redact: Redact): string => outboundError(provider, failure, redact) + remedy(provider, failure);

/** One chat completion: the model's text, or a ProviderError whose message is redacted and fit to store and show. */
export async function complete(provider: RunProvider, env: LlmEnvironment, req: ChatRequest, options: CompleteOptions): Promise<string> {
  const format = WIRE_FORMATS[provider];
  const url = format.url(env, req.model);
  const init: RequestInit = {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", ...format.headers(env) },
    body: JSON.stringify(format.body(req)),
  };
  const first = await attempt(url, init, format, options);
  if (first.ok) return first.text;
  const firstSaid = sentence(provider, first.failure, options.redact);
  if (!first.retryable) throw new ProviderError(firstSaid);
  const wait = first.retryAfterMs ?? DEFAULT_RETRY_MS;
  if (wait > MAX_RETRY_AFTER_MS) throw new ProviderError(`${firstSaid} (asked to retry after ${Math.ceil(wait / 1000)} s; not retried)`);
  await sleep(wait, options.signal);
  const second = await attempt(url, init, format, options);
  if (second.ok) return second.text;
  throw new ProviderError(`${sentence(provider, second.failure, options.redact)} (after one retry; first: ${firstSaid.replace(`${provider} answered `, "")})`);
}
