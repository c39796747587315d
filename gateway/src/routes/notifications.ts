// E-mail reports and alerts: recipients and rules per site (admin scope, through the site preamble), and the
// two links every report mail carries, which need no account: confirm (the recipient's consent, once) and
// unsubscribe (GET from the mail, POST for one-click List-Unsubscribe, RFC 8058). The links answer a small
// HTML page: a person follows them from a mail client.
import { createHash, randomBytes } from "node:crypto";
import type { Clock } from "@svc/core";
import type pg from "pg";
import { ApiError } from "../errors.ts";
import type { HttpResponse } from "../http/transport.ts";
import type { Logger } from "../log.ts";
import type { Mailer } from "../notify/mailer.ts";
import { renderConfirmation } from "../notify/report-mail.ts";
import { generateWebhookSecret } from "../notify/webhook.ts";
import { outboundError, type Redact } from "../outbound/redact.ts";
import {
  type AlertRuleRecord, type RecipientRecord, confirmRecipient, deleteAlertRule, deleteRecipient, insertAlertRule, insertRecipient, listAlertRules,
  listDeliveries, listRecipients, unsubscribeRecipient,
} from "../storage/notifications.ts";
import { jsonResponse } from "./json-response.ts";
import type { OperationRoutes } from "./operation-routes.ts";

export interface NotificationRouteDeps {
  readonly pool: pg.Pool;
  readonly clock: Clock;
  readonly mailer: Mailer | null;
  readonly publicUrl: string | null;
  readonly log: Logger;
  /** The redaction step (outbound/redact.ts) an SMTP error passes before it is logged. */
  readonly redact: Redact;
}

const ID = /^\d{1,10}$/;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const sha256 = (s: string) => createHash("sha256").update(s).digest();
const NO_MAIL = "e-mail is not configured on this server: set SVC_SMTP_URL, SVC_MAIL_FROM and SVC_PUBLIC_URL";

const describeRecipient = (r: RecipientRecord) => ({
  id: r.id, site_id: r.site_id, email: r.email, frequency: r.frequency, confirmed: r.confirmed_at !== null, last_sent_period: r.last_sent_period, created_at: r.created_at.toISOString(),
});
const describeRule = (r: AlertRuleRecord) => ({
  id: r.id, site_id: r.site_id, kind: r.kind, threshold: r.threshold, interval_minutes: r.interval_minutes, email: r.email, webhook_url: r.webhook_url,
  last_fired_at: r.last_fired_at?.toISOString() ?? null, created_at: r.created_at.toISOString(),
});

