// `npm start`: read the configuration, then run the gateway (which opens or starts the database, waiting
// for a server that is still coming up) until SIGTERM/SIGINT.
import { ConfigInvalid, loadConfig, redactUrlPasswords } from "./config.ts";
import { type Gateway, startGateway } from "./app.ts";
import { createLogger } from "./log.ts";

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigInvalid) {
      process.stderr.write(`svc gateway: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger(config.logLevel);
  // The handlers go in before anything starts: a SIGTERM that arrived between "gateway listening" and
  // their installation used to kill the process outright (seen in the durability test, 1 run in 5).
  // A signal during startup is honoured once the gateway is up.
  let running: Gateway | null = null;
  let requested: string | null = null;
  const shutdown = async (signal: string) => {
    log.info("shutting down", { signal });
    try {
      await running!.stop();
      process.exit(0);
    } catch (error) {
      log.error("shutdown failed", { error: String(error) });
      process.exit(1);
    }
  };
  const onSignal = (signal: string) => {
    // A second signal while still starting (e.g. waiting for a database that does not come) ends at once.
    if (requested !== null && running === null) process.exit(1);
    if (requested !== null) return;
    requested = signal;
    if (running) void shutdown(signal);
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));

  running = await startGateway({ config, log });
  if (requested !== null) await shutdown(requested);
}

main().catch((error) => {
  // redactUrlPasswords: a driver error may quote the connection string it was given.
  process.stderr.write(`svc gateway: failed to start: ${redactUrlPasswords(error instanceof Error ? error.message : String(error))}\n`);
  process.exit(1);
});
