// A run that outlasts the request (issue 20): a hung provider no longer holds POST …/insights/run for the whole
// provider timeout. POST answers 202 with `running: true` after 5 s (RUN_ANSWER_WITHIN_MS), GET shows the run in
// progress and then its result, and stopping the gateway aborts a run nobody awaits. A fake provider (node:http
// on 127.0.0.1) that answers late or never.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUN_ANSWER_WITHIN_MS } from "../../src/routes/insights.ts";
import { bearer, call, createApiKey, loginAsAdmin } from "../support/auth.ts";
import { FakeProvider } from "../support/fake-llm.ts";
import { type Harness, startHarness } from "../support/harness.ts";

const DOMAIN = "background.example";
// 8 s: longer than the 5 s a POST waits, short enough for a test.
const TIMEOUT_MS = 8000;

let h: Harness;
let fake: FakeProvider;
let key: string;

beforeAll(async () => {
  fake = await FakeProvider.start("local");
  h = await startHarness({ now: "2026-11-20T12:00:00Z", env: { SVC_LLM_PROVIDER: "local", SVC_LLM_HOST: fake.base, SVC_LLM_TIMEOUT_MS: String(TIMEOUT_MS), SVC_INSIGHTS_EVERY_HOURS: "0" }, sites: [DOMAIN] });
  const { token } = await loginAsAdmin(h.base);
  key = await createApiKey(h.base, token, "runner", "admin");
}, 60_000);
afterAll(async () => {
  await h?.close();
  await fake?.close();
});

const run = () => call(h.base, "POST", `/api/sites/${DOMAIN}/insights/run`, { headers: bearer(key) });
const last = () => call(h.base, "GET", `/api/sites/${DOMAIN}/insights`, { headers: bearer(key) });
const until = async (done: () => Promise<boolean>, ms: number) => {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe("a run longer than the request", () => {
  it("answers 202 with running: true after 5 s; GET shows it running, then its findings", async () => {
    fake.script = [{ delayMs: RUN_ANSWER_WITHIN_MS + 1500, text: "- Late but fine." }];
    const started = Date.now();
    const res = await run();
    const took = Date.now() - started;
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    expect(took).toBeGreaterThanOrEqual(RUN_ANSWER_WITHIN_MS - 50);
    expect(took).toBeLessThan(RUN_ANSWER_WITHIN_MS + 1400);
    expect(res.json).toMatchObject({ status: "empty", reason: "no run yet", running: true, findings: [] });
    expect((await last()).json.running).toBe(true);
    // A second POST meanwhile is refused.
    expect((await run()).status).toBe(409);
    await until(async () => (await last()).json.running === false, 5000);
    expect((await last()).json).toMatchObject({ status: "ok", running: false, findings: ["Late but fine."] });
    expect(fake.requests).toHaveLength(1);
  }, 20_000);

  it("a provider that never answers: 202, then the timeout stored beside the last good findings", async () => {
    fake.reset();
    fake.script = [{ delayMs: 60_000, text: "- never" }];
    const res = await run();
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ status: "ok", running: true, findings: ["Late but fine."] });
    await until(async () => (await last()).json.running === false, TIMEOUT_MS);
    expect((await last()).json).toMatchObject({ status: "error", running: false, error: `local did not answer within ${TIMEOUT_MS} ms`, findings: ["Late but fine."] });
  }, 30_000);

  it("stopping the gateway aborts a run in the background and stores nothing for it", async () => {
    fake.reset();
    fake.script = [{ delayMs: 60_000, text: "- never" }];
    const before = await h.pool.query("select status, generated_at, error from insight_runs order by status");
    expect((await run()).status).toBe(202);
    const stopped = Date.now();
    await h.restart(async () => {
      expect(Date.now() - stopped).toBeLessThan(TIMEOUT_MS);
      expect((await h.pool.query("select status, generated_at, error from insight_runs order by status")).rows).toEqual(before.rows);
    });
  }, 30_000);
});
