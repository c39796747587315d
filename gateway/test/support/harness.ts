// Starts a real gateway in-process on a fresh PostgreSQL database and a random port, with an
// injected clock and a captured log, for tests that speak HTTP over a real socket.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import type { Clock } from "@svc/core";
import { type Gateway, startGateway } from "../../src/app.ts";
import type { CommitFn } from "../../src/writer/group-commit.ts";
import type { WriteRollupsFn } from "../../src/rollups/flusher.ts";
import { type GatewayConfig, loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import type { Database } from "../../src/storage/database.ts";
import { addSite } from "../../src/storage/sites.ts";
import { type Reply, call } from "./auth.ts";
import { createTestDatabase } from "./database.ts";

export class TestClock implements Clock {
  constructor(public t: number) {}
  now = () => this.t;
  set(iso: string | number): void {
    this.t = typeof iso === "number" ? iso : Date.parse(iso);
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface Harness {
  readonly gateway: Gateway;
  readonly pool: pg.Pool;
  readonly url: string;
  readonly base: string;
  readonly clock: TestClock;
  readonly logs: string[];
  /** SVC_DATA_DIR of this harness (a fresh temporary directory). */
  readonly dataDir: string;
  /** Stops the gateway cleanly and starts a new one; `between` runs while none is running. */
  restart(between?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  readonly transport?: "uws" | "node";
  readonly env?: Record<string, string>;
  readonly now?: string;
  readonly sites?: readonly string[];
  readonly commit?: CommitFn;
  readonly writeRollups?: WriteRollupsFn;
  readonly maintenanceIntervalMs?: number;
  readonly webhookRetryBaseMs?: number;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const db = await createTestDatabase();
  const clock = new TestClock(Date.parse(options.now ?? new Date().toISOString()));
  const logs: string[] = [];
  // Each harness its own data directory: the query engine's Parquet files are named by site id, which every
  // fresh test database starts at 1.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "svc-test-data-"));
  const config: GatewayConfig = {
    // The ingest rate limits and the failed-credential limit refill on the injected clock, which most tests
    // never advance: they are off here and tested with their defaults in test/abuse-limits.test.ts and
    // test/auth/failed-credentials.test.ts.
    ...loadConfig({
      SVC_PORT: "0", SVC_HOST: "127.0.0.1", SVC_HTTP: options.transport ?? "uws", SVC_LOG_LEVEL: "debug", SVC_FLUSH_MS: "2",
      SVC_EVENT_RATE_PER_CLIENT: "0", SVC_HIT_RATE_PER_SITE: "0", SVC_FAILED_CREDENTIALS_PER_CLIENT: "0", SVC_DATA_DIR: dataDir, ...options.env,
    }),
    databaseUrl: db.url,
  };
  const database: Database = { pool: db.pool, url: db.url, embedded: false, close: async () => undefined };
  for (const domain of options.sites ?? []) await addSite(db.pool, { domain });
  const start = () =>
    startGateway({
      config,
      database,
      clock,
      log: createLogger("debug", (l) => logs.push(l)),
      ...(options.commit ? { commit: options.commit } : {}),
      ...(options.writeRollups ? { writeRollups: options.writeRollups } : {}),
      ...(options.maintenanceIntervalMs ? { maintenanceIntervalMs: options.maintenanceIntervalMs } : {}),
      ...(options.webhookRetryBaseMs !== undefined ? { webhookRetryBaseMs: options.webhookRetryBaseMs } : {}),
    });
  let gateway = await start();
  const harness = {
    get gateway() {
      return gateway;
    },
    pool: db.pool,
    url: db.url,
    get base() {
      return `http://127.0.0.1:${gateway.port}`;
    },
    clock,
    logs,
    dataDir,
    async restart(between?: () => Promise<void>) {
      await gateway.stop();
      await between?.();
      gateway = await start();
    },
    async close() {
      await gateway.stop();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness as Harness;
}

export const UA = {
  chrome: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  iphone: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  gptbot: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
  claudebot: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
  chatgptUser: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot",
  headless: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36",
  googlebot: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  curl: "curl/8.5.0",
} as const;

/** POST over a real socket: an object is sent as JSON, a string as it is. */
export function post(base: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return call(base, "POST", path, { body, headers: { "content-type": "application/json", ...headers } });
}
