// Reports and alerts, run on the periodic-task pattern (every minute) with the injected clock:
// - reports: each confirmed recipient gets the last whole week (after Monday 00:00) or month (after the 1st) of
//   the site's time zone once — the period is claimed in the database before sending, so two gateways never both send it,
//   and given back when the send fails, so the next run retries;
// - alerts: a rule fires when its condition holds and its interval has passed since it last fired (claimed
//   the same way: at most one alert per rule per interval), to its e-mail and/or its webhook; every attempt
//   goes to the delivery log the settings page shows.
import type { Clock } from "@svc/core";
import type { AnomalyDetector } from "../anomalies/detector.ts";
import type { Logger } from "../log.ts";
import type { QueryEngine } from "../query/engine.ts";
import { outboundError, type Redact } from "../outbound/redact.ts";
import type { RollupSource } from "../read/reports.ts";
import { type AlertRuleRecord, type Frequency, claimAlert, claimReport, confirmedRecipients, listAlertRules, recordDelivery, releaseReport } from "../storage/notifications.ts";
import { findSiteById } from "../storage/sites.ts";
import type { Mailer } from "./mailer.ts";
import { lastPeriod, renderReport, reportData } from "./report-mail.ts";
import { postWebhook } from "./webhook.ts";

/** People in the last hour: the visitors whose last row is at most this old. */
export const LAST_HOUR_MS = 60 * 60_000;
const PEOPLE = ["human", "human_via_ai"] as const;

export interface NotifierDeps {
  readonly src: RollupSource;
  /** The query engine (POST /api/v2/query's): every figure of a report. */
  readonly engine: QueryEngine;
  readonly clock: Clock;
  /** Null when SVC_SMTP_URL is unset: no report goes out, e-mail alerts are skipped (and logged). */
  readonly mailer: Mailer | null;
  readonly detector: AnomalyDetector;
  readonly recentVisitors: (siteId: number, windowMs: number) => Promise<Record<string, number>>;
  /** SVC_PUBLIC_URL: the dashboard, where the mails' links point (its /api proxy reaches the gateway). */
  readonly publicUrl: string;
  readonly log: Logger;
  /** The configured secret values (GatewayConfig.secrets), for the webhook's redaction with its own secret. */
  readonly secrets: readonly string[];
  /** The redaction step with those values (outbound/redact.ts), for SMTP errors. */
  readonly redact: Redact;
  /** First webhook retry delay, doubled each time (1 s; tests shorten it). */
  readonly retryBaseMs?: number;
}

