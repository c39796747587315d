// A site actor's state of the day — visitors and visits — as bytes, so a clean stop can save it and the next
// boot can take it up instead of replaying the day's raw rows (about 4.5 s per 333,333 rows here; a deploy at
// 23:00 of a busy site replayed the whole day). The state carries its watermark: the latest time stamp it
// counted. The boot replays only rows after it. Saving and loading: storage/actor-snapshots.ts.
//
// JSON in UTF-8: hash keys are latin1 strings (code points < 256, which UTF-8 round-trips), counters are
// listed once and referenced by index, and visits share their entry's attribution by index.
import { RollupState, type RollupStateData } from "./rollup-state.ts";
import { type Attribution, VisitState } from "./visit-state.ts";

/** One site's state of one UTC day. */
export interface DayState {
  readonly state: RollupState;
  readonly visits: VisitState;
}

// Bumped when the layout changes: a snapshot of another version is ignored (the day is replayed instead).
const VERSION = 1;

interface SnapshotData {
  readonly version: number;
  readonly site: number;
  readonly dayStart: number;
  readonly state: RollupStateData;
  readonly attributions: readonly Attribution[];
  readonly visits: readonly (readonly [hashKey: string, lastTs: number, attribution: number])[];
}

export function encodeDayState({ state, visits }: DayState): Buffer {
  const attributionIndex = new Map<Attribution, number>();
  const attributions: Attribution[] = [];
  const openVisits: [string, number, number][] = [];
  for (const [key, lastTs, entry] of visits.entries()) {
    let i = attributionIndex.get(entry);
    if (i === undefined) {
      attributionIndex.set(entry, (i = attributions.length));
      attributions.push(entry);
    }
    openVisits.push([key, lastTs, i]);
  }
  const data: SnapshotData = { version: VERSION, site: state.siteId, dayStart: state.dayStart, state: state.toData(), attributions, visits: openVisits };
  return Buffer.from(JSON.stringify(data), "utf8");
}

/** The state in `bytes`, or null when they hold another version. */
export function decodeDayState(bytes: Buffer): DayState | null {
  const data = JSON.parse(bytes.toString("utf8")) as SnapshotData;
  if (data.version !== VERSION) return null;
  const visits = new VisitState();
  for (const [key, lastTs, i] of data.visits) visits.restore(key, lastTs, data.attributions[i]!);
  return { state: RollupState.fromData(data.site, data.dayStart, data.state), visits };
}
