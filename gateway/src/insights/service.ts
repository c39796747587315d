// Insights of a site: run one now (POST …/insights/run, the weekly schedule), or show the last one (GET
// …/insights). A run reads the team's language-model choice, builds the aggregate from the rollups, sends it
// with the instructions to the provider, and stores the findings, or the error, with the exact input sent.
// A failed run is stored beside the last good one, which stays shown (issue 20). One run at a time per site:
// a second request while one is in flight is refused (409), the schedule skips it. A run outlives the request
// that started it (POST answers 202 after RUN_ANSWER_WITHIN_MS) and ends with the service (stop()).
import type pg from "pg";
import type { LlmEnvironment, LlmProvider } from "../config.ts";
import type { Logger } from "../log.ts";
import type { Redact } from "../outbound/redact.ts";
import type { RollupSource } from "../read/reports.ts";
import { currentSettings } from "../routes/team.ts";
import { type InsightRun, type RunProvider, lastInsightRuns, saveInsightRun, sitesDueForInsights } from "../storage/insight-runs.ts";
import { type OpenFlags, buildAggregate } from "./aggregate.ts";
import { toFindings } from "./findings.ts";
import { INSTRUCTIONS, userMessage } from "./prompt.ts";
import { OTHER_PROVIDER, ProviderError, complete } from "./providers.ts";
import { HOUR_MS } from "@svc/core";

/** The body of GET /api/sites/{id}/insights and POST …/insights/run (api-schema/insights.ts). */
export interface InsightsView {
  /** The last run's outcome: ok, error (findings are then the last good run's, if any), or empty. */
  status: "ok" | "error" | "empty";
  reason: null | "provider none" | "no run yet";
  /** A run of this site is in progress (its result replaces this view when it ends). */
  running: boolean;
  provider: string | null;
  model: string | null;
  /** When the findings shown were written; null when there are none. */
  generated_at: string | null;
  findings: string[];
  /** The aggregate exactly as sent for these findings (or for the failed run when none succeeded), parsed, or null. */
  input: unknown;
  /** The system message sent with it. */
  instructions: string | null;
  /** Why the last run failed (redacted: provider and HTTP status, never a key or an address), or null. */
  error: string | null;
  /** When the last run failed; null unless status is error. */
  failed_at: string | null;
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

const empty = (reason: "provider none" | "no run yet", provider: LlmProvider, model: string | null, running: boolean): InsightsView => ({
  status: "empty", reason, running, provider, model, generated_at: null, findings: [], input: null, instructions: null, error: null, failed_at: null,
});

/** The view of the stored runs: the good run's findings, the failure beside them. Errors pass `redact` again when served. */
function toView(ok: InsightRun | null, failed: InsightRun | null, running: boolean, redact: Redact): InsightsView {
  const shown = ok ?? failed!;
  return {
    status: failed ? "error" : "ok",
    reason: null,
    running,
    provider: shown.provider,
    model: shown.model,
    generated_at: ok ? ok.generatedAt.toISOString() : null,
    findings: ok ? [...ok.findings] : [],
    input: shown.input === null ? null : JSON.parse(shown.input),
    instructions: shown.instructions,
    error: failed?.error == null ? null : redact(failed.error),
    failed_at: failed ? failed.generatedAt.toISOString() : null,
  };
}

export interface InsightsDeps {
  readonly src: RollupSource;
  readonly llm: LlmEnvironment;
  readonly log: Logger;
  /** The outbound redaction step (outbound/redact.ts) with the gateway's secrets. */
  readonly redact: Redact;
  /** The site's open anomaly flags, named in the aggregate. */
  readonly openFlags: OpenFlags;
}

export class InsightsService {
  /** Runs in flight by site; `stored` once the result is in the database, while the run reads it back. */
  private readonly running = new Map<number, { readonly done: Promise<InsightsView>; stored: boolean }>();
  // Aborted by stop(): a run started by a request that already got its 202 has no other owner.
  private readonly stopping = new AbortController();

  constructor(private readonly deps: InsightsDeps) {}

