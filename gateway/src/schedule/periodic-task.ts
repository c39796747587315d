// A long-lived background task: one Effect fiber, scoped, that runs a job every `everyMs`, the first time
// `everyMs` after start (a gateway that boots and stops within a minute, as in the tests, never runs it).
// A failed run (a rejected promise or a defect) is logged and the fiber keeps going: the next run comes on
// schedule. `periodicTask` is the scoped resource (closing its scope interrupts the fiber), ready to move into
// a Layer; `PeriodicTask` gives it start/stop for app.ts as it is composed today.
import { Cause, Effect, Exit, Scope } from "effect";
import type { Logger } from "../log.ts";

export interface PeriodicTaskOptions {
  /** For log lines: "insights schedule", "anomaly scan". */
  readonly name: string;
  readonly everyMs: number;
  /** `signal` aborts when the task is stopped mid-run (shutdown), so a provider request does not outlive it. */
  readonly run: (signal: AbortSignal) => Promise<void>;
  readonly log: Logger;
}

export function periodicTask(options: PeriodicTaskOptions): Effect.Effect<void, never, Scope.Scope> {
  const { name, everyMs, run, log } = options;
  const once = Effect.tryPromise({ try: (signal) => run(signal), catch: (error) => error }).pipe(
    Effect.catchCause((cause) =>
      Effect.sync(() => {
        const error = Cause.squash(cause);
        log.warn(`${name} failed; next run on schedule`, { error: error instanceof Error ? error.message : String(error) });
      }),
    ),
  );
  return Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(everyMs), once))).pipe(Effect.asVoid);
}

export class PeriodicTask {
  private scope: Scope.Closeable | null = null;

  constructor(private readonly options: PeriodicTaskOptions) {}

  start(): void {
    if (this.scope) return;
    const scope = Scope.makeUnsafe();
    this.scope = scope;
    Effect.runSync(Scope.provide(scope)(periodicTask(this.options)));
  }

  async stop(): Promise<void> {
    const scope = this.scope;
    this.scope = null;
    if (scope) await Effect.runPromise(Scope.close(scope, Exit.void));
  }
}
