// Outbound e-mail through nodemailer's SMTP transport (SVC_SMTP_URL; smtps:// is TLS from the start,
// smtp:// upgrades with STARTTLS when the server offers it). One pooled transport per gateway.
import nodemailer from "nodemailer";
import type { MailConfig } from "../config.ts";

export interface Mail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** The report's unsubscribe link: also sent as List-Unsubscribe (with one-click POST, RFC 8058). */
  readonly unsubscribeUrl?: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

// 30 s per SMTP step: a slow relay is waited for, a dead one does not hold a run for nodemailer's 10 minutes.
const SMTP_TIMEOUT_MS = 30_000;

export function createMailer(config: MailConfig): Mailer {
  const transport = nodemailer.createTransport({
    url: config.smtpUrl,
    pool: true,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  return {
    async send(mail) {
      await transport.sendMail({
        from: config.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        ...(mail.unsubscribeUrl ? { list: { unsubscribe: { url: mail.unsubscribeUrl, comment: "Unsubscribe" } }, headers: { "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" } } : {}),
      });
    },
    close: () => transport.close(),
  };
}
