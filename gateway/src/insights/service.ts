// Insights of a site: run one now (POST …/insights/run, the weekly schedule), or show the last one (GET
// …/insights). A run reads the team's language-model choice, builds the aggregate from the rollups, sends it
// with the instructions to the provider, and stores the findings, or the error, with the exact input sent.
// One run at a time per site: a second request while one is in flight is refused (409), the schedule skips it.
import type pg from "pg";
import type { LlmEnvironment, LlmProvider } from "../config.ts";
import type { Logger } from "../log.ts";
import type { RollupSource } from "../read/reports.ts";
import { currentSettings } from "../routes/team.ts";
import { type InsightRun, type RunProvider, lastInsightRun, saveInsightRun, sitesDueForInsights } from "../storage/insight-runs.ts";
import { buildAggregate } from "./aggregate.ts";
import { toFindings } from "./findings.ts";
import { INSTRUCTIONS, userMessage } from "./prompt.ts";
import { ProviderError, complete } from "./providers.ts";
import { HOUR_MS } from "@svc/core";

/** The body of GET /api/sites/{id}/insights and POST …/insights/run (api-schema/insights.ts). */
export interface InsightsView {
  status: "ok" | "error" | "empty";
  reason: null | "provider none" | "no run yet";
  provider: string | null;
  model: string | null;
  generated_at: string | null;
  findings: string[];
  /** The aggregate exactly as sent (the user message, parsed), or null. */
  input: unknown;
  /** The system message sent with it. */
  instructions: string | null;
  error: string | null;
}

export interface InsightsSite {
  readonly id: number;
  readonly team_id: number;
}

// A scheduled pass runs at most 10 sites (one after the other, each up to the provider timeout), so one pass
// never holds a local model for hours; the rest are due again on the next pass.
const SITES_PER_PASS = 10;

const MISSING_KEY: Partial<Record<RunProvider, (env: LlmEnvironment) => string | null>> = {
  openai: (env) => (env.openaiApiKey || env.openaiBaseUrl ? null : "SVC_OPENAI_API_KEY or SVC_OPENAI_BASE_URL"),
  anthropic: (env) => (env.anthropicApiKey ? null : "SVC_ANTHROPIC_API_KEY"),
  gemini: (env) => (env.geminiApiKey ? null : "SVC_GEMINI_API_KEY"),
};

const empty = (reason: "provider none" | "no run yet", provider: LlmProvider, model: string | null): InsightsView => ({
  status: "empty", reason, provider, model, generated_at: null, findings: [], input: null, instructions: null, error: null,
});

const toView = (run: InsightRun): InsightsView => ({
  status: run.status,
  reason: null,
  provider: run.provider,
  model: run.model,
  generated_at: run.generatedAt.toISOString(),
  findings: [...run.findings],
  input: run.input === null ? null : JSON.parse(run.input),
  instructions: run.instructions,
  error: run.error,
});

export interface InsightsDeps {
  readonly src: RollupSource;
  readonly llm: LlmEnvironment;
  readonly log: Logger;
}

export class InsightsService {
  private readonly running = new Map<number, Promise<InsightsView>>();

  constructor(private readonly deps: InsightsDeps) {}

  private get pool(): pg.Pool {
    return this.deps.src.pool;
  }

  isRunning(siteId: number): boolean {
    return this.running.has(siteId);
  }

  /** The stored last run, or why there is none. With provider none: empty, whatever was stored before. */
  async view(site: InsightsSite): Promise<InsightsView> {
    const settings = await currentSettings(this.pool, this.deps.llm, site.team_id);
    if (settings.provider === "none") return empty("provider none", "none", null);
    const run = await lastInsightRun(this.pool, site.id);
    return run ? toView(run) : empty("no run yet", settings.provider, settings.model);
  }

  /** Runs now; null when a run of this site is already in flight. */
  run(site: InsightsSite, signal?: AbortSignal): Promise<InsightsView> | null {
    if (this.running.has(site.id)) return null;
    const run = this.execute(site, signal).finally(() => this.running.delete(site.id));
    this.running.set(site.id, run);
    return run;
  }

  private async execute(site: InsightsSite, signal?: AbortSignal): Promise<InsightsView> {
    const { llm, log, src } = this.deps;
    const settings = await currentSettings(this.pool, llm, site.team_id);
    // Provider none: nothing is built, sent or stored.
    if (settings.provider === "none") return empty("provider none", "none", null);
    const provider = settings.provider;
    const model = settings.model ?? "";
    const missing = MISSING_KEY[provider]?.(llm) ?? null;
    let input: string | null = null;
    let findings: string[] = [];
    let error: string | null = null;
    if (missing !== null) {
      error = `${provider} needs ${missing} in the gateway's environment`;
    } else {
      const aggregate = await buildAggregate(src, site.id, src.now());
      input = userMessage(aggregate);
      try {
        const text = await complete(provider, llm, { model, system: INSTRUCTIONS, user: input }, { timeoutMs: llm.timeoutMs, signal, now: src.now });
        findings = toFindings(text, aggregate);
        if (findings.length === 0) error = `${provider} answered without any finding`;
      } catch (e) {
        if (!(e instanceof ProviderError)) throw e;
        // Stopped by shutdown mid-request: not the provider's failure, so the last stored run stays.
        if (signal?.aborted) return empty("no run yet", provider, settings.model);
        error = e.message;
      }
    }
    const run: InsightRun = {
      siteId: site.id,
      status: error === null ? "ok" : "error",
      provider,
      model,
      generatedAt: new Date(src.now()),
      findings,
      input,
      instructions: input === null ? null : INSTRUCTIONS,
      error,
    };
    await saveInsightRun(this.pool, run);
    // The error itself may quote the provider's answer; it is stored and shown by GET, not logged.
    if (error !== null) log.warn("insights run failed", { site_id: site.id, provider });
    else log.info("insights run", { site_id: site.id, provider, findings: findings.length });
    return toView(run);
  }

  /** One scheduled pass: runs the sites whose last run is older than `everyHours` (or that never ran). */
  async runDue(everyHours: number, signal?: AbortSignal): Promise<void> {
    const before = new Date(this.deps.src.now() - everyHours * HOUR_MS);
    let ran = 0;
    // Sites of teams with provider none stay due (nothing is stored for them) and are skipped without a request;
    // only real runs count towards the pass's limit, so they never starve the others.
    for (const site of await sitesDueForInsights(this.pool, before)) {
      if (signal?.aborted || ran >= SITES_PER_PASS) return;
      const view = await this.run({ id: site.id, team_id: site.teamId }, signal);
      if (view && view.status !== "empty") ran++;
    }
  }
}
