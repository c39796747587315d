// Restarts the gateway's long-lived loops when they crash. A crash is a defect (an exception escaping the
// loop) or a failure the loop did not handle: it is logged with its component, counted for /healthz,
// cleaned up by the component (its in-hand requests answered 503, its state dropped), and the loop starts
// again. A normal end (a mailbox or queue that was ended for shutdown) is not a crash and is not restarted;
// an interruption (the layer's scope closing) is passed through.
import { performance } from "node:perf_hooks";
import { Cause, Effect } from "effect";
import type { Logger } from "../log.ts";

export const COMPONENTS = ["site_lane", "writer", "rollup_flusher", "maintenance", "live_hub"] as const;
export type Component = (typeof COMPONENTS)[number];

// 100 ms doubling to 5 s: a loop that crashes on every start (a poisoned state) costs at most a log line
// and a restart every 5 s instead of a busy loop; one that ran 30 s since its last start begins again at 100 ms.
const FIRST_RESTART_MS = 100;
const MAX_RESTART_MS = 5_000;
const STABLE_RUN_MS = 30_000;

export type CrashCounts = Record<Component, number>;

export class Supervisor {
  readonly crashes: CrashCounts = Object.fromEntries(COMPONENTS.map((c) => [c, 0])) as CrashCounts;

  constructor(private readonly log: Logger) {}

  /**
   * Runs `body` until it returns; after a crash runs `onCrash` (which must not fail), waits the backoff and
   * runs `body` again. `fields` name the instance in the log line (e.g. the site of an actor).
   */
  supervise<E>(
    component: Component,
    body: Effect.Effect<void, E>,
    onCrash: (error: unknown) => Effect.Effect<void> = () => Effect.void,
    fields: Record<string, number | string> = {},
  ): Effect.Effect<void> {
    const self = this;
    return Effect.gen(function* () {
      let delay = FIRST_RESTART_MS;
      while (true) {
        const started = performance.now();
        const crashed = yield* body.pipe(
          Effect.as(null),
          Effect.catchCause((cause) => (Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.succeed({ error: Cause.squash(cause) }))),
          Effect.orDie,
        );
        if (crashed === null) return;
        if (performance.now() - started >= STABLE_RUN_MS) delay = FIRST_RESTART_MS;
        self.crashes[component]++;
        self.log.error(`${component} crashed; restarting`, { ...fields, error: describe(crashed.error), restart_in_ms: delay });
        yield* onCrash(crashed.error);
        yield* Effect.sleep(delay);
        delay = Math.min(delay * 2, MAX_RESTART_MS);
      }
    });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
