// Anomalies on a schedule: every hour (the series are hourly) the flags of every site are computed into the
// detector's cache and their counts per kind logged, so an operator sees a spike in the log without opening
// the dashboard. Labels (crawler names, paths) are visitor-supplied and never logged; the route shows them.
import type pg from "pg";
import type { Logger } from "../log.ts";
import { PeriodicTask } from "../schedule/periodic-task.ts";
import { listSites } from "../storage/sites.ts";
import type { AnomalyDetector } from "./detector.ts";

export const ANOMALY_SCAN_MS = 60 * 60_000;
// The scan looks at the last day: what changed since the previous scans.
const SCAN_DAYS = 1;

export function anomalyScan(pool: pg.Pool, detector: AnomalyDetector, log: Logger, everyMs = ANOMALY_SCAN_MS): PeriodicTask {
  return new PeriodicTask({
    name: "anomaly scan",
    everyMs,
    log,
    run: async (signal) => {
      for (const site of await listSites(pool)) {
        if (signal.aborted) return;
        const { flags } = await detector.report(site.id, SCAN_DAYS);
        if (flags.length === 0) continue;
        const counts: Record<string, number> = {};
        for (const f of flags) counts[f.kind] = (counts[f.kind] ?? 0) + 1;
        log.warn("anomalies flagged", { site_id: site.id, ...counts });
      }
    },
  });
}
