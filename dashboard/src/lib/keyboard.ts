// The site view's keyboard map (issue 23), shown by `?`: one key per period, actor and comparison, and Esc to
// clear the filters. Keys are plain letters and digits without modifiers, ignored while typing in a field.
import type { ActorParam } from "./types";
import { ACTOR_CHOICES, type ComparisonMode, type PeriodKey, type ViewState } from "./view-state";

export interface KeyAction {
  readonly key: string;
  readonly does: string;
  readonly change: (view: ViewState) => Partial<ViewState>;
}

const period = (key: string, p: PeriodKey, days: number, does: string): KeyAction => ({ key, does, change: () => ({ period: p, days }) });
const actor = (key: string, a: ActorParam): KeyAction => ({ key, does: ACTOR_CHOICES.find((c) => c.key === a)!.label, change: () => ({ actor: a }) });
// The comparison cycles as the menu lists it: previous period, last year, off (a custom range is set with dates).
const NEXT_COMPARISON: Readonly<Record<ComparisonMode, ComparisonMode>> = { previous: "yoy", yoy: "off", custom: "off", off: "previous" };

export const KEY_ACTIONS: readonly KeyAction[] = [
  period("d", "today", 1, "Today"),
  period("r", "24h", 1, "Last 24 hours"),
  period("w", "7d", 7, "Last 7 days"),
  period("t", "30d", 30, "Last 30 days"),
  period("q", "90d", 90, "Last 90 days"),
  period("y", "12mo", 365, "Last 12 months"),
  ...ACTOR_CHOICES.map((c, i) => actor(String(i + 1), c.key)),
  {
    key: "c",
    does: "Comparison: previous period → same period last year → none",
    change: (v) => {
      const mode = NEXT_COMPARISON[v.comparison.mode];
      return { comparison: { ...v.comparison, mode }, compare: mode !== "off" };
    },
  },
  { key: "Escape", does: "Clear the filters", change: () => ({ filters: [] }) },
];

const ACTOR_KEYS: ReadonlySet<string> = new Set(ACTOR_CHOICES.map((_, i) => String(i + 1)));

/** A shared link's keys: it has no comparison control, and no actor to choose when the link fixes one. */
export function sharedViewActions(actorFixed: boolean): readonly KeyAction[] {
  return KEY_ACTIONS.filter((a) => a.key !== "c" && !(actorFixed && ACTOR_KEYS.has(a.key)));
}

/**
 * What a key press on a view does: "map" (`?` shows the keyboard map), one of `actions`, or null — a modifier held,
 * typing in a field or a dialog, a key of no action, or Esc with no filter to clear.
 */
export function viewKey(event: KeyboardEvent, actions: readonly KeyAction[], hasFilters: boolean): "map" | KeyAction | null {
  if (event.ctrlKey || event.metaKey || event.altKey) return null;
  const target = event.target as HTMLElement | null;
  if (target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return null;
  if (event.key === "?") return "map";
  if (target?.closest("dialog[open]")) return null;
  const action = actions.find((a) => a.key === event.key) ?? null;
  return action === null || (action.key === "Escape" && !hasFilters) ? null : action;
}