function page(title: string, line: string): HttpResponse {
  const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return {
    status: 200,
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'", "referrer-policy": "no-referrer" },
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(title)}</title></head><body style="font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem"><h1 style="font-size:1.3rem">${escape(title)}</h1><p>${escape(line)}</p></body></html>`,
  };
}

const idParam = (raw: string, what: string): number => {
  if (!ID.test(raw) || Number(raw) > 2_147_483_647) throw new ApiError("not_found", `unknown ${what}`);
  return Number(raw);
};

export function notificationRoutes(routes: OperationRoutes, deps: NotificationRouteDeps): void {
  const { pool, log } = deps;
  const unsubscribe = async (token: string) => {
    const gone = TOKEN.test(token) ? await unsubscribeRecipient(pool, token) : null;
    if (gone === null) throw new ApiError("not_found", "unknown or already used unsubscribe link");
    log.info("report recipient unsubscribed");
    return page("Unsubscribed", `${gone.email} will get no more ${gone.frequency} reports for ${gone.domain}.`);
  };

  routes
    .site("POST /api/sites/{id}/reports", async ({ site, body }) => {
      if (!deps.mailer || !deps.publicUrl) throw new ApiError("conflict", NO_MAIL);
      const confirm = randomBytes(32).toString("base64url");
      const added = await insertRecipient(pool, { siteId: site.id, email: body.email, frequency: body.frequency, confirmHash: sha256(confirm), unsubscribeToken: randomBytes(32).toString("base64url") });
      if (added === null) throw new ApiError("conflict", `${body.email} already gets ${body.frequency} reports of this site`);
      try {
        await deps.mailer.send({ to: body.email, ...renderConfirmation(site, body.frequency, `${deps.publicUrl}/api/reports/confirm/${confirm}`) });
      } catch (error) {
        await deleteRecipient(pool, site.id, added.id);
        log.warn("report confirmation not sent", { site_id: site.id, error: outboundError("smtp", { kind: "smtp", cause: error }, deps.redact) });
        throw new ApiError("unavailable", "the confirmation e-mail could not be sent; nothing was saved, try again");
      }
      log.info("report recipient added", { site_id: site.id, recipient_id: added.id, frequency: body.frequency });
      return jsonResponse(201, describeRecipient(added));
    })
    .site("GET /api/sites/{id}/reports", async ({ site }) => jsonResponse(200, { recipients: (await listRecipients(pool, site.id)).map(describeRecipient) }))
    .site("DELETE /api/sites/{id}/reports/{recipientId}", async ({ site, params }) => {
      if (!(await deleteRecipient(pool, site.id, idParam(params["recipientId"]!, "recipient")))) throw new ApiError("not_found", "unknown recipient");
      return { status: 204 };
    })
    .on("GET /api/reports/confirm/{token}", async ({ params }) => {
      const token = params["token"]!;
      const done = TOKEN.test(token) ? await confirmRecipient(pool, sha256(token), new Date(deps.clock.now())) : null;
      if (done === null) throw new ApiError("not_found", "unknown or already used confirmation link");
      return page("Subscribed", `${done.email} will get ${done.frequency} reports for ${done.domain}. Every report has a link to unsubscribe.`);
    })
    .on("GET /api/reports/unsubscribe/{token}", ({ params }) => unsubscribe(params["token"]!))
    .on("POST /api/reports/unsubscribe/{token}", ({ params }) => unsubscribe(params["token"]!))
    .site("POST /api/sites/{id}/alerts", async ({ site, body }) => {
      if (body.email === undefined && body.webhook_url === undefined) throw new ApiError("invalid_body", "invalid body", [{ path: "email", message: "give email, webhook_url or both" }]);
      if (body.kind === "visitors_last_hour" && body.threshold === undefined) throw new ApiError("invalid_body", "invalid body", [{ path: "threshold", message: "required for visitors_last_hour" }]);
      if (body.email !== undefined && !deps.mailer) throw new ApiError("conflict", NO_MAIL);
      const secret = body.webhook_url === undefined ? null : generateWebhookSecret();
      const rule = await insertAlertRule(pool, {
        siteId: site.id, kind: body.kind, threshold: body.kind === "visitors_last_hour" ? body.threshold! : null, intervalMinutes: body.interval_minutes ?? 60,
        email: body.email ?? null, webhookUrl: body.webhook_url ?? null, webhookSecret: secret,
      });
      log.info("alert rule added", { site_id: site.id, rule_id: rule.id, kind: rule.kind });
      return jsonResponse(201, { ...describeRule(rule), ...(secret ? { webhook_secret: secret } : {}) });
    })
    .site("GET /api/sites/{id}/alerts", async ({ site }) => {
      const [rules, deliveries] = await Promise.all([listAlertRules(pool, site.id), listDeliveries(pool, site.id, 50)]);
      return jsonResponse(200, { rules: rules.map(describeRule), deliveries: deliveries.map((d) => ({ ...d, at: d.at.toISOString() })), email_configured: deps.mailer !== null });
    })
    .site("DELETE /api/sites/{id}/alerts/{ruleId}", async ({ site, params }) => {
      if (!(await deleteAlertRule(pool, site.id, idParam(params["ruleId"]!, "alert rule")))) throw new ApiError("not_found", "unknown alert rule");
      return { status: 204 };
    });
}
