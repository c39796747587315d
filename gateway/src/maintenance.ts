// Background upkeep, one Effect fiber: partitions for this and next month, deletion of past days'
// salts, the count of rows that fell into the default partition, and once a day the retention job.
// Runs at boot and then every minute (a salt outlives its day by at most that minute).
import { Effect, Fiber, Schedule } from "effect";
import type pg from "pg";
import { type Clock, utcDay } from "@svc/core";
import type { Logger } from "./log.ts";
import { countDefaultPartitionRows, ensureMonthlyPartitions } from "./storage/partitions.ts";
import { applyRetention } from "./storage/retention.ts";
import { deleteSaltsBefore } from "./storage/salts.ts";

export class Maintenance {
  private fiber: Fiber.Fiber<unknown, unknown> | null = null;
  private lastRetentionDay = "";
  defaultRows = { events: 0, hits: 0 };

  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
    private readonly log: Logger,
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

  start(): void {
    const tick = Effect.tryPromise(() => this.runOnce()).pipe(
      Effect.catch((error) => Effect.sync(() => this.log.warn("maintenance failed; retrying next minute", { error: String(error) }))),
    );
    this.fiber = Effect.runFork(Effect.repeat(tick, Schedule.spaced("1 minute")));
  }

  async stop(): Promise<void> {
    if (this.fiber) await Effect.runPromise(Fiber.interrupt(this.fiber));
  }
}
