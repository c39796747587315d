// Reports and alerts end to end, nothing leaving the machine: a real gateway on real PostgreSQL with the
// injected clock, a real SMTP server (smtp-server) started here and a local webhook receiver. A weekly report
// arrives only after its recipient confirmed, with the week's numbers against the week before, once, with an
// unsubscribe link that works; the mail is rendered in Chromium for a screenshot. Alerts: a signed webhook,
// retried after a 500, logged attempt by attempt, at most once per interval; errors in the log carry no
// secret. Boot refuses an incomplete mail configuration.
import { createHmac } from "node:crypto";
import { mkdirSync } from "node:fs";
import { type IncomingHttpHeaders, createServer } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../../tracker/test/support/browser.ts";
import { ConfigInvalid, loadConfig } from "../src/config.ts";
import { duration } from "../src/notify/report-mail.ts";
import { bearer, call, createApiKey, loginAsAdmin } from "./support/auth.ts";
import { type Harness, UA, post, startHarness } from "./support/harness.ts";
import { type TestSmtp, startSmtp } from "./support/smtp.ts";

const SITE = "report.example";
// Sites whose weeks are local ones: Kolkata (UTC+5:30, a half-hour zone) and New York (UTC−5 in November).
const KOLKATA = "kolkata.report.example";
const NEW_YORK = "newyork.report.example";
const PUBLIC = "https://stats.svc.test";
const SHOTS = join(import.meta.dirname, "../../dashboard/screenshots");
let h: Harness;
let smtp: TestSmtp;
let admin: Record<string, string>;
const person = (n: number) => UA.chrome.replace("Chrome/131.0.0.0", `Chrome/131.0.${n}.0`);
const visit = (n: number, path: string, site = SITE, referrer = n % 2 ? "https://www.google.com/" : "") =>
  post(h.base, "/api/event", { d: site, u: `https://${site}${path}`, r: referrer }, { "user-agent": person(n) }).then((r) => expect(r.status).toBe(202));
/** A link from a mail, sent to this gateway instead of the public dashboard (whose /api proxy would forward it). */
const follow = (url: string, method = "GET") => call(h.base, method, url.replace(PUBLIC, ""));

