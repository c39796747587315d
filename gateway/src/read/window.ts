// The windows every read route answers for, and the same length just before them: whole UTC days ending today
// (`days`, from rollup_daily), or a rolling run of hours ending with the current hour (`hours`, from
// rollup_hourly). "Now" comes from the injected clock, so tests pin it.
import type { ActorChoice, ActorLabel } from "../api-schema/common.ts";
import { ACTORS, DEFAULT_DAYS, HUMAN_ACTORS } from "../api-schema/common.ts";
import { EVERY_ACTOR } from "../rollups/rollup-state.ts";
import { ApiError } from "../errors.ts";
import { DAY_MS, DEFAULT_TIME_ZONE, HOUR_MS, addDays, zonedDay, zonedDayStart } from "@svc/core";


export interface DayRange {
  /** YYYY-MM-DD, inclusive. */
  readonly from: string;
  readonly to: string;
}

/** The rollup rows a window sums: whole days of rollup_daily, or hour buckets of rollup_hourly (both bounds inclusive). */
export type Span =
  | ({ readonly grain: "day" } & DayRange)
  | { readonly grain: "hour"; readonly fromMs: number; readonly toMs: number };

export interface ReadWindow extends DayRange {
  /** Whole UTC days: the window's length for a days window, the days an hours window touches otherwise. */
  readonly days: number;
  /** The rolling window's length in hours; null for a window of whole days. */
  readonly hours: number | null;
  /** The UTC days the previous window touches. */
  readonly previous: DayRange;
  readonly current: Span;
  readonly prior: Span;
  /** The actors counted: the one asked for, both human ones for `humans`, or all five for `all`. */
  readonly actors: readonly ActorLabel[];
  /** The actors whose visitors a breakdown counts: `actors`, but for `all` without crawlers and bots (hits only). */
  readonly visitorActors: readonly ActorLabel[];
  /**
   * The rollup actors of the `total` dimension: the one asked for, or for `all` the exact all-actor
   * counter (a visitor under two actors on one day is one visitor there).
   */
  readonly totalActors: readonly string[];
  /** ms at the start of the first bucket (00:00 UTC of the first day, or the first hour), and of the current hour. */
  readonly startMs: number;
  readonly currentHourMs: number;
  /**
   * The site's zone when its days are not UTC days: `from`, `to` and `previous` are then local days, read from
   * hour buckets (zonedWindow). Absent for UTC.
   */
  readonly timeZone?: string;
  /** A zoned days window's bucket starts of its local days (each the UTC hour holding the local midnight). */
  readonly dayStarts?: readonly number[];
}

export const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const dayOf = (ms: number): number => ms - (ms % DAY_MS);

/** The actors whose visitors `all` counts: people and agents; crawlers and bots are counted as hits only. */
export const ALL_VISITOR_ACTORS: readonly ActorLabel[] = ["human", "human_via_ai", "ai_agent"];

// `humans` sums its two actors' counters (a person under both on one day counts twice there: `inferred`).
const actorsOf = (actor: ActorChoice) => {
  const actors = actor === "all" ? ACTORS : actor === "humans" ? HUMAN_ACTORS : [actor];
  return {
    actors,
    visitorActors: actor === "all" ? ALL_VISITOR_ACTORS : actors,
    totalActors: actor === "all" ? [EVERY_ACTOR] : actors,
  };
};

/** `days` whole UTC days ending today, and the `days` days before them. */
export function readWindow(nowMs: number, days: number, actor: ActorChoice): ReadWindow {
  const today = dayOf(nowMs);
  const startMs = today - (days - 1) * DAY_MS;
  const from = isoDay(startMs);
  const to = isoDay(today);
  const previous = { from: isoDay(startMs - days * DAY_MS), to: isoDay(startMs - DAY_MS) };
  return {
    days,
    hours: null,
    from,
    to,
    previous,
    current: { grain: "day", from, to },
    prior: { grain: "day", ...previous },
    ...actorsOf(actor),
    startMs,
    currentHourMs: nowMs - (nowMs % HOUR_MS),
  };
}

const hourOf = (ms: number): number => ms - (((ms % HOUR_MS) + HOUR_MS) % HOUR_MS);

/**
 * `days` local days of `timeZone` ending today there, and the `days` days before them, from the hourly rollups
 * (the daily ones hold UTC days). Whole-hour zones are exact for every count; in a half-hour or 45-minute zone
 * (Asia/Kolkata, America/St_Johns, Asia/Kathmandu) each local day is read from the UTC hour holding its
 * midnight, so its first bucket also holds the last 30 (or 15, 45) minutes of the day before. Visitors are
 * distinct per hour and summed (an upper bound, `inferred`), as for an hours window: visitor identity is a UTC
 * day, and a local day holds parts of two.
 */