export class Notifier {
  /** Deliveries still running (webhook retries), so a stop can wait for them and tests can too. */
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly deps: NotifierDeps) {}

  /** One run: the reports and alerts due at the clock's now. */
  async runDue(signal?: AbortSignal): Promise<void> {
    if (this.deps.mailer) for (const frequency of ["weekly", "monthly"] as const) await this.sendReports(frequency, signal);
    await this.checkAlerts(signal);
  }

  /** Resolves when every delivery started so far has finished. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async sendReports(frequency: Frequency, signal?: AbortSignal): Promise<void> {
    const { src, clock, mailer, log, publicUrl } = this.deps;
    const bySite = new Map<number, Promise<Awaited<ReturnType<typeof reportData>>>>();
    for (const r of await confirmedRecipients(src.pool, frequency)) {
      if (signal?.aborted) return;
      // Each site's last week or month ends at its own midnight: the period is the site's. Keys sort by time, so
      // a site moved to a zone further west is not sent the week it already had.
      const period = lastPeriod(frequency, clock.now(), r.time_zone);
      if ((r.last_sent_period !== null && r.last_sent_period >= period.key) || !(await claimReport(src.pool, r.id, period.key, r.last_sent_period))) continue;
      try {
        if (!bySite.has(r.site_id)) {
          bySite.set(r.site_id, findSiteById(src.pool, r.site_id).then((site) => {
            if (site === null) throw new Error(`site ${r.site_id} is gone`);
            return reportData(this.deps.engine, site, frequency, period);
          }));
        }
        const data = await bySite.get(r.site_id)!;
        const unsubscribe = `${publicUrl}/api/reports/unsubscribe/${r.unsubscribe_token}`;
        const mail = renderReport(data, { dashboard: `${publicUrl}/app/sites/${encodeURIComponent(r.domain)}`, unsubscribe });
        await mailer!.send({ to: r.email, ...mail, unsubscribeUrl: unsubscribe });
        log.info("report sent", { site_id: r.site_id, recipient_id: r.id, frequency, period: period.key });
      } catch (error) {
        await releaseReport(src.pool, r.id, period.key, r.last_sent_period);
        log.warn("report not sent; the next run retries", { site_id: r.site_id, recipient_id: r.id, frequency, error: outboundError("smtp", { kind: "smtp", cause: error }, this.deps.redact) });
      }
    }
  }

  private async checkAlerts(signal?: AbortSignal): Promise<void> {
    const { src, clock } = this.deps;
    for (const rule of await listAlertRules(src.pool, null)) {
      if (signal?.aborted) return;
      const payload = await this.condition(rule);
      if (payload === null) continue;
      if (!(await claimAlert(src.pool, rule.id, new Date(clock.now())))) continue;
      this.track(this.deliver(rule, payload));
    }
  }

  /** The alert's body when the rule's condition holds now, else null. */
  private async condition(rule: AlertRuleRecord): Promise<Record<string, unknown> | null> {
    const base = { alert: rule.kind, rule_id: rule.id, site_id: rule.site_id, at: new Date(this.deps.clock.now()).toISOString() };
    if (rule.kind === "visitors_last_hour") {
      const recent = await this.deps.recentVisitors(rule.site_id, LAST_HOUR_MS);
      const visitors = PEOPLE.reduce((n, a) => n + (recent[a] ?? 0), 0);
      return visitors > (rule.threshold ?? 0) ? { ...base, visitors_last_hour: visitors, threshold: rule.threshold } : null;
    }
    const { flags } = await this.deps.detector.report(rule.site_id, 1);
    return flags.length > 0 ? { ...base, flags } : null;
  }

  private track(p: Promise<unknown>): void {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  private async deliver(rule: AlertRuleRecord, payload: Record<string, unknown>): Promise<void> {
    const { src, clock, mailer, log } = this.deps;
    const record = (channel: "email" | "webhook", a: { attempt: number; delivered: boolean; httpStatus: number | null; error: string | null }) =>
      recordDelivery(src.pool, rule.site_id, { rule_id: rule.id, channel, attempt: a.attempt, status: a.delivered ? "delivered" : "failed", http_status: a.httpStatus, error: a.error, at: new Date(clock.now()) });
    const jobs: Promise<unknown>[] = [];
    if (rule.webhook_url && rule.webhook_secret) {
      jobs.push(postWebhook(rule.webhook_url, rule.webhook_secret, payload, { now: clock.now, retryBaseMs: this.deps.retryBaseMs ?? 1000, onAttempt: (a) => record("webhook", a), secrets: this.deps.secrets }));
    }
    if (rule.email) {
      jobs.push(
        (async () => {
          if (!mailer) return record("email", { attempt: 1, delivered: false, httpStatus: null, error: "e-mail is not configured (SVC_SMTP_URL)" });
          try {
            await mailer.send({ to: rule.email!, ...alertMail(payload, this.deps.publicUrl) });
            await record("email", { attempt: 1, delivered: true, httpStatus: null, error: null });
          } catch (error) {
            await record("email", { attempt: 1, delivered: false, httpStatus: null, error: outboundError("smtp", { kind: "smtp", cause: error }, this.deps.redact) });
          }
        })(),
      );
    }
    await Promise.allSettled(jobs);
    log.info("alert fired", { site_id: rule.site_id, rule_id: rule.id, kind: rule.kind });
  }
}

function alertMail(payload: Record<string, unknown>, publicUrl: string): { subject: string; text: string; html: string } {
  const subject =
    payload["alert"] === "visitors_last_hour"
      ? `Traffic alert: ${String(payload["visitors_last_hour"])} visitors in the last hour (above ${String(payload["threshold"])})`
      : `Anomaly alert: ${(payload["flags"] as unknown[]).length} flag(s) on your site`;
  const json = JSON.stringify(payload, null, 2);
  const text = `${subject}\n\n${json}\n\nSettings: ${publicUrl}/app\n`;
  const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return { subject, text, html: `<!doctype html><html><body style="font-family:system-ui,sans-serif"><p>${escape(subject)}</p><pre>${escape(json)}</pre></body></html>` };
}
