// Background upkeep, one Effect fiber: partitions for this and next month, deletion of past days'
// salts, the count of rows that fell into the default partition, and once a day the retention job.
// Runs at boot and then every minute (a salt outlives its day by at most that minute).
import { Effect } from "effect";
import type pg from "pg";
import { type Clock, utcDay } from "@svc/core";
import type { Logger } from "./log.ts";
import { countDefaultPartitionRows, ensureMonthlyPartitions } from "./storage/partitions.ts";
import { applyRetention } from "./storage/retention.ts";
import { deleteSaltsBefore } from "./storage/salts.ts";
import type { FaultInjector } from "./supervision/faults.ts";

// Every minute: a salt outlives its day by at most that long.
const INTERVAL_MS = 60_000;

export class Maintenance {
  private lastRetentionDay = "";
  defaultRows = { events: 0, hits: 0 };

  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly faults: FaultInjector,
    /** Tests shorten it to see the supervised loop crash and restart. */
    private readonly intervalMs: number = INTERVAL_MS,
  ) {}

  async runOnce(): Promise<void> {
    const now = this.clock.now();
    const today = utcDay(now);
    const created = await ensureMonthlyPartitions(this.pool, now);
    if (created.length > 0) this.log.info("partitions created", { partitions: created.join(",") });
    await deleteSaltsBefore(this.pool, today);
    const rows = await countDefaultPartitionRows(this.pool);
    if (rows.events + rows.hits > 0) this.log.warn("rows outside monthly partitions (in the default partition)", rows);
    this.defaultRows = rows;
    if (this.lastRetentionDay !== today) {
      const result = await applyRetention(this.pool, now);
      this.lastRetentionDay = today;
      if (result.deletedRows > 0 || result.droppedPartitions.length > 0)
        this.log.info("retention applied", { deleted_rows: result.deletedRows, dropped_partitions: result.droppedPartitions.join(",") });
    }
  }

  /**
   * Every minute after the boot run; supervised by the maintenance layer. A database error is a warning
   * and the next minute retries; anything else thrown crashes the loop, which is restarted.
   */
  loop(): Effect.Effect<void> {
    const self = this;
    const tick = Effect.gen(function* () {
      yield* Effect.sleep(self.intervalMs);
      self.faults.trip("maintenance");
      const result = yield* Effect.result(Effect.tryPromise(() => self.runOnce()));
      if (result._tag === "Failure") self.log.warn("maintenance failed; retrying next minute", { error: String(result.failure.cause ?? result.failure) });
    });
    return Effect.forever(tick);
  }
}