export function zonedWindow(nowMs: number, days: number, actor: ActorChoice, timeZone: string): ReadWindow {
  const today = zonedDay(nowMs, timeZone);
  const first = addDays(today, -(days - 1));
  const previousFirst = addDays(first, -days);
  const dayStart = (day: string): number => hourOf(zonedDayStart(day, timeZone).getTime());
  const startMs = dayStart(first);
  const priorFromMs = dayStart(previousFirst);
  const currentHourMs = hourOf(nowMs);
  const dayStarts: number[] = [];
  for (let d = first; d <= today; d = addDays(d, 1)) dayStarts.push(dayStart(d));
  return {
    days,
    hours: null,
    from: first,
    to: today,
    previous: { from: previousFirst, to: addDays(first, -1) },
    current: { grain: "hour", fromMs: startMs, toMs: currentHourMs },
    prior: { grain: "hour", fromMs: priorFromMs, toMs: startMs - HOUR_MS },
    ...actorsOf(actor),
    startMs,
    currentHourMs,
    timeZone,
    dayStarts,
  };
}

/**
 * The current hour and the `hours − 1` before it, and the `hours` hours before those. Hour buckets are the
 * finest the rollups keep, so "the last 24 hours" at 14:20 runs from 15:00 yesterday through 14:20 today.
 */
export function hoursWindow(nowMs: number, hours: number, actor: ActorChoice): ReadWindow {
  const currentHourMs = nowMs - (nowMs % HOUR_MS);
  const startMs = currentHourMs - (hours - 1) * HOUR_MS;
  const priorFromMs = startMs - hours * HOUR_MS;
  return {
    days: (dayOf(currentHourMs) - dayOf(startMs)) / DAY_MS + 1,
    hours,
    from: isoDay(startMs),
    to: isoDay(currentHourMs),
    previous: { from: isoDay(priorFromMs), to: isoDay(startMs - HOUR_MS) },
    current: { grain: "hour", fromMs: startMs, toMs: currentHourMs },
    prior: { grain: "hour", fromMs: priorFromMs, toMs: startMs - HOUR_MS },
    ...actorsOf(actor),
    startMs,
    currentHourMs,
  };
}

/**
 * The window a read route's decoded query asks for: `hours` or `days` (never both), else the default days.
 * Days follow the site's time zone (zonedWindow) unless it is UTC.
 */
export function queryWindow(nowMs: number, q: { readonly days?: number; readonly hours?: number }, actor: ActorChoice, timeZone: string = DEFAULT_TIME_ZONE): ReadWindow {
  if (q.days !== undefined && q.hours !== undefined) {
    throw new ApiError("invalid_query", "invalid query", [{ path: "hours", message: "give days or hours, not both" }]);
  }
  if (q.hours !== undefined) return hoursWindow(nowMs, q.hours, actor);
  const days = q.days ?? DEFAULT_DAYS;
  return timeZone === DEFAULT_TIME_ZONE ? readWindow(nowMs, days, actor) : zonedWindow(nowMs, days, actor, timeZone);
}

/** The whole span the window and its previous window cover together (one query reads both). */
export function bothSpans(w: ReadWindow): Span {
  return w.current.grain === "hour" && w.prior.grain === "hour"
    ? { grain: "hour", fromMs: w.prior.fromMs, toMs: w.current.toMs }
    : { grain: "day", from: w.previous.from, to: w.to };
}

/** Every bucket start of the window, in order: days through today (local days when zoned), or hours through the current hour. */
export function windowBuckets(window: ReadWindow, grain: "hour" | "day"): number[] {
  if (grain === "day" && window.dayStarts !== undefined) return [...window.dayStarts];
  const step = grain === "hour" ? HOUR_MS : DAY_MS;
  const last = grain === "hour" ? window.currentHourMs : Date.parse(`${window.to}T00:00:00Z`);
  const out: number[] = [];
  for (let t = window.startMs; t <= last; t += step) out.push(t);
  return out;
}

/**
 * A window (its current or prior part) as the query engine's `date_range`: a days window's days exactly — the
 * engine resolves them in the site's zone, so a half-hour zone's local day is not read from the UTC hour holding
 * its midnight as the rollups must (zonedWindow) — and an hours window's hour buckets.
 */
export function engineWindowRange(w: ReadWindow, part: "current" | "prior"): readonly [string, string] {
  if (w.hours === null) return part === "current" ? [w.from, w.to] : [w.previous.from, w.previous.to];
  return engineDateRange(part === "current" ? w.current : w.prior);
}

/**
 * A span as the query engine's `date_range`: whole days `[from, to]`, or hour buckets as instants, the last
 * one through its 59th minute (a zoned days window's local days are such hour buckets).
 */
export function engineDateRange(span: Span): readonly [string, string] {
  if (span.grain === "day") return [span.from, span.to];
  return [new Date(span.fromMs).toISOString(), new Date(span.toMs + HOUR_MS - 1000).toISOString()];
}