  private get pool(): pg.Pool {
    return this.deps.src.pool;
  }

  /** A run of the site is in flight and has not stored its result yet. */
  isRunning(siteId: number): boolean {
    const run = this.running.get(siteId);
    return run !== undefined && !run.stored;
  }

  /** The stored runs, or why there are none. With provider none: empty, whatever was stored before. */
  async view(site: InsightsSite): Promise<InsightsView> {
    const settings = await currentSettings(this.pool, this.deps.llm, site.team_id);
    if (settings.provider === "none") return empty("provider none", "none", null, this.isRunning(site.id));
    const { ok, failed } = await lastInsightRuns(this.pool, site.id);
    // Read after the runs: a run stops counting as running once its result is stored, so a view that shows a
    // run's findings does not also say it is running (the card showed both for one poll).
    const running = this.isRunning(site.id);
    return ok || failed ? toView(ok, failed, running, this.deps.redact) : empty("no run yet", settings.provider, settings.model, running);
  }

  /** Runs now; null when a run of this site is already in flight. */
  run(site: InsightsSite, signal?: AbortSignal): Promise<InsightsView> | null {
    if (this.running.has(site.id) || this.stopping.signal.aborted) return null;
    const signals = AbortSignal.any([this.stopping.signal, ...(signal ? [signal] : [])]);
    // The entry is set before execute's first await returns, and no other run of the site starts while it is there.
    const stored = () => {
      this.running.get(site.id)!.stored = true;
    };
    const run = this.execute(site, signals, stored).finally(() => this.running.delete(site.id));
    this.running.set(site.id, { done: run, stored: false });
    // A run whose request already got its 202 has nobody awaiting it: a failure (the database gone mid-run)
    // is logged here instead of becoming an unhandled rejection.
    run.catch((error: unknown) => this.deps.log.error("insights run failed", { site_id: site.id, error: this.deps.redact(error instanceof Error ? error.message : String(error)) }));
    return run;
  }

  /** The run's view if it ends within `ms`, else null (it goes on in the background). */
  async within(run: Promise<InsightsView>, ms: number): Promise<InsightsView | null> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => (timer = setTimeout(resolve, ms, null)));
    try {
      return await Promise.race([run, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Aborts the runs in flight and waits for them to end (the layer's release). */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  /** `stored`: called once the run's result is in the database, before the view of it is read back. */
  private async execute(site: InsightsSite, signal: AbortSignal, stored: () => void): Promise<InsightsView> {
    const { llm, log, src, redact } = this.deps;
    const settings = await currentSettings(this.pool, llm, site.team_id);
    // Provider none: nothing is built, sent or stored.
    if (settings.provider === "none") return empty("provider none", "none", null, false);
    const provider = settings.provider;
    const model = settings.model ?? "";
    const missing = MISSING_KEY[provider]?.(llm) ?? null;
    let input: string | null = null;
    let findings: string[] = [];
    let error: string | null = null;
    if (missing !== null) {
      error = `${provider} needs ${missing} in the gateway's environment, ${OTHER_PROVIDER}`;
    } else {
      const aggregate = await buildAggregate(src, site.id, src.now(), this.deps.openFlags);
      input = userMessage(aggregate);
      try {
        const text = await complete(provider, llm, { model, system: INSTRUCTIONS, user: input }, { timeoutMs: llm.timeoutMs, signal, now: src.now, redact });
        findings = toFindings(text, aggregate);
        if (findings.length === 0) error = `${provider} answered without any finding`;
      } catch (e) {
        if (!(e instanceof ProviderError)) throw e;
        // Stopped by shutdown mid-request: not the provider's failure, so the stored runs stay as they are.
        if (signal.aborted) return this.view(site);
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
    stored();
    // The error went through the redaction step (providers.ts), so it may be logged.
    if (error !== null) log.warn("insights run failed", { site_id: site.id, provider, error });
    else log.info("insights run", { site_id: site.id, provider, findings: findings.length });
    const { ok, failed } = await lastInsightRuns(this.pool, site.id);
    return toView(ok, failed, false, redact);
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
