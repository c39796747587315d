// Saving the site lanes' day states at a clean stop and taking them up at the next boot (snapshot.ts
// encodes them, storage/lane-snapshots.ts stores them). A failure on either side only costs time: the
// day's raw rows are replayed instead.
import { performance } from "node:perf_hooks";
import { utcDayStart } from "@svc/core";
import type pg from "pg";
import type { Logger } from "../log.ts";
import { saveLaneSnapshots, takeLaneSnapshots } from "../storage/lane-snapshots.ts";
import { type DayState, decodeDayState, encodeDayState } from "./snapshot.ts";

export async function saveDayStates(pool: pg.Pool, states: readonly DayState[], log: Logger): Promise<void> {
  const started = performance.now();
  try {
    const snapshots = states.map((s) => ({ siteId: s.state.siteId, dayStart: s.state.dayStart, watermark: s.state.watermark, bytes: encodeDayState(s) }));
    await saveLaneSnapshots(pool, snapshots);
    const bytes = snapshots.reduce((n, s) => n + s.bytes.length, 0);
    log.info("site states saved for the next boot", { sites: snapshots.length, bytes, ms: Math.round(performance.now() - started) });
  } catch (error) {
    log.warn("site states not saved; the next boot replays today's rows", { error: error instanceof Error ? error.message : String(error) });
  }
}

export async function loadDayStates(pool: pg.Pool, now: number, log: Logger): Promise<DayState[]> {
  const started = performance.now();
  const stored = await takeLaneSnapshots(pool, utcDayStart(now));
  const read = performance.now();
  const states: DayState[] = [];
  for (const s of stored) {
    try {
      const state = decodeDayState(s.bytes);
      if (state !== null && state.state.siteId === s.siteId && state.state.dayStart === s.dayStart) states.push(state);
    } catch (error) {
      log.warn("a saved site state is unreadable; the site replays today's rows", { site: s.siteId, error: error instanceof Error ? error.message : String(error) });
    }
  }
  if (stored.length > 0) {
    const bytes = stored.reduce((n, s) => n + s.bytes.length, 0);
    log.info("site states of the last clean stop loaded", { sites: states.length, bytes, read_ms: Math.round(read - started), decode_ms: Math.round(performance.now() - read) });
  }
  return states;
}
