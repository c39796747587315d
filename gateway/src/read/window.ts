// The windows every read route answers for: whole UTC days ending today, and the same number of days just
// before them. "Today" comes from the injected clock, so tests pin it.
import type { ActorLabel } from "../api-schema/common.ts";
import { ACTORS } from "../api-schema/common.ts";
import { EVERY_ACTOR } from "../rollups/rollup-state.ts";
import { DAY_MS, HOUR_MS } from "@svc/core";


export interface DayRange {
  /** YYYY-MM-DD, inclusive. */
  readonly from: string;
  readonly to: string;
}

export interface ReadWindow extends DayRange {
  readonly days: number;
  readonly previous: DayRange;
  /** The actors counted: the one asked for, or all five for `all`. */
  readonly actors: readonly ActorLabel[];
  /**
   * The rollup actors of the `total` dimension: the one asked for, or for `all` the exact all-actor
   * counter (a visitor under two actors on one day is one visitor there).
   */
  readonly totalActors: readonly string[];
  /** ms at 00:00 UTC of the first day, and at the start of the current hour (the last hourly bucket). */
  readonly startMs: number;
  readonly currentHourMs: number;
}

export const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

export function readWindow(nowMs: number, days: number, actor: ActorLabel | "all"): ReadWindow {
  const today = nowMs - (nowMs % DAY_MS);
  const startMs = today - (days - 1) * DAY_MS;
  return {
    days,
    from: isoDay(startMs),
    to: isoDay(today),
    previous: { from: isoDay(startMs - days * DAY_MS), to: isoDay(startMs - DAY_MS) },
    actors: actor === "all" ? ACTORS : [actor],
    totalActors: actor === "all" ? [EVERY_ACTOR] : [actor],
    startMs,
    currentHourMs: nowMs - (nowMs % HOUR_MS),
  };
}

/** Every bucket start of the window, in order: days through today, or hours through the current hour. */
export function windowBuckets(window: ReadWindow, grain: "hour" | "day"): number[] {
  const step = grain === "hour" ? HOUR_MS : DAY_MS;
  const last = grain === "hour" ? window.currentHourMs : Date.parse(`${window.to}T00:00:00Z`);
  const out: number[] = [];
  for (let t = window.startMs; t <= last; t += step) out.push(t);
  return out;
}
