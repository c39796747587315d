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

/** The action of a key press on the page, or null (a modifier held, or typing in a field). */
export function keyAction(event: KeyboardEvent): KeyAction | null {
  if (event.ctrlKey || event.metaKey || event.altKey) return null;
  const target = event.target as HTMLElement | null;
  if (target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName) || target.closest("dialog[open]"))) return null;
  return KEY_ACTIONS.find((a) => a.key === event.key) ?? null;
}
