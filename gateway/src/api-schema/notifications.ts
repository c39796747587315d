// E-mail reports and alerts: the bodies that make them and what the settings page lists.
import { Schema } from "effect";

// 254: the longest address that fits an SMTP path (RFC 5321).
const Email = Schema.String.check(
  Schema.makeFilter((s: string) => (s.length <= 254 && /^[^\s@<>(),;:"[\]\\]+@[^\s@<>(),;:"[\]\\]+\.[^\s@<>(),;:"[\]\\]+$/.test(s)) || "must be an e-mail address"),
).annotate({ message: "must be an e-mail address" });

const Frequency = Schema.Literals(["weekly", "monthly"]).annotate({
  message: "must be weekly or monthly",
  description: "weekly: last Monday–Sunday (UTC), sent after Monday 00:00 UTC; monthly: last calendar month, sent after the 1st.",
});

export const CreateRecipient = Schema.Struct({ email: Email, frequency: Frequency }).annotate({ identifier: "CreateReportRecipient", message: "must be a JSON object" });

export const Recipient = Schema.Struct({
  id: Schema.Int,
  site_id: Schema.Int,
  email: Schema.String,
  frequency: Frequency,
  confirmed: Schema.Boolean.annotate({ description: "false until the recipient follows the link in the confirmation e-mail: nothing else is sent before." }),
  last_sent_period: Schema.NullOr(Schema.String),
  created_at: Schema.String,
}).annotate({ identifier: "ReportRecipient" });
export const RecipientList = Schema.Struct({ recipients: Schema.Array(Recipient) }).annotate({ identifier: "ReportRecipientList" });

const WebhookUrl = Schema.String.check(
  Schema.makeFilter((s: string) => {
    try {
      const url = new URL(s);
      return ((url.protocol === "https:" || url.protocol === "http:") && s.length <= 2000) || "must be an http(s) URL of at most 2000 characters";
    } catch {
      return "must be an http(s) URL of at most 2000 characters";
    }
  }),
).annotate({ message: "must be an http(s) URL", description: "Receives a JSON POST signed with X-Svc-Signature (see gateway/README.md)." });

export const CreateAlertRule = Schema.Struct({
  kind: Schema.Literals(["anomaly", "visitors_last_hour"]).annotate({ message: "must be anomaly or visitors_last_hour", description: "anomaly: the anomaly flags of the last day; visitors_last_hour: people (human, human_via_ai) seen in the last hour above `threshold`." }),
  threshold: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100_000_000 })).annotate({ message: "must be a whole number from 0", description: "visitors_last_hour only (required there)." })),
  interval_minutes: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 5, maximum: 10080 })).annotate({ message: "must be whole minutes from 5 to 10080", description: "At most one alert of this rule per interval. Default 60." })),
  email: Schema.optionalKey(Email),
  webhook_url: Schema.optionalKey(WebhookUrl),
}).annotate({ identifier: "CreateAlertRule", message: "must be a JSON object" });

const RuleFields = {
  id: Schema.Int,
  site_id: Schema.Int,
  kind: Schema.Literals(["anomaly", "visitors_last_hour"]),
  threshold: Schema.NullOr(Schema.Int),
  interval_minutes: Schema.Int,
  email: Schema.NullOr(Schema.String),
  webhook_url: Schema.NullOr(Schema.String),
  last_fired_at: Schema.NullOr(Schema.String),
  created_at: Schema.String,
};
export const AlertRule = Schema.Struct(RuleFields).annotate({ identifier: "AlertRule" });
export const CreatedAlertRule = Schema.Struct({
  ...RuleFields,
  webhook_secret: Schema.optionalKey(Schema.String.annotate({ description: "`whsec_…`, shown only here: verify X-Svc-Signature with it." })),
}).annotate({ identifier: "CreatedAlertRule" });

export const Delivery = Schema.Struct({
  rule_id: Schema.Int,
  channel: Schema.Literals(["email", "webhook"]),
  attempt: Schema.Int,
  status: Schema.Literals(["delivered", "failed"]),
  http_status: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  at: Schema.String,
}).annotate({ identifier: "AlertDelivery" });

export const AlertList = Schema.Struct({
  rules: Schema.Array(AlertRule),
  deliveries: Schema.Array(Delivery).annotate({ description: "The last 50 delivery attempts of the site's alerts, newest first." }),
  email_configured: Schema.Boolean,
}).annotate({ identifier: "AlertList" });
