// Flushing pending hits when a Node process ends, without changing how it ends:
// - beforeExit (the event loop ran dry): start a flush; its fetch keeps the loop alive until it settles, then
//   Node emits beforeExit again with nothing left to send and exits as it would have.
// - SIGTERM/SIGINT: if the host has its own listener, it decides what happens and we only start a flush. If not,
//   Node's default is to die at once; we flush (bounded by the senders' timeoutMs), remove our listener and
//   raise the signal again, so the process still ends by that signal, just up to timeoutMs later.
// One set of listeners per process, shared through a global symbol even if two copies of this module load.

interface Flushable {
  readonly options: { readonly timeoutMs: number };
  flush(): Promise<void>;
}

interface NodeProcess {
  readonly pid: number;
  readonly release?: { readonly name?: string };
  on(event: string, listener: (...args: never[]) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  listenerCount(event: string): number;
  kill(pid: number, signal: string): unknown;
}

interface ExitRegistry {
  readonly senders: Set<Flushable>;
  installed: boolean;
  readonly onBeforeExit: () => void;
  readonly onSignal: (signal: string) => void;
}

const SIGNALS = ["SIGTERM", "SIGINT"] as const;
const REGISTRY = Symbol.for("svc.adapters.exit-registry");

function nodeProcess(): NodeProcess | undefined {
  // Read through globalThis so edge bundlers do not flag a Node API in code that never runs there.
  const proc = (globalThis as unknown as { process?: NodeProcess }).process;
  if (proc === undefined || proc.release?.name !== "node") return undefined;
  if (typeof proc.on !== "function" || typeof proc.listenerCount !== "function") return undefined;
  return proc;
}

function flushAll(senders: Set<Flushable>): Promise<void> {
  return Promise.all([...senders].map((s) => s.flush())).then(() => undefined);
}

function registry(proc: NodeProcess): ExitRegistry {
  const holder = globalThis as { [REGISTRY]?: ExitRegistry };
  const existing = holder[REGISTRY];
  if (existing !== undefined) return existing;
  const senders = new Set<Flushable>();
  const created: ExitRegistry = {
    senders,
    installed: false,
    onBeforeExit: () => {
      void flushAll(senders);
    },
    onSignal: (signal: string) => {
      const flushing = flushAll(senders);
      if (proc.listenerCount(signal) > 1) return;
      const bound = Math.max(0, ...[...senders].map((s) => s.options.timeoutMs));
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, bound);
      });
      void Promise.race([flushing, deadline]).then(() => {
        clearTimeout(timer);
        uninstall(proc, created);
        proc.kill(proc.pid, signal);
      });
    },
  };
  holder[REGISTRY] = created;
  return created;
}

function install(proc: NodeProcess, reg: ExitRegistry): void {
  if (reg.installed) return;
  proc.on("beforeExit", reg.onBeforeExit);
  for (const signal of SIGNALS) proc.on(signal, reg.onSignal);
  reg.installed = true;
}

function uninstall(proc: NodeProcess, reg: ExitRegistry): void {
  if (!reg.installed) return;
  proc.removeListener("beforeExit", reg.onBeforeExit);
  for (const signal of SIGNALS) proc.removeListener(signal, reg.onSignal);
  reg.installed = false;
}

export function registerForExit(sender: Flushable): void {
  try {
    const proc = nodeProcess();
    if (proc === undefined) return;
    const reg = registry(proc);
    reg.senders.add(sender);
    install(proc, reg);
  } catch {
    // A runtime with a partial `process` (some edge polyfills throw "not implemented"): no exit hooks there.
  }
}

export function unregisterForExit(sender: Flushable): void {
  try {
    const proc = nodeProcess();
    if (proc === undefined) return;
    const reg = registry(proc);
    reg.senders.delete(sender);
    if (reg.senders.size === 0) uninstall(proc, reg);
  } catch {
    // See registerForExit.
  }
}
