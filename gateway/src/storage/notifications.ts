// Report recipients, alert rules and the alerts' delivery log (sql/018_shares_reports_alerts.sql).
import type pg from "pg";

export type Frequency = "weekly" | "monthly";
export type AlertKind = "anomaly" | "visitors_last_hour";

export interface RecipientRecord {
  id: number;
  site_id: number;
  email: string;
  frequency: Frequency;
  confirmed_at: Date | null;
  unsubscribe_token: string;
  last_sent_period: string | null;
  created_at: Date;
}

const RECIPIENT = "id, site_id, email, frequency, confirmed_at, unsubscribe_token, last_sent_period, created_at";

/** The new recipient, or null when the site already sends that address that report. */
export async function insertRecipient(pool: pg.Pool, r: { siteId: number; email: string; frequency: Frequency; confirmHash: Buffer; unsubscribeToken: string }): Promise<RecipientRecord | null> {
  const { rows } = await pool.query<RecipientRecord>(
    `insert into report_recipients (site_id, email, frequency, confirm_token_hash, unsubscribe_token) values ($1, $2, $3, $4, $5)
     on conflict (site_id, email, frequency) do nothing returning ${RECIPIENT}`,
    [r.siteId, r.email, r.frequency, r.confirmHash, r.unsubscribeToken],
  );
  return rows[0] ?? null;
}

export async function listRecipients(pool: pg.Pool, siteId: number): Promise<RecipientRecord[]> {
  return (await pool.query<RecipientRecord>(`select ${RECIPIENT} from report_recipients where site_id = $1 order by id`, [siteId])).rows;
}

export async function deleteRecipient(pool: pg.Pool, siteId: number, id: number): Promise<boolean> {
  return (await pool.query("delete from report_recipients where site_id = $1 and id = $2", [siteId, id])).rowCount !== 0;
}

/** The recipient the link confirms (once: the token is cleared), with its site's domain; null when unknown. */
export async function confirmRecipient(pool: pg.Pool, confirmHash: Buffer, now: Date): Promise<{ email: string; frequency: Frequency; domain: string } | null> {
  const { rows } = await pool.query(
    `update report_recipients r set confirmed_at = $2, confirm_token_hash = null from sites s
      where r.confirm_token_hash = $1 and s.id = r.site_id returning r.email, r.frequency, s.domain`,
    [confirmHash, now],
  );
  return rows[0] ?? null;
}

export async function unsubscribeRecipient(pool: pg.Pool, token: string): Promise<{ email: string; frequency: Frequency; domain: string } | null> {
  const { rows } = await pool.query(
    `delete from report_recipients r using sites s where r.unsubscribe_token = $1 and s.id = r.site_id returning r.email, r.frequency, s.domain`,
    [token],
  );
  return rows[0] ?? null;
}

/** Every confirmed recipient of `frequency`, with its site's zone (which says which period is due). */
export async function confirmedRecipients(pool: pg.Pool, frequency: Frequency): Promise<Array<RecipientRecord & { domain: string; site_name: string | null; time_zone: string }>> {
  const { rows } = await pool.query(
    `select ${RECIPIENT.split(", ").map((c) => `r.${c}`).join(", ")}, s.domain, s.name as site_name, s.time_zone from report_recipients r join sites s on s.id = r.site_id
      where r.frequency = $1 and r.confirmed_at is not null order by r.site_id, r.id`,
    [frequency],
  );
  return rows;
}

/** Takes the right to send `period` to this recipient; false when another run (or gateway) took it. */
export async function claimReport(pool: pg.Pool, id: number, period: string, previous: string | null): Promise<boolean> {
  return (await pool.query("update report_recipients set last_sent_period = $2 where id = $1 and last_sent_period is not distinct from $3", [id, period, previous])).rowCount !== 0;
}

/** Gives the period back after a failed send, so the next run tries again. */
export async function releaseReport(pool: pg.Pool, id: number, period: string, previous: string | null): Promise<void> {
  await pool.query("update report_recipients set last_sent_period = $3 where id = $1 and last_sent_period = $2", [id, period, previous]);
}

export interface AlertRuleRecord {
  id: number;
  site_id: number;
  kind: AlertKind;
  threshold: number | null;
  interval_minutes: number;
  email: string | null;
  webhook_url: string | null;
  webhook_secret: string | null;
  last_fired_at: Date | null;
  created_at: Date;
}

const RULE = "id, site_id, kind, threshold, interval_minutes, email, webhook_url, webhook_secret, last_fired_at, created_at";

export async function insertAlertRule(
  pool: pg.Pool,
  r: { siteId: number; kind: AlertKind; threshold: number | null; intervalMinutes: number; email: string | null; webhookUrl: string | null; webhookSecret: string | null },
): Promise<AlertRuleRecord> {
  const { rows } = await pool.query<AlertRuleRecord>(
    `insert into alert_rules (site_id, kind, threshold, interval_minutes, email, webhook_url, webhook_secret) values ($1, $2, $3, $4, $5, $6, $7) returning ${RULE}`,
    [r.siteId, r.kind, r.threshold, r.intervalMinutes, r.email, r.webhookUrl, r.webhookSecret],
  );
  return rows[0]!;
}

export async function listAlertRules(pool: pg.Pool, siteId: number | null): Promise<AlertRuleRecord[]> {
  const { rows } = await pool.query<AlertRuleRecord>(`select ${RULE} from alert_rules where $1::int is null or site_id = $1 order by id`, [siteId]);
  return rows;
}

export async function deleteAlertRule(pool: pg.Pool, siteId: number, id: number): Promise<boolean> {
  return (await pool.query("delete from alert_rules where site_id = $1 and id = $2", [siteId, id])).rowCount !== 0;
}

/** Takes the rule's turn to fire now; false when it fired less than its interval ago (here or on another gateway). */
export async function claimAlert(pool: pg.Pool, id: number, now: Date): Promise<boolean> {
  const { rowCount } = await pool.query(
    "update alert_rules set last_fired_at = $2::timestamptz where id = $1 and (last_fired_at is null or last_fired_at <= $2::timestamptz - make_interval(mins => interval_minutes))",
    [id, now],
  );
  return rowCount !== 0;
}

export interface DeliveryRecord {
  rule_id: number;
  channel: "email" | "webhook";
  attempt: number;
  status: "delivered" | "failed";
  http_status: number | null;
  error: string | null;
  at: Date;
}

// 200 attempts a site: weeks of a noisy rule's log; older ones are pruned as new ones are written.
const DELIVERIES_KEPT = 200;

export async function recordDelivery(pool: pg.Pool, siteId: number, d: DeliveryRecord): Promise<void> {
  await pool.query(
    `with added as (insert into alert_deliveries (rule_id, site_id, channel, attempt, status, http_status, error, at) values ($1, $2, $3, $4, $5, $6, $7, $8) returning id)
     delete from alert_deliveries where site_id = $2 and id not in (select id from alert_deliveries where site_id = $2 order by at desc, id desc limit ${DELIVERIES_KEPT - 1}) and id not in (select id from added)`,
    [d.rule_id, siteId, d.channel, d.attempt, d.status, d.http_status, d.error, d.at],
  );
}

export async function listDeliveries(pool: pg.Pool, siteId: number, limit: number): Promise<DeliveryRecord[]> {
  const { rows } = await pool.query<DeliveryRecord>(
    "select rule_id, channel, attempt, status, http_status, error, at from alert_deliveries where site_id = $1 order by at desc, id desc limit $2",
    [siteId, limit],
  );
  return rows;
}
