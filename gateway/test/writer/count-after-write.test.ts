// The writer makes a submission's rollup counts right after it writes the batch's COPY, before PostgreSQL replies
// (writer/group-commit.ts `write`, lanes/site-lane.ts `LaneTurn.count`): the counting runs while PostgreSQL works,
// and the counts handed on at the commit are complete. On a real PostgreSQL, through the writer's own commit.
import { Effect, Fiber } from "effect";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.ts";
import type { RollupDelta, WriteBatch } from "../../src/storage/rows.ts";
import { FaultInjector } from "../../src/supervision/faults.ts";
import { commitRows } from "../../src/writer/commit-rows.ts";
import type { Connections } from "../../src/writer/connection-hold.ts";
import { GroupCommitWriter, type Submission } from "../../src/writer/group-commit.ts";
import { PendingCommits } from "../../src/writer/pending-commits.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { eventRow, rollupDelta } from "../support/sample-rows.ts";

const NOW = Date.UTC(2026, 10, 27, 9, 0, 0);
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase({ nowMs: NOW });
});
afterAll(async () => {
  await db.drop();
});

describe("the writer's counts after the write", () => {
  // The commit is called first: on the held connection it writes the batch before it returns (connection-hold.test.ts).
  it("counts each submission once, after its batch is written and before the commit's counts are handed on", async () => {
    const steps: string[] = [];
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    const writer = new GroupCommitWriter({
      pool,
      commit: (connections: Connections, batch: WriteBatch) => {
        const committing = commitRows(connections, batch);
        steps.push(`commit ${batch.events.map((e) => e.page).join(" ")}`);
        return committing.then(() => void steps.push("reply"));
      },
      batchMaxRows: 1000,
      flushMs: 0,
      capacity: 16,
      inFlight: 1,
      log: silentLogger,
      pending: new PendingCommits(),
      faults: new FaultInjector(),
      onCommitError: () => undefined,
      onCommitted: (rollups) => void steps.push(`handed on ${rollups.map((d) => d.value).join(" ")}`),
    });
    const submission = (page: string): Submission => {
      const rollups: RollupDelta[] = [];
      return {
        siteId: 1, events: [eventRow({ page, ts: NOW })], hits: [], rollups, hour: NOW, valid: () => true,
        count: () => {
          steps.push(`count ${page}`);
          if (rollups.length === 0) rollups.push(rollupDelta({ dim: "page", value: page }));
        },
        committed: () => void steps.push(`committed ${page}`),
        failed: (error) => void steps.push(`failed ${page}: ${String(error)}`),
        requests: () => [],
      };
    };
    const loop = Effect.runFork(writer.loop());
    Effect.runSync(writer.submit(submission("/a")));
    Effect.runSync(writer.submit(submission("/b")));
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => steps.includes("committed /b") && (clearInterval(poll), resolve()), 5);
    });
    expect(steps).toEqual(["commit /a /b", "count /a", "count /b", "reply", "handed on /a", "committed /a", "handed on /b", "committed /b"]);
    const { rows } = await db.pool.query<{ page: string }>("select page from events order by page");
    expect(rows.map((r) => r.page)).toEqual(["/a", "/b"]);
    await Effect.runPromise(Fiber.interrupt(loop));
    writer.releaseConnections();
    await pool.end();
  });
});