/** A webhook receiver on a random local port: answers each request with the next status of `statuses` (then 204). */
async function startReceiver(statuses: number[]) {
  const requests: Array<{ headers: IncomingHttpHeaders; body: string; at: number }> = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      requests.push({ headers: req.headers, body, at: Date.now() });
      res.writeHead(statuses.shift() ?? 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks/svc`, requests, close: () => new Promise<void>((r) => server.close(() => r())) };
}

beforeAll(async () => {
  smtp = await startSmtp();
  // Tuesday of the week before the reported one: the harness clock walks forward from here.
  h = await startHarness({
    sites: [SITE, KOLKATA, NEW_YORK], now: "2026-11-03T10:00:00Z", webhookRetryBaseMs: 50,
    env: { SVC_SMTP_URL: smtp.url, SVC_MAIL_FROM: "svc reports <reports@svc.test>", SVC_PUBLIC_URL: PUBLIC },
  });
  const { token } = await loginAsAdmin(h.base);
  admin = bearer(await createApiKey(h.base, token, "reports", "admin"));
  // The week before: 2 visitors. The reported week (Mon 9 – Sun 15 November): 6 visitors, 8 pageviews.
  await visit(1, "/");
  await visit(2, "/pricing");
  for (const [site, zone] of [[KOLKATA, "Asia/Kolkata"], [NEW_YORK, "America/New_York"]]) {
    expect((await call(h.base, "PATCH", `/api/sites/${site}`, { body: { time_zone: zone }, headers: admin })).status).toBe(200);
  }
  // Kolkata's week of Monday 9 November runs from 18:30 UTC on the 8th to 18:30 UTC on the 15th: a visit just
  // before it (the week before), two just inside it, and one just after it (the next week).
  h.clock.set("2026-11-08T18:00:00Z");
  await visit(30, "/before", KOLKATA);
  h.clock.set("2026-11-08T19:00:00Z");
  await visit(31, "/monday", KOLKATA);
  await visit(1, "/ny-sunday", NEW_YORK); // Sunday 8th, 14:00 in New York: its week of 2 – 8 November
  h.clock.set("2026-11-10T09:00:00Z");
  for (const [n, path] of [[3, "/"], [4, "/"], [5, "/pricing"], [6, "/blog/hello"], [7, "/"], [8, "/docs"]] as const) await visit(n, path);
  // Two of them read on, 125 s later: visits of 125 s, 125 s and four of 0 s (a mean of 42 s).
  h.clock.advance(125_000);
  await visit(3, "/pricing");
  await visit(4, "/docs");
  h.clock.set("2026-11-15T18:00:00Z");
  await visit(32, "/sunday", KOLKATA);
  await visit(34, "/from-chatgpt", KOLKATA, "https://chatgpt.com/");
  expect((await post(h.base, "/api/hit", { domain: KOLKATA, method: "GET", path: "/sunday", status: 200, user_agent: UA.gptbot, referrer: null, ip: "192.0.2.7" })).status).toBe(202);
  h.clock.set("2026-11-15T19:00:00Z");
  await visit(33, "/next", KOLKATA);
  await h.gateway.rollups.flushBeforeRead();
});
afterAll(async () => {
  await h?.close();
  await smtp?.close();
});

describe("a visit duration as a person reads it", () => {
  it.each([
    [0, "0s"],
    [42, "42s"],
    [59.6, "1m 00s"],
    [65, "1m 05s"],
    [3599, "59m 59s"],
    [3725, "1h 02m"],
  ])("%s s → %s", (seconds, shown) => expect(duration(seconds)).toBe(shown));
});

describe("weekly e-mail report", () => {
  let unsubscribe: string;

  it("asks the recipient to confirm first, and sends nothing before", async () => {
    const added = await call(h.base, "POST", `/api/sites/${SITE}/reports`, { body: { email: "owner@report.example", frequency: "weekly" }, headers: admin });
    expect(added.status).toBe(201);
    expect(added.json).toMatchObject({ email: "owner@report.example", frequency: "weekly", confirmed: false });
    const confirmation = await smtp.next("owner@report.example");
    expect(confirmation.mail.subject).toBe(`Confirm weekly reports for ${SITE}`);
    const link = /https:\/\/stats\.svc\.test\/api\/reports\/confirm\/[A-Za-z0-9_-]{43}/.exec(confirmation.mail.text!)![0];
    h.clock.set("2026-11-16T00:10:00Z");
    await h.gateway.notifier.runDue();
    expect(smtp.received.filter((m) => m.mail.subject?.startsWith("Weekly"))).toEqual([]);
    const confirmed = await follow(link);
    expect(confirmed.status).toBe(200);
    expect(confirmed.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(confirmed.json).toContain("will get weekly reports for report.example");
    expect((await follow(link)).status).toBe(404); // a confirmation link works once
  });

  it("arrives with last week's numbers against the week before, once", async () => {
    await h.gateway.notifier.runDue();
    const report = await smtp.next("owner@report.example");
    expect(report.mail.subject).toBe(`Weekly report for ${SITE}: 6 visitors (+200%)`);
    expect(report.mail.from!.text).toBe('"svc reports" <reports@svc.test>');
    const text = report.mail.text!;
    expect(text).toContain("2026-11-09 – 2026-11-15 (UTC)");
    expect(text).toContain("Compared with 2026-11-02 – 2026-11-08.");
    expect(text).toContain("Visitors: 6 (+200%)");
    expect(text).toContain("Pageviews: 8 (+300%)");
    // Visits, bounce rate and duration: exactly what POST /api/v2/query answers for the same week against the
    // one before (6 visits of which 4 one-page ones: 67%; the week before 2 visits, both bounced).
    const q = await call(h.base, "POST", "/api/v2/query", {
      body: { site_id: SITE, date_range: ["2026-11-09", "2026-11-15"], metrics: ["visits", "bounce_rate", "visit_duration"], include: { comparisons: { mode: "previous_period" } } },
      headers: admin,
    });
    expect(q.status).toBe(200);
    const [[visits, bounce, seconds], change] = [q.json.results[0].metrics, q.json.results[0].comparison.change];
    expect([visits, bounce, seconds, change[0], change[1], change[2]]).toEqual([6, 67, 42, 200, -33, 100]);
    const signed = (n: number, unit: string) => `${n >= 0 ? "+" : "−"}${Math.abs(n)}${unit}`;
    expect(text).toContain(`Visits: ${visits} (${signed(change[0], "%")})`);
    expect(text).toContain(`Bounce rate: ${bounce}% (${signed(change[1], " pts")})`);
    expect(text).toContain(`Visit duration: ${duration(seconds)} (${signed(change[2], "%")})`);
    expect(text).toMatch(/Top pages \(visitors\):\n {2}3 {2}\/\n {2}2 {2}\/docs\n {2}2 {2}\/pricing\n {2}1 {2}\/blog\/hello/);
    expect(text).toMatch(/Top sources \(visitors\):\n {2}3 {2}Direct \/ None\n {2}3 {2}Google/);
    const html = report.mail.html as string;
    expect(html).toContain('data-metric="visitors">6<');
    expect(html).toContain(`data-metric="visits">${visits}<`);
    expect(html).toContain(`data-metric="bounce_rate">${bounce}%<`);
    expect(html).toContain(`data-change="bounce_rate">${signed(change[1], " pts")}<`);
    expect(html).toContain(`data-metric="visit_duration">${duration(seconds)}<`);
    unsubscribe = /Unsubscribe: (\S+)/.exec(text)![1]!;
    expect(unsubscribe).toMatch(/^https:\/\/stats\.svc\.test\/api\/reports\/unsubscribe\/[A-Za-z0-9_-]{43}$/);
    expect(html).toContain(`href="${unsubscribe}"`);
    const header = (name: string) => report.mail.headerLines.find((l) => l.key === name)?.line.replace(/\r?\n\s+/g, " ");
    expect(header("list-unsubscribe")).toContain(`<${unsubscribe}>`);
    expect(header("list-unsubscribe-post")).toBe("List-Unsubscribe-Post: List-Unsubscribe=One-Click");

    const browser = await launchBrowser();
    try {
      mkdirSync(SHOTS, { recursive: true });
      // A desktop mail client's width, and a phone's (the mail's colours are inline: a dark scheme changes nothing).
      for (const [width, file] of [[680, "report-email.png"], [375, "report-email-375.png"]] as const) {
        const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
        await page.setContent(html);
        await page.screenshot({ path: join(SHOTS, file), fullPage: true });
        expect(await page.evaluate(() => document.documentElement.scrollWidth), file).toBeLessThanOrEqual(width);
      }
    } finally {
      await browser.close();
    }

    h.clock.advance(60 * 60_000);
    await h.gateway.notifier.runDue();
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.received.filter((m) => m.mail.subject?.startsWith("Weekly"))).toHaveLength(1);
  });

  it("stops at the unsubscribe link (one-click POST too)", async () => {
    const gone = await follow(unsubscribe, "POST");
    expect(gone.status).toBe(200);
    expect(gone.json).toContain("will get no more weekly reports");
    expect((await follow(unsubscribe)).status).toBe(404);
    expect((await call(h.base, "GET", `/api/sites/${SITE}/reports`, { headers: admin })).json.recipients).toEqual([]);
  });

  it("refuses bad recipients with a 400 naming the field, and a duplicate with 409", async () => {
    for (const body of [{ email: "not an address", frequency: "weekly" }, { email: "a@b.example", frequency: "daily" }]) {
      const reply = await call(h.base, "POST", `/api/sites/${SITE}/reports`, { body, headers: admin });
      expect(reply.status).toBe(400);
    }
    const body = { email: "twice@report.example", frequency: "monthly" };
    expect((await call(h.base, "POST", `/api/sites/${SITE}/reports`, { body, headers: admin })).status).toBe(201);
    expect((await call(h.base, "POST", `/api/sites/${SITE}/reports`, { body, headers: admin })).status).toBe(409);
  });
});

describe("a report in the site's time zone", () => {
  const query = async (body: Record<string, unknown>) => {
    const reply = await call(h.base, "POST", "/api/v2/query", { body, headers: admin });
    expect(reply.status, JSON.stringify(reply.json)).toBe(200);
    return reply.json.results as Array<{ dimensions: string[]; metrics: number[]; comparison?: { change: Array<number | null> } }>;
  };
  const signed = (n: number | null, unit: string) => (n === null ? "–" : `${n >= 0 ? "+" : "−"}${Math.abs(n)}${unit}`);
  async function subscribe(site: string, email: string) {
    expect((await call(h.base, "POST", `/api/sites/${site}/reports`, { body: { email, frequency: "weekly" }, headers: admin })).status).toBe(201);
    const link = /https:\/\/stats\.svc\.test\/api\/reports\/confirm\/[A-Za-z0-9_-]{43}/.exec((await smtp.next(email)).mail.text!)![0];
    expect((await follow(link)).status).toBe(200);
  }

  it("covers the site's local week, every figure the query API's for the same dates", async () => {
    await subscribe(KOLKATA, "kolkata@report.example");
    await subscribe(NEW_YORK, "newyork@report.example");
    // Monday 01:10 UTC: 06:40 on Monday in Kolkata, still Sunday 20:10 in New York.
    h.clock.set("2026-11-16T01:10:00Z");
    await h.gateway.notifier.runDue();

    const text = (await smtp.next("kolkata@report.example")).mail.text!;
    expect(text).toContain("2026-11-09 – 2026-11-15 (Asia/Kolkata)");
    expect(text).toContain("Compared with 2026-11-02 – 2026-11-08.");
    const week = { site_id: KOLKATA, date_range: ["2026-11-09", "2026-11-15"] };
    const [summary] = await query({ ...week, metrics: ["visitors", "visits", "pageviews", "bounce_rate", "visit_duration"], include: { comparisons: { mode: "previous_period" } } });
    const [visitors, visits, pageviews, bounce, seconds] = summary!.metrics;
    const change = summary!.comparison!.change;
    // The two visits inside the local week, against the one just before it (UTC days would count /monday out and /next in).
    expect([visitors, pageviews, change[0]]).toEqual([2, 2, 100]);
    expect(text).toContain(`Visitors: ${visitors} (${signed(change[0]!, "%")})`);
    expect(text).toContain(`Visits: ${visits} (${signed(change[1]!, "%")})`);
    expect(text).toContain(`Pageviews: ${pageviews} (${signed(change[2]!, "%")})`);
    expect(text).toContain(`Bounce rate: ${bounce}% (${signed(change[3]!, " pts")})`);
    expect(text).toContain(`Visit duration: ${duration(seconds!)} (${signed(change[4]!, "%")})`);
    const pages = await query({ ...week, metrics: ["visitors"], dimensions: ["event:page"], order_by: [["visitors", "desc"]] });
    expect(pages.map((r) => r.dimensions[0])).toEqual(["/monday", "/sunday"]);
    expect(text).toContain(`Top pages (visitors):\n${pages.map((r) => `  ${r.metrics[0]}  ${r.dimensions[0]}`).join("\n")}\n`);
    const ai = new Map((await query({ ...week, metrics: ["visitors", "hits"], filters: [["is", "visit:actor", ["human_via_ai", "ai_crawler"]]], dimensions: ["visit:actor"] })).map((r) => [r.dimensions[0], r.metrics]));
    expect([ai.get("human_via_ai")?.[0], ai.get("ai_crawler")?.[1]]).toEqual([1, 1]);
    expect(text).toContain("AI: 1 visitors from assistants, 1 crawler hits.");
    const [assistant] = await query({ ...week, metrics: ["visitors"], filters: [["is", "visit:actor", ["human_via_ai"]]], dimensions: ["visit:assistant"] });
    expect(text).toContain(`Visitors from AI assistants (visitors):\n  1  ${assistant!.dimensions[0]}\n`);

    // New York's week has not ended: its report is the week before, with its Sunday visit.
    const before = (await smtp.next("newyork@report.example")).mail.text!;
    expect(before).toContain("2026-11-02 – 2026-11-08 (America/New_York)");
    expect(before).toContain("Visitors: 1 (+100%)");
    // Its Monday starts at 05:00 UTC: then the week of the 9th goes, and Kolkata's is not sent again.
    h.clock.set("2026-11-16T05:10:00Z");
    await h.gateway.notifier.runDue();
    expect((await smtp.next("newyork@report.example")).mail.text!).toContain("2026-11-09 – 2026-11-15 (America/New_York)");
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.received.filter((m) => m.to === "kolkata@report.example" && m.mail.subject?.startsWith("Weekly"))).toHaveLength(1);
  });
});

describe("alerts", () => {
  it("posts a signed webhook, retried after a 500, logged per attempt, at most once per interval", async () => {
    const receiver = await startReceiver([500]);
    h.clock.set("2026-11-18T12:00:00Z");
    for (const n of [20, 21, 22]) await visit(n, "/spike");
    const made = await call(h.base, "POST", `/api/sites/${SITE}/alerts`, { body: { kind: "visitors_last_hour", threshold: 2, interval_minutes: 5, webhook_url: receiver.url, email: "oncall@report.example" }, headers: admin });
    expect(made.status).toBe(201);
    const secret: string = made.json.webhook_secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify((await call(h.base, "GET", `/api/sites/${SITE}/alerts`, { headers: admin })).json)).not.toContain(secret);

    await h.gateway.notifier.runDue();
    await h.gateway.notifier.settled();
    expect(receiver.requests).toHaveLength(2);
    for (const r of receiver.requests) {
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(r.headers["x-svc-signature"]))!;
      expect(v1).toBe(createHmac("sha256", secret).update(`${t}.${r.body}`).digest("hex"));
      expect(JSON.parse(r.body)).toMatchObject({ alert: "visitors_last_hour", site_id: expect.any(Number), visitors_last_hour: 3, threshold: 2 });
    }
    const mail = await smtp.next("oncall@report.example");
    expect(mail.mail.subject).toBe("Traffic alert: 3 visitors in the last hour (above 2)");
    const log = (await call(h.base, "GET", `/api/sites/${SITE}/alerts`, { headers: admin })).json.deliveries;
    expect(log.map((d: { channel: string; attempt: number; status: string; http_status: number | null }) => [d.channel, d.attempt, d.status, d.http_status]).sort()).toEqual(
      [["email", 1, "delivered", null], ["webhook", 1, "failed", 500], ["webhook", 2, "delivered", 204]].sort(),
    );

    // Within the interval: nothing more. After it (the condition still holding): one more.
    h.clock.advance(4 * 60_000);
    await h.gateway.notifier.runDue();
    await h.gateway.notifier.settled();
    expect(receiver.requests).toHaveLength(2);
    h.clock.advance(2 * 60_000);
    await h.gateway.notifier.runDue();
    await h.gateway.notifier.settled();
    expect(receiver.requests).toHaveLength(3);
    await receiver.close();
  });

  it("writes failures to the log without the URL's secrets", async () => {
    // A port nobody listens on (taken and given back).
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const made = await call(h.base, "POST", `/api/sites/${SITE}/alerts`, { body: { kind: "visitors_last_hour", threshold: 0, interval_minutes: 5, webhook_url: `http://127.0.0.1:${port}/hook?token=hunter2-secret` }, headers: admin });
    expect(made.status).toBe(201);
    await h.gateway.notifier.runDue();
    await h.gateway.notifier.settled();
    const log = (await call(h.base, "GET", `/api/sites/${SITE}/alerts`, { headers: admin })).json.deliveries.filter((d: { rule_id: number }) => d.rule_id === made.json.id);
    expect(log.map((d: { attempt: number }) => d.attempt).sort()).toEqual([1, 2, 3, 4]);
    for (const d of log) expect(d).toMatchObject({ status: "failed", http_status: null, error: "webhook could not be reached (connection refused: nothing listens there)" });
    expect(h.logs.join("\n")).not.toContain("hunter2");
  });

  it("refuses a rule without a channel, or without a threshold, naming the field", async () => {
    const none = await call(h.base, "POST", `/api/sites/${SITE}/alerts`, { body: { kind: "anomaly" }, headers: admin });
    expect(none.status).toBe(400);
    expect(none.json.details[0].path).toBe("email");
    const threshold = await call(h.base, "POST", `/api/sites/${SITE}/alerts`, { body: { kind: "visitors_last_hour", webhook_url: "https://hooks.example/" }, headers: admin });
    expect(threshold.json.details[0].path).toBe("threshold");
    const badUrl = await call(h.base, "POST", `/api/sites/${SITE}/alerts`, { body: { kind: "anomaly", webhook_url: "ftp://hooks.example/" }, headers: admin });
    expect(badUrl.json.details[0].path).toBe("webhook_url");
  });
});

describe("mail configuration at boot", () => {
  it.each([
    [{ SVC_SMTP_URL: "smtp://relay.example:25" }, "SVC_SMTP_URL is set but SVC_MAIL_FROM is not"],
    [{ SVC_SMTP_URL: "smtp://relay.example:25", SVC_MAIL_FROM: "a@b.example" }, "SVC_SMTP_URL is set but SVC_PUBLIC_URL is not"],
    [{ SVC_SMTP_URL: "http://user:pw-secret@relay.example" }, "SVC_SMTP_URL=(hidden) is invalid"],
    [{ SVC_MAIL_FROM: "not an address" }, "SVC_MAIL_FROM=\"not an address\" is invalid"],
  ])("%o is refused: %s", (env, message) => {
    let problems: readonly string[] = [];
    try {
      loadConfig(env);
    } catch (error) {
      if (error instanceof ConfigInvalid) problems = error.problems;
    }
    expect(problems.some((p) => p.startsWith(message))).toBe(true);
    expect(problems.join("\n")).not.toContain("pw-secret");
  });
});
