// The weekly insights schedule: every 10 minutes, run the sites whose last run is older than
// SVC_INSIGHTS_EVERY_HOURS (default 168, weekly). 10 minutes: a new site or a changed provider gets its first
// run soon, and an idle pass costs one query. SVC_INSIGHTS_EVERY_HOURS=0 turns the schedule off.
import type { Logger } from "../log.ts";
import { PeriodicTask } from "../schedule/periodic-task.ts";
import type { InsightsService } from "./service.ts";

export const INSIGHTS_CHECK_MS = 10 * 60_000;

export function insightsSchedule(service: InsightsService, everyHours: number, log: Logger, checkEveryMs = INSIGHTS_CHECK_MS): PeriodicTask | null {
  if (everyHours === 0) return null;
  return new PeriodicTask({ name: "insights schedule", everyMs: checkEveryMs, log, run: (signal) => service.runDue(everyHours, signal) });
}
